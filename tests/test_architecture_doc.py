"""docs/architecture.md names every module of the package, and only modules that exist."""

from __future__ import annotations

import re

from tests.support.paths import ROOT


def test_the_module_map_is_the_tree() -> None:
    source = ROOT / "src" / "clusterplace"
    modules = {
        ".".join(path.relative_to(source).with_suffix("").parts)
        for path in source.rglob("*.py")
        if path.stem not in ("__init__", "__main__")
    }
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^- `([\w.]+)`:", section, re.MULTILINE))
    assert sorted(modules - listed) == [], "modules missing from docs/architecture.md"
    assert sorted(listed - modules) == [], "docs/architecture.md names modules that are gone"
