"""The definition kit's test material: the example module, the seed's CUE definition, and
CUE text written with readable indentation."""

from __future__ import annotations

import re
import textwrap

from tests.support.paths import EXAMPLES, ROOT

__all__ = ["EXAMPLE", "SEED_CUE", "tabs", "template_body"]

EXAMPLE = EXAMPLES / "my-platform"
SEED_CUE = ROOT / "tests" / "defkit" / "data" / "placement-demo.cue"

_LEADING = re.compile(r"^(?:    )+", re.MULTILINE)


def tabs(text: str) -> str:
    """Dedent ``text`` and turn each leading 4-space step into a tab (``cue fmt`` indents with
    tabs); spaces after the indentation (value alignment) are kept as they are."""
    body = textwrap.dedent(text).lstrip("\n")
    return _LEADING.sub(lambda m: "\t" * (len(m.group(0)) // 4), body)


def template_body(cue_text: str) -> str:
    """The contents of the top-level ``template: {...}`` of a definition file, one level
    less indented: what a definition object stores in ``spec.schematic.cue.template``."""
    lines = cue_text.splitlines()
    start = lines.index("template: {")
    end = len(lines) - 1 - lines[::-1].index("}")
    return "".join(line.removeprefix("\t") + "\n" for line in lines[start + 1 : end])
