"""One error hierarchy: every exception clusterplace defines is a ClusterplaceError, so
a program (and the CLI) catches one type; those the API promises as ValueError still are."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path

import pytest

import clusterplace
from clusterplace.errors import ClusterplaceError

# Never raised to a caller: private control flow, and a PyYAML error that the YAML
# reader turns into a TextError where it is raised.
_INTERNAL = {"_Unsupported", "DuplicateKeyError", "_Stopped", "_Break", "_Continue"}


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for module_info in pkgutil.walk_packages(clusterplace.__path__, "clusterplace."):
        if module_info.name.endswith("__main__"):
            continue  # runs the CLI
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and value.__name__ not in _INTERNAL
            ):
                found.append(value)
    return found


def test_every_exception_is_a_clusterplace_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 15
    strays = [
        f"{c.__module__}.{c.__name__}" for c in classes if not issubclass(c, ClusterplaceError)
    ]
    assert strays == []


def test_value_errors_stay_value_errors() -> None:
    from clusterplace.labels import SelectorError
    from clusterplace.quantity import QuantityError

    assert issubclass(SelectorError, ValueError) and issubclass(QuantityError, ValueError)


def _unknown_placement_explained() -> object:
    from clusterplace.api import Fleet
    from clusterplace.scheduling import explain_placement, schedule

    return explain_placement(schedule(Fleet()), "apps", "ghost")


def _unknown_placement_why_not() -> object:
    from clusterplace.api import Fleet
    from clusterplace.scheduling import why_not

    return why_not(Fleet(), "apps", "ghost", "cluster-1")


def _empty_enum() -> object:
    from clusterplace.defkit import enum_param

    return enum_param("size", [])


def _bad_selector() -> object:
    from clusterplace.labels import parse

    return parse("env in (prod")


def _bad_quantity() -> object:
    from clusterplace.quantity import parse_quantity

    return parse_quantity("12 apples")


def _negative_replicas() -> object:
    from clusterplace.federation import plan_replicas

    return plan_replicas(None, -1, ["a", "b"])


def _bad_preferences() -> object:
    from clusterplace.federation import parse_preferences

    return parse_preferences("{not json")


def _bad_cluster_selector() -> object:
    from clusterplace.federation import parse_cluster_selector

    return parse_cluster_selector('[{"key": "env", "operator": "nope", "values": ["a"]}]')


def _bad_edit() -> object:
    from clusterplace.scheduling import parse_edits

    return parse_edits(["this is not an edit"])


def _missing_file(tmp: Path) -> object:
    from clusterplace.codecs import expand_sources

    return expand_sources([str(tmp / "missing.yaml")])


def _invalid_manifest(tmp: Path) -> object:
    from clusterplace.codecs import expand_sources, load_fleet

    (tmp / "fleet.yaml").write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: Not_A_Name}\n",
        encoding="utf-8",
    )
    return load_fleet(expand_sources([str(tmp / "fleet.yaml")]))


def _bad_replicas_field() -> object:
    from clusterplace.federation import spec_replicas

    return spec_replicas({"kind": "Deployment", "spec": {"replicas": "three"}})


BAD_CALLS: dict[str, Callable[[Path], object]] = {
    "explain_placement, unknown placement": lambda _: _unknown_placement_explained(),
    "why_not, unknown placement": lambda _: _unknown_placement_why_not(),
    "enum_param, no values": lambda _: _empty_enum(),
    "labels.parse, unclosed set": lambda _: _bad_selector(),
    "parse_quantity, not a quantity": lambda _: _bad_quantity(),
    "plan_replicas, negative replicas": lambda _: _negative_replicas(),
    "parse_preferences, not JSON": lambda _: _bad_preferences(),
    "parse_cluster_selector, unknown operator": lambda _: _bad_cluster_selector(),
    "parse_edits, not an edit": lambda _: _bad_edit(),
    "expand_sources, missing file": _missing_file,
    "load_fleet, invalid name": _invalid_manifest,
    "spec_replicas, not an integer": lambda _: _bad_replicas_field(),
}


@pytest.mark.parametrize("call", sorted(BAD_CALLS))
def test_public_functions_raise_clusterplace_errors(call: str, tmp_path: Path) -> None:
    """What public functions raise for bad input, not only what the classes are."""
    with pytest.raises(ClusterplaceError) as raised:
        BAD_CALLS[call](tmp_path)
    assert str(raised.value).strip()


def test_an_unknown_placement_is_also_a_key_error_with_a_plain_message() -> None:
    from clusterplace.errors import InputError, UnknownPlacementError

    with pytest.raises(KeyError) as raised:
        _unknown_placement_explained()
    assert isinstance(raised.value, UnknownPlacementError | InputError)
    assert str(raised.value) == 'placement "ghost" not found in namespace "apps"'


def test_plan_replicas_uses_the_defaults_for_invalid_preferences_and_says_why() -> None:
    """An invalid annotation is not an error for the planner (upstream falls back to
    its defaults): the plan says why instead."""
    from clusterplace.federation import plan_replicas

    plan = plan_replicas("{not json", 4, ["a", "b"])
    assert plan.preferences_error and sum(plan.plan.values()) == 4


def test_enum_param_stays_a_value_error() -> None:
    with pytest.raises(ValueError, match="needs at least one value"):
        _empty_enum()
