"""What runs in each member cluster: current replica counts and capacity, from the
objects read there (``kubectl get deploy,rs,pods -o yaml``), as upstream's
``clustersReplicaState`` and ``podanalyzer`` derive them.

- A copy whose ``spec.replicas`` equals ``status.readyReplicas`` runs that many.
- Otherwise it runs as many pods as are Running with a ``Ready=True`` condition (upstream
  counts any Ready condition, whatever its status: a bug not copied), among the pods of
  its namespace that its ``spec.selector`` matches.
- Pods not Running whose ``PodScheduled=False`` condition (reason ``Unschedulable``)
  changed more than 60 s before ``now`` make the capacity ``spec.replicas`` minus their
  number (never below 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from clusterplace.api.base import parse_time
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import Selector, SelectorError, from_label_selector

__all__ = [
    "UNSCHEDULABLE_AFTER",
    "WORKLOAD_KINDS",
    "ClusterState",
    "ObservedError",
    "WorkloadState",
    "check_observed",
    "is_workload",
]

UNSCHEDULABLE_AFTER = timedelta(seconds=60)  # upstream's UnschedulableThreshold
WORKLOAD_KINDS = ("Deployment", "ReplicaSet")
_WORKLOAD_GROUPS = ("apps", "extensions")  # apps/v1, v1beta1, v1beta2; extensions/v1beta1

Path = tuple[str | int, ...]


class ObservedError(ClusterplaceError, ValueError):
    """An observed object that does not parse; ``problems`` pairs field paths with why."""

    def __init__(self, problems: Sequence[tuple[Path, str]]) -> None:
        super().__init__("; ".join(msg for _, msg in problems))
        self.problems = list(problems)


def is_workload(obj: Mapping[str, Any]) -> bool:
    """A Deployment or ReplicaSet of the apps or extensions API group."""
    group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
    return obj.get("kind") in WORKLOAD_KINDS and group in _WORKLOAD_GROUPS and bool(version)


def _count(value: object, path: Path, problems: list[tuple[Path, str]]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append((path, f"must be a non-negative integer, not {value!r}"))
        return None
    return value


def _mapping(value: object, path: Path, problems: list[tuple[Path, str]]) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append((path, f"must be a mapping, not {type(value).__name__}"))
        return {}
    return value


def _workload_problems(obj: Mapping[str, Any]) -> list[tuple[Path, str]]:
    problems: list[tuple[Path, str]] = []
    spec = _mapping(obj.get("spec"), ("spec",), problems)
    status = _mapping(obj.get("status"), ("status",), problems)
    _count(spec.get("replicas"), ("spec", "replicas"), problems)
    _count(status.get("readyReplicas"), ("status", "readyReplicas"), problems)
    selector = spec.get("selector")
    if selector is not None:
        try:
            from_label_selector(_mapping(selector, ("spec", "selector"), problems))
        except (SelectorError, TypeError) as err:
            problems.append((("spec", "selector"), f"invalid label selector: {err}"))
    return problems


def _pod_problems(obj: Mapping[str, Any]) -> list[tuple[Path, str]]:
    problems: list[tuple[Path, str]] = []
    labels = _mapping((obj.get("metadata") or {}).get("labels"), ("metadata", "labels"), problems)
    for key, value in labels.items():
        if not isinstance(value, str):
            problems.append((("metadata", "labels", key), "label values must be strings"))
    status = _mapping(obj.get("status"), ("status",), problems)
    if not isinstance(status.get("phase", ""), str):
        problems.append((("status", "phase"), "must be a string"))
    conditions = status.get("conditions")
    if conditions is None:
        return problems
    if not isinstance(conditions, list):
        problems.append((("status", "conditions"), "must be a list"))
        return problems
    for i, cond in enumerate(conditions):
        where: Path = ("status", "conditions", i)
        cond = _mapping(cond, where, problems)
        for name in ("type", "status", "reason"):
            if not isinstance(cond.get(name, ""), str):
                problems.append(((*where, name), "must be a string"))
        stamp = cond.get("lastTransitionTime")
        if stamp is not None:
            try:
                parse_time(stamp)
            except ValueError as err:
                problems.append(((*where, "lastTransitionTime"), str(err)))
    return problems


def check_observed(obj: Mapping[str, Any]) -> None:
    """Raise :class:`ObservedError` if an observed Deployment, ReplicaSet or Pod has a
    field this module reads with a value it cannot read; other kinds are not read."""
    problems: list[tuple[Path, str]] = []
    if not isinstance(obj.get("metadata"), Mapping) or not isinstance(
        obj["metadata"].get("name"), str
    ):
        problems.append((("metadata", "name"), "an object needs metadata.name, a string"))
    elif is_workload(obj):
        problems = _workload_problems(obj)
    elif obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
        problems = _pod_problems(obj)
    if problems:
        raise ObservedError(problems)


@dataclass(frozen=True)
class WorkloadState:
    """One workload as observed in one cluster, and what the planner takes from it."""

    spec_replicas: int
    ready_replicas: int
    running_ready: int | None  # None: not counted (spec.replicas == readyReplicas)
    unschedulable: int
    current: int
    capacity: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "specReplicas": self.spec_replicas,
            "readyReplicas": self.ready_replicas,
            "runningAndReadyPods": self.running_ready,
            "unschedulablePods": self.unschedulable,
            "current": self.current,
            "capacity": self.capacity,
        }


def _namespace(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "default")


def _ready(pod: Mapping[str, Any]) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") != "Running":
        return False
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )


def _unschedulable(pod: Mapping[str, Any], now: datetime) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") == "Running":
        return False
    for c in status.get("conditions") or []:
        if (c.get("type"), c.get("status"), c.get("reason")) != (
            "PodScheduled",
            "False",
            "Unschedulable",
        ):
            continue
        stamp = c.get("lastTransitionTime")
        # A missing time is Go's zero time, long past: the pod counts, as upstream.
        if stamp is None or parse_time(stamp) + UNSCHEDULABLE_AFTER < now:
            return True
    return False


@dataclass
class ClusterState:
    """The objects observed in one member cluster (already checked)."""

    workloads: dict[tuple[str, str, str], Mapping[str, Any]] = field(default_factory=dict)
    pods: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, objects: Iterable[Mapping[str, Any]]) -> ClusterState:
        state = cls()
        for obj in objects:
            if is_workload(obj):
                name = str(obj["metadata"]["name"])
                state.workloads[(str(obj["kind"]), _namespace(obj), name)] = obj
            elif obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
                state.pods.setdefault(_namespace(obj), []).append(obj)
        return state

    def next_unschedulable(self, now: datetime) -> datetime | None:
        """The last moment before a pod observed here starts to count as unschedulable
        (its ``PodScheduled=False`` condition, reason ``Unschedulable``, turns 60 s old),
        the earliest such after ``now``; None when no pod will. Past that moment the
        capacities this state gives may differ, with nothing observed having changed."""
        found: datetime | None = None
        for pods in self.pods.values():
            for pod in pods:
                status = pod.get("status") or {}
                if status.get("phase") == "Running":
                    continue
                for c in status.get("conditions") or []:
                    if (c.get("type"), c.get("status"), c.get("reason")) != (
                        "PodScheduled",
                        "False",
                        "Unschedulable",
                    ) or c.get("lastTransitionTime") is None:
                        continue
                    moment = parse_time(c["lastTransitionTime"]) + UNSCHEDULABLE_AFTER
                    if moment >= now and (found is None or moment < found):
                        found = moment
        return found

    def workload(self, kind: str, namespace: str, name: str, now: datetime) -> WorkloadState | None:
        """The state of the workload's copy here, or None when there is no copy."""
        copy = self.workloads.get((kind, namespace, name))
        if copy is None:
            return None
        spec = copy.get("spec") or {}
        replicas = spec.get("replicas")
        replicas = 1 if replicas is None else int(replicas)  # the API server's default
        ready = int((copy.get("status") or {}).get("readyReplicas") or 0)
        if replicas == ready:
            return WorkloadState(replicas, ready, None, 0, ready, None)
        selector = spec.get("selector")
        # A copy without a selector selects no pods (a nil selector matches nothing).
        match = from_label_selector(selector) if selector is not None else Selector.nothing()
        pods = [
            p
            for p in self.pods.get(namespace, [])
            if match.matches((p.get("metadata") or {}).get("labels") or {})
        ]
        running = sum(1 for p in pods if _ready(p))
        stuck = sum(1 for p in pods if _unschedulable(p, now))
        capacity = max(0, replicas - stuck) if stuck else None
        return WorkloadState(replicas, ready, running, stuck, running, capacity)
