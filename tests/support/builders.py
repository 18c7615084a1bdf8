"""Building what tests feed clusterplace: OCM objects in Kubernetes JSON shape, Federation
cluster-selector annotations, and fleets written to files.

Defaults follow the upstream test cases: namespace ``ns1``, placement
``placement1``, one set ``clusterset1`` bound to ``ns1`` whose clusters all carry
its clusterset label, default prioritizer policy, no taints, a fixed clock (``NOW``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

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
from clusterplace.federation import ANNOTATION
from clusterplace.outputs.serialize import dump_yaml_documents
from tests.support.paths import FLEET

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
    "annotate",
    "binding",
    "builtin",
    "cluster",
    "cluster_set",
    "condition",
    "decision",
    "fleet",
    "placement",
    "req",
    "score",
    "taint",
    "toleration",
    "world",
    "write_big_fleet",
    "write_clusters",
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
    """The fleet of ``objects``, indexed as the scheduler reads it."""
    return Fleet.of(objects)


def world(
    *objects: KubeObject,
    placement_obj: Placement | None = None,
    **spec: Any,
) -> list[KubeObject]:
    """The default set and its binding, ``objects``, and one placement (``spec`` or given)."""
    chosen = placement_obj if placement_obj is not None else placement(**spec)
    return [cluster_set(), binding(), *objects, chosen]


# -- Federation ClusterSelector annotations -------------------------------------------


def req(key: str, operator: str, *values: str) -> dict[str, Any]:
    """One ``{key, operator, values}`` requirement of the annotation."""
    return {"key": key, "operator": operator, "values": list(values)}


def annotate(*requirements: dict[str, Any]) -> dict[str, str]:
    """The annotations of an object selecting clusters by ``requirements``."""
    return {ANNOTATION: json.dumps(list(requirements))}


# -- fleets as files -------------------------------------------------------------------


def write_clusters(path: Path, *names: str, zone: str = "a") -> None:
    """A manifest file of clusters ``names`` (label ``zone``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        dump_yaml_documents([cluster(n, labels={"zone": zone}).to_dict() for n in names])
    )


def write_big_fleet(folder: Path, clusters: int = 230) -> None:
    """A fleet with pages and groups: the example's sets, ``clusters`` more clusters, and
    placements over them (Balance couples them, so their order matters)."""
    folder.mkdir(exist_ok=True)
    shutil.copy(FLEET / "clustersets.yaml", folder)
    docs: list[dict[str, Any]] = []
    for i in range(clusters):
        labels = {
            "provider": ("aws", "gcp", "azure")[i % 3],
            "cluster.open-cluster-management.io/clusterset": ("prod", "nonprod")[i % 2],
        }
        docs.append(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": f"c{i:03d}", "labels": labels},
                "spec": {"hubAcceptsClient": True},
                "status": {"allocatable": {"cpu": str(2 + i % 7), "memory": f"{4 + i % 5}Gi"}},
            }
        )
    specs: list[tuple[str, dict[str, Any]]] = [
        ("all", {"clusterSets": ["global"]}),
        (
            "grouped",
            {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": "30%"}}},
        ),
        ("few", {"numberOfClusters": 7}),
        (
            "cpu",
            {
                "numberOfClusters": 12,
                "prioritizerPolicy": {
                    "configurations": [
                        {"scoreCoordinate": {"builtIn": "ResourceAllocatableCPU"}, "weight": 2}
                    ]
                },
            },
        ),
    ]
    for name, spec in specs:
        docs.append(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "Placement",
                "metadata": {"name": name, "namespace": "apps"},
                "spec": spec,
            }
        )
    (folder / "fleet.yaml").write_text(yaml.safe_dump_all(docs))
