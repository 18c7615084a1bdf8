"""Objects to YAML and JSON text, as kubectl writes them: keys in the order given,
multi-line strings as literal blocks (tabs included), JSON indented by two."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

__all__ = ["dump_json", "dump_yaml_stream"]


class _Dumper(yaml.CSafeDumper):
    pass


def _str_presenter(dumper: yaml.representer.BaseRepresenter, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str_presenter)


class _TabBlockDumper(yaml.SafeDumper):
    """The pure-Python emitter, which (unlike libyaml, used otherwise) can be told that
    tabs inside a literal block are fine: YAML allows them in block content, and CUE
    templates are indented with tabs. Without this, a template becomes one long
    double-quoted line of ``\\n\\t`` escapes."""

    def analyze_scalar(self, scalar: str) -> Any:
        analysis = super().analyze_scalar(scalar)
        if "\t" in scalar and "\n" in scalar and not analysis.allow_block:
            without_tabs = super().analyze_scalar(scalar.replace("\t", "x"))
            analysis.allow_block = without_tabs.allow_block
        return analysis


_TabBlockDumper.add_representer(str, _str_presenter)


def _has_tabbed_block(value: Any) -> bool:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if "\t" in current and "\n" in current:
                return True
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return False


def dump_yaml_stream(objects: Sequence[Any]) -> str:
    """Objects as a ``---``-separated YAML stream, keys in the order given; multi-line
    strings as literal blocks (``|``), tabs and all."""
    dumper = _TabBlockDumper if any(_has_tabbed_block(o) for o in objects) else _Dumper
    return yaml.dump_all(
        objects, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True
    )


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
