"""ManifestWorks as an MWRS reads and makes them: rollout status from conditions (upstream's
clusterRolloutStatusFunc), equality, the webhook's manifest checks, decision groups."""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.api import ManifestWork, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.api.work import ManifestWorkSpec
from clusterplace.delivery.works import (
    DecisionGroupError,
    decision_pages,
    desired_work,
    owner_label_problem,
    rollout_status,
    same_work,
    template_problems,
)

T1, T2, T3 = "2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z", "2026-01-01T00:00:03Z"


def condition(kind: str, status: str, at: str, generation: int = 2) -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": "Test",
        "lastTransitionTime": at,
        "observedGeneration": generation,
    }


def work(*conditions: dict[str, Any], generation: int = 2) -> ManifestWork:
    return ManifestWork.model_validate(
        {
            "apiVersion": "work.open-cluster-management.io/v1",
            "kind": "ManifestWork",
            "metadata": {"name": "w", "namespace": "cluster1", "generation": generation},
            "status": {"conditions": list(conditions)},
        }
    )


APPLIED = condition("Applied", "True", T1)


@pytest.mark.parametrize(
    ("conditions", "status", "since"),
    [
        ((), "ToApply", None),
        ((condition("Progressing", "False", T2),), "ToApply", None),  # not applied yet
        (
            (condition("Applied", "False", T1), condition("Progressing", "False", T2)),
            "ToApply",
            None,
        ),
        (
            (condition("Applied", "True", T1, 1), condition("Progressing", "False", T2)),
            "ToApply",
            None,
        ),
        ((APPLIED,), "ToApply", None),  # no Progressing: never advances (upstream's trap)
        ((APPLIED, condition("Progressing", "True", T2, 1)), "ToApply", None),
        (
            (APPLIED, condition("Progressing", "True", T2), condition("Degraded", "True", T3, 1)),
            "ToApply",
            None,
        ),
        ((APPLIED, condition("Progressing", "True", T2)), "Progressing", T2),
        ((APPLIED, condition("Progressing", "Unknown", T2)), "Progressing", T2),
        ((APPLIED, condition("Progressing", "False", T2)), "Succeeded", T2),
        (
            (APPLIED, condition("Progressing", "False", T2), condition("Degraded", "True", T3)),
            "Succeeded",
            T2,
        ),
        (
            (APPLIED, condition("Progressing", "True", T2), condition("Degraded", "True", T3)),
            "Failed",
            T3,
        ),
        (
            (APPLIED, condition("Progressing", "True", T2), condition("Degraded", "False", T3)),
            "Progressing",
            T2,
        ),
    ],
)
def test_rollout_status_reads_conditions_as_upstream(
    conditions: tuple[dict[str, Any], ...], status: str, since: str | None
) -> None:
    found = rollout_status(work(*conditions))
    assert found["clusterName"] == "cluster1"
    assert found["status"] == status
    assert found["lastTransitionTime"] == since


def spec(*manifests: dict[str, Any]) -> ManifestWorkSpec:
    return ManifestWorkSpec.model_validate({"workload": {"manifests": list(manifests)}})


def cm(name: str | None = "a", namespace: str = "default", **meta: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"namespace": namespace, **meta}
    if name is not None:
        metadata["name"] = name
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


def test_template_problems_in_the_webhooks_words_and_order() -> None:
    assert template_problems(spec(cm("a"), cm("b"))) == []
    assert template_problems(spec()) == ["Workload manifests should not be empty"]
    assert template_problems(spec(cm(None))) == ["name must be set in manifest"]
    assert template_problems(spec(cm("a", generateName="a-"))) == [
        "generateName must not be set in manifest"
    ]
    assert template_problems(spec(cm("a"), cm("a"))) == [
        "duplicate manifest for resource default/a with resource type v1.ConfigMap"
    ]
    assert template_problems(spec(cm("a"), cm("a", namespace="other"))) == []
    big = {**cm("a"), "data": {"k": "x" * 600_000}}
    (problem,) = template_problems(spec(big))
    assert problem.startswith("the size of manifests is ")
    assert problem.endswith(" bytes which exceeds the 512000 limit")


def mwrs(name: str = "web", namespace: str = "apps", **labels: str) -> ManifestWorkReplicaSet:
    return ManifestWorkReplicaSet.model_validate(
        {
            "apiVersion": "work.open-cluster-management.io/v1alpha1",
            "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or None},
            "spec": {
                "manifestWorkTemplate": {"workload": {"manifests": [cm("a")]}},
                "placementRefs": [{"name": "p"}],
            },
        }
    )


def test_desired_work_carries_labels_and_template() -> None:
    made = desired_work(mwrs(team="x"), "cluster1", "p", "web")
    assert (made.namespace, made.name) == ("cluster1", "web")
    assert made.labels == {
        "team": "x",
        "work.open-cluster-management.io/manifestworkreplicaset": "apps.web",
        "work.open-cluster-management.io/placementname": "p",
    }
    assert made.spec.workload.manifests == [cm("a")]


def test_same_work_ignores_creation_timestamps_in_manifests() -> None:
    made = desired_work(mwrs(), "cluster1", "p", "web")
    stamped = made.model_copy(
        update={
            "spec": spec(
                {**cm("a"), "metadata": {**cm("a")["metadata"], "creationTimestamp": None}}
            )
        }
    )
    assert same_work(made, stamped)
    changed = made.model_copy(update={"spec": spec(cm("b"))})
    assert not same_work(made, changed)
    relabelled = made.model_copy(
        update={"metadata": made.metadata.model_copy(update={"labels": {}})}
    )
    assert not same_work(made, relabelled)


def test_owner_label_must_be_a_label_value() -> None:
    assert owner_label_problem(mwrs()) is None
    problem = owner_label_problem(mwrs(name="w" * 60))
    assert problem is not None and "must be no more than 63 characters" in problem


def decision(name: str, clusters: list[str], **labels: str) -> PlacementDecision:
    return PlacementDecision.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {"name": name, "namespace": "apps", "labels": labels},
            "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
        }
    )


def test_decision_pages_read_the_group_labels() -> None:
    group = "cluster.open-cluster-management.io/decision-group-"
    pages = decision_pages(
        [decision("p-decision-1", ["a", "b"], **{group + "index": "1", group + "name": "canary"})]
    )
    assert pages == [
        {"name": "p-decision-1", "groupName": "canary", "groupIndex": 1, "clusters": ["a", "b"]}
    ]
    with pytest.raises(DecisionGroupError, match="incorrect group index"):
        decision_pages([decision("p-decision-1", ["a"])])
    with pytest.raises(DecisionGroupError, match='"x", not an integer'):
        decision_pages([decision("p-decision-1", ["a"], **{group + "index": "x"})])
