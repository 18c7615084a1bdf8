"""The public face: what docs/api.md promises is importable."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "clusterplace": ["ClusterplaceError", "InputError", "InputErrors", "load_fleet", "schedule"],
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
    "clusterplace.delivery": [
        "plan_rollout",
        "RolloutResult",
        "ClusterRolloutStatus",
        "RolloutStatus",
        "RolloutStrategyError",
        "RolloutInputError",
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_documented_names_are_exported(module: str) -> None:
    imported = importlib.import_module(module)
    for name in PUBLIC[module]:
        assert name in imported.__all__ and hasattr(imported, name)


TOP_LEVEL = {
    # what a program reaches for -> the module that defines it
    "load_fleet": "clusterplace.codecs",
    "schedule": "clusterplace.scheduling",
    "explain_placement": "clusterplace.scheduling",
    "why_not": "clusterplace.scheduling",
    "what_if": "clusterplace.scheduling",
    "IncrementalSchedule": "clusterplace.scheduling",
    "evaluate": "clusterplace.defkit.placement",
    "plan_replicas": "clusterplace.federation",
    "plan_rollout": "clusterplace.delivery",
    # the errors
    "ClusterplaceError": "clusterplace.errors",
    "InputError": "clusterplace.errors",
    "InputErrors": "clusterplace.errors",
    "Location": "clusterplace.errors",
    "UnknownPlacementError": "clusterplace.errors",
    "LoadError": "clusterplace.codecs",
    "SelectorError": "clusterplace.labels",
    "QuantityError": "clusterplace.quantity",
}


def test_the_top_level_offers_exactly_the_public_face() -> None:
    import clusterplace

    assert sorted(clusterplace.__all__) == sorted([*TOP_LEVEL, "__version__"])
    assert set(clusterplace.__all__) <= set(dir(clusterplace))
    for name, module in TOP_LEVEL.items():
        assert getattr(clusterplace, name) is getattr(importlib.import_module(module), name)
    errors = [name for name in TOP_LEVEL if name.endswith("Error")]
    assert all(
        issubclass(getattr(clusterplace, name), clusterplace.ClusterplaceError) for name in errors
    )
    assert all(callable(getattr(clusterplace, name)) for name in TOP_LEVEL)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = clusterplace.nope


def test_a_star_import_gives_every_public_name() -> None:
    namespace: dict[str, object] = {}
    exec("from clusterplace import *", namespace)
    assert set(TOP_LEVEL) <= set(namespace)


def test_importing_clusterplace_loads_no_layer() -> None:
    """``import clusterplace`` is cheap: the public names load when first used."""
    import subprocess
    import sys

    code = (
        "import sys, clusterplace; "
        "print(sorted(m for m in sys.modules if m.startswith('clusterplace.') "
        "or m in ('numpy', 'pydantic', 'yaml')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['clusterplace.errors']"


def test_the_public_face_walks_the_readme_path() -> None:
    from datetime import UTC, datetime
    from pathlib import Path

    import clusterplace

    now = datetime(2026, 1, 1, tzinfo=UTC)
    fleet = clusterplace.load_fleet(Path(__file__).parents[1] / "examples" / "fleet")
    result = clusterplace.schedule(fleet, now)
    fates = clusterplace.explain_placement(result, "apps", "analytics")
    assert {f.cluster for f in fates} == set(fleet.clusters)
    rejected = next(f.cluster for f in fates if not f.selected)
    answer = clusterplace.why_not(fleet, "apps", "analytics", rejected, now=now)
    assert answer.cluster == rejected and not answer.selected


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
        "import sys, clusterplace.scheduling, clusterplace.defkit.placement, "
        "clusterplace.federation, clusterplace.delivery; "
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
