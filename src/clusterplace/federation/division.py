"""Replica division for routed workloads: what ``route`` applies after the ClusterSelector.

Only Deployments and ReplicaSets are divided, among the clusters their ClusterSelector
selected; every other object is routed unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from clusterplace.api.registry import namespace_of
from clusterplace.errors import ClusterplaceError
from clusterplace.federation.observed import ClusterState, WorkloadState, is_workload
from clusterplace.federation.replica_preferences import (
    DEPLOYMENT_PREFERENCES,
    REPLICA_SET_PREFERENCES,
)
from clusterplace.federation.replicas import ReplicaPlan, plan_replicas
from clusterplace.federation.routing import Routed, route
from clusterplace.labels import Labels

__all__ = [
    "DivisionError",
    "DivisionWarning",
    "WorkloadFieldError",
    "divide_workloads",
    "preferences_annotation",
    "route_and_divide",
    "spec_replicas",
    "workload_key",
]

Path = tuple[str | int, ...]


class WorkloadFieldError(ClusterplaceError, ValueError):
    """A workload field the division cannot read: ``spec.replicas`` or the preferences
    annotation."""


class DivisionError(ClusterplaceError, ValueError):
    """Workloads that cannot be divided: ``problems`` holds (object index, field, why)."""

    def __init__(self, problems: Sequence[tuple[int, Path, str]]) -> None:
        super().__init__("; ".join(msg for _, _, msg in problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class DivisionWarning:
    """An invalid preferences annotation: the object's index, the field and why."""

    index: int
    field: Path
    message: str


def preferences_annotation(obj: Mapping[str, Any]) -> str:
    """The annotation that holds a workload's preferences (by its kind)."""
    return DEPLOYMENT_PREFERENCES if obj.get("kind") == "Deployment" else REPLICA_SET_PREFERENCES


def spec_replicas(obj: Mapping[str, Any]) -> int:
    """``spec.replicas``, 1 when absent (the API server's default). Raises
    :class:`WorkloadFieldError` (a ``ValueError``) for anything but a non-negative
    integer."""
    spec = obj.get("spec")
    value = spec.get("replicas") if isinstance(spec, Mapping) else None
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorkloadFieldError(f"must be an integer, not {value!r}")
    if value < 0:
        raise WorkloadFieldError(f"must not be negative, not {value}")
    if value > 2**31 - 1:
        raise WorkloadFieldError(f"must fit in an int32 (at most 2147483647), not {value}")
    return value


def workload_key(obj: Mapping[str, Any]) -> str:
    """``namespace/name``: upstream's key, which seeds the planner's tie-break hash."""
    meta = obj.get("metadata") or {}
    namespace = namespace_of(str(obj.get("kind", "")), meta.get("namespace")) or ""
    return f"{namespace}/{meta.get('name', '')}"


@dataclass(frozen=True)
class Divided:
    """A routed workload's division, and the states observed that fed it."""

    plan: ReplicaPlan
    observed: Mapping[str, WorkloadState]


def _preferences_text(obj: Mapping[str, Any]) -> str | None:
    annotation = preferences_annotation(obj)
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(annotation)
    if text is not None and not isinstance(text, str):
        raise WorkloadFieldError(f"must be a string, not {type(text).__name__}")
    return text


def divide_one(
    obj: Mapping[str, Any],
    clusters: Sequence[str],
    observed: Mapping[str, ClusterState] | None,
    *,
    now: datetime,
    division: str = "upstream",
) -> Divided:
    """The division of one workload among ``clusters``. Raises
    :class:`WorkloadFieldError` (a ``ValueError``) for a bad ``spec.replicas`` or a
    preferences annotation that is not a string."""
    replicas = spec_replicas(obj)
    text = _preferences_text(obj)
    key = workload_key(obj)
    namespace, _, name = key.partition("/")
    states: dict[str, WorkloadState] = {}
    for cluster in clusters:
        seen = (observed or {}).get(cluster)
        state = seen.workload(str(obj["kind"]), namespace, name, now) if seen else None
        if state is not None:
            states[cluster] = state
    current = {c: s.current for c, s in states.items()}
    capacity = {c: s.capacity for c, s in states.items() if s.capacity is not None}
    plan = plan_replicas(
        text, replicas, clusters, current=current, capacity=capacity, key=key, division=division
    )
    return Divided(plan, states)


def divide_workloads(
    routed: Sequence[Routed],
    observed: Mapping[str, ClusterState] | None,
    *,
    now: datetime,
    division: str = "upstream",
) -> tuple[list[Routed], list[DivisionWarning]]:
    """Every routed workload with its replicas divided among its clusters.

    Returns the routed objects (workloads now carry their :class:`ReplicaPlan`) and one
    warning per invalid preferences annotation. Raises :class:`DivisionError` listing
    every workload whose ``spec.replicas`` or annotation cannot be read.
    """
    out: list[Routed] = []
    warnings: list[DivisionWarning] = []
    problems: list[tuple[int, Path, str]] = []
    for index, item in enumerate(routed):
        if not is_workload(item.obj):
            out.append(item)
            continue
        annotation_path: Path = ("metadata", "annotations", preferences_annotation(item.obj))
        bad = False
        for path, check in (
            (("spec", "replicas"), spec_replicas),
            (annotation_path, _preferences_text),
        ):
            try:
                check(item.obj)
            except ValueError as err:
                problems.append((index, path, str(err)))
                bad = True
        if bad:
            continue
        divided = divide_one(item.obj, item.clusters, observed, now=now, division=division)
        if divided.plan.preferences_error is not None:
            warnings.append(
                DivisionWarning(
                    index,
                    annotation_path,
                    f"invalid replica preferences ({divided.plan.preferences_error}); "
                    'using the defaults {"clusters": {"*": {"weight": 1}}}',
                )
            )
        out.append(replace(item, division=divided.plan, observed=divided.observed))
    if problems:
        raise DivisionError(problems)
    return out, warnings


def route_and_divide(
    objects: Sequence[Mapping[str, Any]],
    clusters: Mapping[str, Labels],
    observed: Mapping[str, ClusterState] | None = None,
    *,
    now: datetime,
    division: str = "upstream",
) -> tuple[list[Routed], list[DivisionWarning]]:
    """Route every object by its ClusterSelector, then divide every workload's replicas
    among the clusters it was routed to.

    ``clusters`` maps each cluster's name to its labels. Raises :class:`RoutingError` (an
    invalid annotation) or :class:`DivisionError` (an unreadable ``spec.replicas`` or
    preferences annotation), each naming the objects by their index in ``objects``.
    """
    return divide_workloads(route(objects, clusters), observed, now=now, division=division)
