"""The tests' own layout: what tests share is imported from ``tests.support``; no module
imports a test module or a conftest, and a folder's private helpers (``_*.py``) stay in
that folder. Benchmarks import from ``tests.support`` only."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import of a ``tests`` module in ``path``."""
    package = path.relative_to(ROOT).parent.parts
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            names = [".".join([*base, *([node.module] if node.module else [])])]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] == "tests"]
    return found


def _allowed(path: Path, module: str) -> bool:
    """``tests.support``, or a private helper module (``_*.py``) of the importer's folder."""
    parts = tuple(module.split("."))
    if parts[:2] == ("tests", "support"):
        return True
    folder = path.relative_to(ROOT).parent.parts
    return parts[:-1] == folder and parts[-1].startswith("_")


def test_tests_and_benchmarks_share_only_through_support() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for folder in ("tests", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in _imports(path)
        if not _allowed(path, module)
    ]
    assert not problems, (
        "import what tests share from tests.support, never a test module, a conftest or "
        "another folder's helpers:\n" + "\n".join(problems)
    )
