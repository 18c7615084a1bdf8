"""Building OCM placement objects for scheduler tests, in Kubernetes JSON shape.

Defaults follow the upstream test cases: namespace ``ns1``, placement
``placement1``, one set ``clusterset1`` bound to ``ns1`` whose clusters all carry
its clusterset label, default prioritizer policy, no taints, a fixed clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterplace.api import (
    CLUSTERSET_LABEL,
    AddOnPlacementScore,
    Fleet,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
)
from clusterplace.api.base import format_time
from clusterplace.api.placement import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    DISABLE_SCHEDULING_ANNOTATION,
    PLACEMENT_LABEL,
)
from clusterplace.scheduling import PlacementResult, ScheduleResult, schedule
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "CLUSTERSET_LABEL",
    "DECISION_GROUP_INDEX_LABEL",
    "DECISION_GROUP_NAME_LABEL",
    "DISABLE_SCHEDULING_ANNOTATION",
    "NOW",
    "NS",
    "PLACEMENT",
    "PLACEMENT_LABEL",
    "SET",
    "addon",
    "binding",
    "builtin",
    "cluster",
    "cluster_set",
    "condition",
    "context",
    "decided",
    "decision",
    "fleet",
    "get_condition",
    "misconfigured",
    "pages",
    "placement",
    "run",
    "run_all",
    "satisfied",
    "score",
    "selected",
    "taint",
    "toleration",
    "world",
]

NOW = datetime(2022, 1, 1, tzinfo=UTC)
NS = "ns1"
PLACEMENT = "placement1"
SET = "clusterset1"

CLUSTER_API = "cluster.open-cluster-management.io/v1"
SET_API = "cluster.open-cluster-management.io/v1beta2"
PLACEMENT_API = "cluster.open-cluster-management.io/v1beta1"
SCORE_API = "cluster.open-cluster-management.io/v1alpha1"


def _time(value: datetime | str) -> str:
    return value if isinstance(value, str) else format_time(value)


def taint(
    key: str,
    value: str = "",
    effect: str = "NoSelect",
    added: datetime | None = None,
) -> dict[str, Any]:
    """One ``spec.taints[]`` entry; ``added`` is its timeAdded."""
    out: dict[str, Any] = {"key": key, "value": value, "effect": effect}
    if added is not None:
        out["timeAdded"] = _time(added)
    return out


def toleration(
    key: str | None = None,
    operator: str | None = None,
    value: str | None = None,
    effect: str | None = None,
    seconds: int | None = None,
) -> dict[str, Any]:
    """One ``spec.tolerations[]`` entry; unset fields are omitted."""
    fields = {
        "key": key,
        "operator": operator,
        "value": value,
        "effect": effect,
        "tolerationSeconds": seconds,
    }
    return {k: v for k, v in fields.items() if v is not None}


def builtin(name: str, weight: int | None = None) -> dict[str, Any]:
    """A BuiltIn prioritizer configuration (weight omitted: the CRD default 1)."""
    out: dict[str, Any] = {"scoreCoordinate": {"type": "BuiltIn", "builtIn": name}}
    if weight is not None:
        out["weight"] = weight
    return out


def addon(resource: str, score_name: str, weight: int | None = None) -> dict[str, Any]:
    """An AddOn prioritizer configuration."""
    out: dict[str, Any] = {
        "scoreCoordinate": {
            "type": "AddOn",
            "addOn": {"resourceName": resource, "scoreName": score_name},
        }
    }
    if weight is not None:
        out["weight"] = weight
    return out


def cluster(
    name: str,
    labels: Mapping[str, str] | None = None,
    claims: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, Any]] | None = None,
    allocatable: Mapping[str, str | int] | None = None,
    capacity: Mapping[str, str | int] | None = None,
    cluster_set: str | None = SET,
    deleting: bool = False,
) -> ManagedCluster:
    """A ManagedCluster, by default a member of ``clusterset1`` by its label."""
    all_labels = dict(labels or {})
    if cluster_set is not None:
        all_labels.setdefault(CLUSTERSET_LABEL, cluster_set)
    metadata: dict[str, Any] = {"name": name, "labels": all_labels}
    if deleting:
        metadata["deletionTimestamp"] = _time(NOW - timedelta(minutes=1))
    status: dict[str, Any] = {}
    if claims:
        status["clusterClaims"] = [{"name": k, "value": v} for k, v in claims.items()]
    if allocatable is not None:
        status["allocatable"] = dict(allocatable)
    if capacity is not None:
        status["capacity"] = dict(capacity)
    body: dict[str, Any] = {
        "apiVersion": CLUSTER_API,
        "kind": "ManagedCluster",
        "metadata": metadata,
        "spec": {"hubAcceptsClient": True},
    }
    if taints:
        body["spec"]["taints"] = [dict(t) for t in taints]
    if status:
        body["status"] = status
    return ManagedCluster.model_validate(body)


def cluster_set(
    name: str = SET,
    selector_type: str | None = None,
    label_selector: Mapping[str, Any] | None = None,
) -> ManagedClusterSet:
    """A ManagedClusterSet; no selector type means ExclusiveClusterSetLabel."""
    selector: dict[str, Any] = {}
    if selector_type is not None:
        selector["selectorType"] = selector_type
    if label_selector is not None:
        selector["labelSelector"] = dict(label_selector)
    body: dict[str, Any] = {
        "apiVersion": SET_API,
        "kind": "ManagedClusterSet",
        "metadata": {"name": name},
    }
    if selector:
        body["spec"] = {"clusterSelector": selector}
    return ManagedClusterSet.model_validate(body)


def binding(ns: str = NS, set_name: str = SET) -> ManagedClusterSetBinding:
    """A ManagedClusterSetBinding named after its set (as the webhook requires)."""
    return ManagedClusterSetBinding.model_validate(
        {
            "apiVersion": SET_API,
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": set_name, "namespace": ns},
            "spec": {"clusterSet": set_name},
        }
    )


def placement(
    ns: str = NS,
    name: str = PLACEMENT,
    annotations: Mapping[str, str] | None = None,
    status: Mapping[str, Any] | None = None,
    **spec: Any,
) -> Placement:
    """A Placement; ``spec`` keys are the JSON (camelCase) field names."""
    metadata: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}"}
    if annotations:
        metadata["annotations"] = dict(annotations)
    body: dict[str, Any] = {
        "apiVersion": PLACEMENT_API,
        "kind": "Placement",
        "metadata": metadata,
        "spec": spec,
    }
    if status is not None:
        body["status"] = dict(status)
    return Placement.model_validate(body)


def decision(
    ns: str = NS,
    name: str = f"{PLACEMENT}-decision-1",
    clusters: Iterable[str] = (),
    placement_label: str | None = PLACEMENT,
    group_name: str | None = None,
    group_index: int | None = None,
) -> PlacementDecision:
    """A PlacementDecision; ``placement_label=None`` leaves it unlabelled."""
    labels: dict[str, str] = {}
    if placement_label is not None:
        labels[PLACEMENT_LABEL] = placement_label
    if group_name is not None:
        labels[DECISION_GROUP_NAME_LABEL] = group_name
    if group_index is not None:
        labels[DECISION_GROUP_INDEX_LABEL] = str(group_index)
    return PlacementDecision.model_validate(
        {
            "apiVersion": PLACEMENT_API,
            "kind": "PlacementDecision",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
        }
    )


def score(
    cluster_ns: str,
    name: str,
    items: Mapping[str, int],
    valid_until: datetime | None = None,
) -> AddOnPlacementScore:
    """An AddOnPlacementScore ``name`` in the cluster's namespace."""
    status: dict[str, Any] = {"scores": [{"name": k, "value": v} for k, v in items.items()]}
    if valid_until is not None:
        status["validUntil"] = _time(valid_until)
    return AddOnPlacementScore.model_validate(
        {
            "apiVersion": SCORE_API,
            "kind": "AddOnPlacementScore",
            "metadata": {"name": name, "namespace": cluster_ns},
            "status": status,
        }
    )


def condition(type_: str, status: str, reason: str, message: str, when: datetime) -> dict[str, Any]:
    """A ``status.conditions[]`` entry in JSON shape."""
    return {
        "type": type_,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": _time(when),
    }


def fleet(*objects: KubeObject) -> Fleet:
    return Fleet.of(objects)


def world(
    *objects: KubeObject,
    placement_obj: Placement | None = None,
    **spec: Any,
) -> list[KubeObject]:
    """The default set and its binding, ``objects``, and one placement (``spec`` or given)."""
    chosen = placement_obj if placement_obj is not None else placement(**spec)
    return [cluster_set(), binding(), *objects, chosen]


def run_all(objects: Iterable[KubeObject], now: datetime = NOW) -> ScheduleResult:
    return schedule(list(objects), now=now)


def run(
    *objects: KubeObject, now: datetime = NOW, ns: str = NS, name: str = PLACEMENT
) -> PlacementResult:
    """Schedule ``objects`` and return the result of placement ``ns/name``."""
    result = schedule(list(objects), now=now).get(ns, name)
    assert result is not None, f"no placement {ns}/{name} in the result"
    return result


def context(pl: Placement, *objects: KubeObject, now: datetime = NOW) -> Context:
    """A plugin context for unit-testing filters and prioritizers directly."""
    return Context(pl, Snapshot(fleet(*objects)), now)


def get_condition(result: PlacementResult, type_: str) -> tuple[str, str, str]:
    """(status, reason, message) of the placement's condition ``type_``."""
    status = result.placement.status
    for cond in (status.conditions if status else None) or []:
        if cond.type == type_:
            return cond.status, cond.reason, cond.message
    raise AssertionError(f"no condition {type_}")


def satisfied(result: PlacementResult) -> tuple[str, str, str]:
    return get_condition(result, "PlacementSatisfied")


def misconfigured(result: PlacementResult) -> tuple[str, str, str]:
    return get_condition(result, "PlacementMisconfigured")


def decided(result: PlacementResult) -> list[str]:
    """Every cluster in the placement's decisions, in PD order."""
    return [name for pd in result.decisions for name in pd.cluster_names]


def pages(result: PlacementResult) -> list[tuple[str, list[str]]]:
    """(PD name, its clusters) for each PlacementDecision of the result."""
    return [(pd.name, pd.cluster_names) for pd in result.decisions]


def selected(result: PlacementResult) -> list[str]:
    assert result.outcome is not None
    return result.outcome.selected
