"""``clusterplace get`` for ManagedClusterSets, ManagedClusterSetBindings,
AddOnPlacementScores, ManifestWorkReplicaSets and ManifestWorks: as the input (or the
directory hub) has them, with columns like the CRDs' printer columns, and AGE where
kubectl shows one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    ManagedClusterSet,
    ManagedClusterSetBinding,
)
from clusterplace.api.base import Condition, format_time
from clusterplace.api.work import MWRS_LABEL, ManifestWork, ManifestWorkReplicaSet
from clusterplace.cli._listing import age_column, get_command, now
from clusterplace.cli._resources import resource_named
from clusterplace.labels import Selector
from clusterplace.outputs.printers import Columns
from clusterplace.scheduling.candidates import SetSelectorError, cluster_set_selector

__all__ = ["OTHER_COMMANDS"]


def _condition(conditions: Sequence[Condition] | None, kind: str, field: str) -> str:
    for condition in conditions or ():
        if condition.type == kind:
            return str(getattr(condition, field)) or "<none>"
    return "<none>"


def _members(fleet: Fleet) -> dict[str, list[str]]:
    """Each set's clusters, by name (a set with an invalid selector has none, as upstream)."""
    members: dict[str, list[str]] = {}
    for name, cluster_set in sorted(fleet.cluster_sets.items()):
        try:
            selector = cluster_set_selector(cluster_set)
        except SetSelectorError:
            selector = Selector.nothing()
        members[name] = [
            c for c in sorted(fleet.clusters) if selector.matches(fleet.clusters[c].labels)
        ]
    return members


def _selector_text(cluster_set: ManagedClusterSet) -> str:
    selector = cluster_set.spec.cluster_selector
    if selector.selector_type == "ExclusiveClusterSetLabel":
        return f"cluster.open-cluster-management.io/clusterset={cluster_set.name}"
    try:
        return str(cluster_set_selector(cluster_set)) or "<all>"
    except SetSelectorError as err:
        return f"<invalid: {err}>"


def _set_columns(fleet: Fleet) -> tuple[Columns, Columns]:
    members = _members(fleet)
    table: Columns = [
        ("NAME", lambda s: s.name),
        ("SELECTOR-TYPE", lambda s: s.spec.cluster_selector.selector_type),
        ("CLUSTERS", lambda s: str(len(members.get(s.name, [])))),
        age_column(now()),
    ]
    wide: Columns = [
        *table,
        ("SELECTOR", _selector_text),
        ("CLUSTER-NAMES", lambda s: ",".join(members.get(s.name, [])) or "<none>"),
    ]
    return table, wide


def _binding_columns(fleet: Fleet) -> tuple[Columns, Columns]:
    members = _members(fleet)

    def bound(binding: ManagedClusterSetBinding) -> str:
        # What the hub's Bound condition says: the set exists.
        return "True" if binding.spec.cluster_set in fleet.cluster_sets else "False"

    table: Columns = [
        ("NAME", lambda b: b.name),
        ("CLUSTERSET", lambda b: b.spec.cluster_set),
        ("BOUND", bound),
        age_column(now()),
    ]
    wide: Columns = [
        *table,
        ("CLUSTERS", lambda b: str(len(members.get(b.spec.cluster_set, [])))),
    ]
    return table, wide


def _scores(score: AddOnPlacementScore) -> str:
    items = (score.status.scores if score.status else None) or []
    return ",".join(f"{i.name}={i.value}" for i in items) or "<none>"


def _valid_until(score: AddOnPlacementScore) -> str:
    until = score.status.valid_until if score.status else None
    return format_time(until) if until is not None else "<none>"


def _score_columns(_fleet: Fleet) -> tuple[Columns, Columns]:
    table: Columns = [
        ("NAME", lambda s: s.name),
        ("SCORES", _scores),
        ("VALID-UNTIL", _valid_until),
        age_column(now()),
    ]
    return table, table


def _mwrs_conditions(mwrs: ManifestWorkReplicaSet) -> list[Condition]:
    return list((mwrs.status.conditions if mwrs.status else None) or [])


def _summary(mwrs: ManifestWorkReplicaSet) -> str:
    if mwrs.status is None:
        return "<none>"
    s = mwrs.status.summary
    return (
        f"total={s.total},applied={s.applied},available={s.available},"
        f"progressing={s.progressing},degraded={s.degraded}"
    )


def _mwrs_columns(_fleet: Fleet) -> tuple[Columns, Columns]:
    # The CRD's printer columns: PlacementVerified and ManifestworkApplied, reason and status.
    table: Columns = [
        ("NAME", lambda m: m.name),
        ("PLACEMENT", lambda m: _condition(_mwrs_conditions(m), "PlacementVerified", "reason")),
        ("FOUND", lambda m: _condition(_mwrs_conditions(m), "PlacementVerified", "status")),
        (
            "MANIFESTWORKS",
            lambda m: _condition(_mwrs_conditions(m), "ManifestworkApplied", "reason"),
        ),
        ("APPLIED", lambda m: _condition(_mwrs_conditions(m), "ManifestworkApplied", "status")),
    ]
    wide: Columns = [
        *table,
        ("PLACEMENT-REFS", lambda m: ",".join(r.name for r in m.spec.placement_refs)),
        ("SUMMARY", _summary),
    ]
    return table, wide


def _work_condition(kind: str) -> Any:
    def cell(work: ManifestWork) -> str:
        found = work.condition(kind)
        return found.status if found is not None else "<none>"

    return cell


def _work_columns(_fleet: Fleet) -> tuple[Columns, Columns]:
    table: Columns = [
        ("NAME", lambda w: w.name),
        ("APPLIED", _work_condition("Applied")),
        ("AVAILABLE", _work_condition("Available")),
        ("MANIFESTS", lambda w: str(len(w.spec.workload.manifests))),
        age_column(now()),
    ]
    wide: Columns = [
        *table,
        ("PROGRESSING", _work_condition("Progressing")),
        ("DEGRADED", _work_condition("Degraded")),
        ("REPLICASET", lambda w: w.labels.get(MWRS_LABEL, "<none>")),
    ]
    return table, wide


OTHER_COMMANDS: tuple[click.Command, ...] = (
    get_command(
        resource_named("managedclustersets"),
        "List ManagedClusterSets with their members (also: mclset, mclsets).",
        lambda fleet: list(fleet.cluster_sets.values()),
        _set_columns,
    ),
    get_command(
        resource_named("managedclustersetbindings"),
        "List ManagedClusterSetBindings: the set each binds, and whether it exists "
        "(also: mclsetbinding, mclsetbindings).",
        lambda fleet: list(fleet.bindings.values()),
        _binding_columns,
    ),
    get_command(
        resource_named("addonplacementscores"),
        "List AddOnPlacementScores (each in its cluster's namespace) with their scores.",
        lambda fleet: list(fleet.scores.values()),
        _score_columns,
    ),
    get_command(
        resource_named("manifestworkreplicasets"),
        "List ManifestWorkReplicaSets with the status their controller wrote (also: mwrs).",
        lambda fleet: list(fleet.work_sets.values()),
        _mwrs_columns,
    ),
    get_command(
        resource_named("manifestworks"),
        "List ManifestWorks (each in its cluster's namespace) with their agents' status.",
        lambda fleet: list(fleet.works.values()),
        _work_columns,
    ),
)
