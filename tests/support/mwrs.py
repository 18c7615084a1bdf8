"""Builders of ManifestWorkReplicaSets, placements, decisions and works (with a work
agent's conditions) for the delivery tests."""

from __future__ import annotations

from typing import Any

from clusterplace.api import ManifestWork, ManifestWorkReplicaSet, Placement, PlacementDecision
from clusterplace.delivery.works import desired_work

NS = "apps"
GROUP = "cluster.open-cluster-management.io"
FINALIZER = "work.open-cluster-management.io/manifest-work-cleanup"


def configmap(name: str = "settings", value: str = "1") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"value": value},
    }


def replica_set(
    *refs: tuple[str, dict[str, Any]] | str,
    name: str = "web",
    manifests: list[dict[str, Any]] | None = None,
    finalizers: list[str] | None = None,
    deleting: bool = False,
    cascade: str = "Background",
    status: dict[str, Any] | None = None,
) -> ManifestWorkReplicaSet:
    placement_refs: list[dict[str, Any]] = []
    for ref in refs or ("p",):
        if isinstance(ref, str):
            placement_refs.append({"name": ref})
        else:
            placement_refs.append({"name": ref[0], "rolloutStrategy": ref[1]})
    metadata: dict[str, Any] = {"name": name, "namespace": NS}
    if finalizers is None:
        finalizers = [FINALIZER]
    if finalizers:
        metadata["finalizers"] = finalizers
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    body: dict[str, Any] = {
        "apiVersion": "work.open-cluster-management.io/v1alpha1",
        "kind": "ManifestWorkReplicaSet",
        "metadata": metadata,
        "spec": {
            "manifestWorkTemplate": {
                "workload": {"manifests": manifests if manifests is not None else [configmap()]}
            },
            "placementRefs": placement_refs,
            "cascadeDeletionPolicy": cascade,
        },
    }
    if status is not None:
        body["status"] = status
    return ManifestWorkReplicaSet.model_validate(body)


def placement(name: str = "p", selected: int = 0, groups: int = 0) -> Placement:
    return Placement.model_validate(
        {
            "apiVersion": f"{GROUP}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": name, "namespace": NS},
            "status": {
                "numberOfSelectedClusters": selected,
                "decisionGroups": [
                    {"decisionGroupIndex": i, "decisionGroupName": "", "clusterCount": 0}
                    for i in range(groups)
                ]
                or None,
            },
        }
    )


def decision(
    clusters: list[str], placement_name: str = "p", index: int = 0, group: str = "", page: int = 1
) -> PlacementDecision:
    return PlacementDecision.model_validate(
        {
            "apiVersion": f"{GROUP}/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {
                "name": f"{placement_name}-decision-{page}",
                "namespace": NS,
                "labels": {
                    f"{GROUP}/placement": placement_name,
                    f"{GROUP}/decision-group-index": str(index),
                    f"{GROUP}/decision-group-name": group,
                },
            },
            "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
        }
    )


def conditions(state: str, at: str = "2026-01-01T00:00:00Z", generation: int = 1) -> list[Any]:
    """A work agent's conditions for a rollout state: applied, progressing, done,
    failed, silent (applied with no Progressing condition), or done-degraded (Progressing
    False while Degraded True)."""

    def c(kind: str, status: str) -> dict[str, Any]:
        return {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "lastTransitionTime": at,
            "observedGeneration": generation,
        }

    table = {
        "progressing": [c("Applied", "True"), c("Progressing", "True")],
        "done": [c("Applied", "True"), c("Progressing", "False"), c("Available", "True")],
        "failed": [c("Applied", "True"), c("Progressing", "True"), c("Degraded", "True")],
        "silent": [c("Applied", "True"), c("Available", "True")],
        "done-degraded": [c("Applied", "True"), c("Progressing", "False"), c("Degraded", "True")],
    }
    return table[state]


def work_for(
    mwrs: ManifestWorkReplicaSet,
    cluster: str,
    state: str | None = None,
    placement_name: str = "p",
    at: str = "2026-01-01T00:00:00Z",
) -> ManifestWork:
    made = desired_work(mwrs, cluster, placement_name, mwrs.name)
    update: dict[str, Any] = {"metadata": made.metadata.model_copy(update={"generation": 1})}
    if state is not None:
        status = {"conditions": conditions(state, at)}
        update["status"] = type(made).model_validate({**made.to_dict(), "status": status}).status
    return made.model_copy(update=update)
