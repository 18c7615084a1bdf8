"""The public face: what docs/api.md promises is importable."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "clusterplace": ["ClusterplaceError", "InputError", "InputErrors"],
    "clusterplace.scheduling": [
        "schedule",
        "ScheduleResult",
        "PlacementResult",
        "IncrementalSchedule",
        "ChangeReport",
        "explain",
    ],
    "clusterplace.api": ["Fleet", "ManagedCluster", "Placement"],
    "clusterplace.codecs": ["expand_sources", "load_fleet", "read_documents", "decode"],
    "clusterplace.labels": ["parse", "Selector", "LabelIndex"],
    "clusterplace.outputs": ["open_output", "OutputError"],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_documented_names_are_exported(module: str) -> None:
    imported = importlib.import_module(module)
    for name in PUBLIC[module]:
        assert name in imported.__all__ and hasattr(imported, name)


def test_the_collector_pause_can_be_turned_off() -> None:
    import gc

    from clusterplace.collector import collector_paused, pause_collector

    pause_collector(False)
    try:
        with collector_paused():
            assert gc.isenabled()
    finally:
        pause_collector(True)
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_schedule_is_the_function_not_a_module() -> None:
    """The one-placement pipeline module was renamed (schedule.py -> pipeline.py) so
    that importing it can no longer shadow the ``schedule`` function on the package."""
    from clusterplace.scheduling import schedule

    assert callable(schedule) and schedule.__module__ == "clusterplace.scheduling.scheduler"


def test_the_decision_core_loads_no_yaml_parser() -> None:
    """Models and scheduling import no YAML parser: reading is clusterplace.codecs."""
    import subprocess
    import sys

    code = (
        "import sys, clusterplace.scheduling, clusterplace.placement, clusterplace.federation; "
        "print(sorted(m for m in ('yaml', 'ryml', 'clusterplace.codecs') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_no_two_classes_share_a_name() -> None:
    """A newcomer can tell each class by its name alone (private helpers aside)."""
    import ast
    from collections import Counter
    from pathlib import Path

    import clusterplace

    root = Path(clusterplace.__file__).parent
    names = Counter(
        node.name
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    )
    assert [name for name, count in names.items() if count > 1] == []
