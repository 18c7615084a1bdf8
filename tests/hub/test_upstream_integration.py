"""Upstream OCM's placement integration scenarios, on the directory hub and on a real
Kubernetes API server.

Each test is one ``It`` of open-cluster-management-io/ocm ``test/integration/placement/``
(cited in its docstring), run twice, against the real controller process as a user runs
it (:mod:`tests.support.scenario_hub`):

- ``directory``: ``clusterplace controller --hub DIR`` watching a temporary hub folder
  from the start (upstream starts its controller manager before each scenario); the
  scenario's API calls become edits of that folder, one manifest file per object
  (create: write the file; update: rewrite it; delete: remove it), and expectations are
  read from what the controller wrote (``DIR/.clusterplace``);
- ``kubernetes``: ``clusterplace controller --kubeconfig`` on a real API server (the
  envtest tier: one server for the module, one controller and one namespace per
  scenario, the cluster-scoped objects deleted between scenarios), the scenario's calls
  made through the API as upstream's are, and expectations read back from the API.

Upstream's timeouts are kept (30 s, 60 s for cluster names). Translations, where the
directory hub has no equivalent of an API object or call:

- namespaces are implicit there (upstream creates one per scenario; so does the
  ``kubernetes`` variant);
- a PlacementDecision created or deleted through the API is a file in the output
  folder: the hub folder's decisions are ignored, and the output folder is where the
  hub keeps them;
- upstream's ``IsControlledBy`` check of a decision (its ownerReference) is the placement
  label on the directory hub, which writes no ownerReferences (it has no garbage
  collector); the ``kubernetes`` variant checks the ownerReference's uid;
- ``tolerationSeconds`` and taint ages are scaled down (upstream: 10 s and 20 s) so that
  the whole file runs in a few minutes.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support.envtest import Envtest, RealHub
from tests.support.scenario_hub import (
    PLACEMENT,
    DirectoryScenarioHub,
    KubeScenarioHub,
    ScenarioHub,
)
from tests.support.scenario_hub import stamp as _stamp

TIMEOUT = 30.0  # upstream's eventuallyTimeout
SET1 = "clusterset-up1"
SET2 = "clusterset-up2"
CLUSTER = "cluster-up"  # upstream's clusterName (a set label value that names no set)

Doc = dict[str, Any]
Hub = ScenarioHub


def eventually(check: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Poll ``check`` until it holds (upstream's ``Eventually``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# -- upstream's assertions ------------------------------------------------------------


def assert_decision_created(hub: Hub, timeout: float = TIMEOUT) -> None:
    """assertPlacementDecisionCreated (controlled by the placement: its label here)."""
    eventually(lambda: bool(hub.decisions()), "a decision of the placement", timeout)


def assert_decision_numbers(hub: Hub, clusters: int, decisions: int) -> None:
    """assertPlacementDecisionNumbers."""

    def check() -> bool:
        docs = hub.decisions()
        return len(docs) == decisions and len(hub.decided()) == clusters

    eventually(check, f"{clusters} clusters in {decisions} decisions (have {hub.decided()})")


def assert_cluster_names(hub: Hub, expected: list[str], timeout: float = 2 * TIMEOUT) -> None:
    """assertPlacementDecisionClusterNames (twice the timeout, as upstream)."""

    def check() -> bool:
        return set(hub.decided()) == set(expected)

    eventually(check, f"decisions {sorted(expected)} (have {hub.decided()})", timeout)


def assert_satisfied(hub: Hub, selected: int, satisfied: bool) -> None:
    """assertPlacementConditionSatisfied."""
    want = ("True", "AllDecisionsScheduled") if satisfied else ("False", "NotAllDecisionsScheduled")

    def check() -> bool:
        status = hub.status()
        return (
            hub.condition("PlacementSatisfied") == want
            and status.get("numberOfSelectedClusters", 0) == selected
        )

    eventually(check, f"PlacementSatisfied {want} with {selected} selected")


def assert_misconfigured(hub: Hub, misconfigured: bool) -> None:
    """assertPlacementConditionMisconfigured."""
    want = ("True", "Misconfigured") if misconfigured else ("False", "Succeedconfigured")
    eventually(
        lambda: hub.condition("PlacementMisconfigured") == want, f"PlacementMisconfigured {want}"
    )


def group(index: int, decisions: list[int], count: int, name: str = "") -> Doc:
    return {
        "decisionGroupIndex": index,
        "decisionGroupName": name,
        "decisions": [f"{PLACEMENT}-decision-{k}" for k in decisions],
        "clusterCount": count,
    }


def assert_decision_groups(hub: Hub, groups: list[Doc]) -> None:
    """assertPlacementStatusDecisionGroups (twice the timeout, as upstream)."""
    eventually(
        lambda: (hub.status().get("decisionGroups") or []) == groups,
        f"decision groups {groups}",
        timeout=2 * TIMEOUT,
    )


def create_placement_with_decision(hub: Hub, spec: Doc, clusters: int, decisions: int) -> None:
    """assertCreatingPlacementWithDecision."""
    hub.put_placement(spec)
    assert_decision_created(hub)
    assert_decision_numbers(hub, clusters, decisions)
    if spec.get("numberOfClusters") is not None:
        assert_satisfied(hub, clusters, clusters == spec["numberOfClusters"])


def patch_placement_spec(hub: Hub, **spec: Any) -> None:
    """assertPatchingPlacementSpec: the manifest's spec, changed."""
    doc = hub.get("Placement", PLACEMENT, hub.ns)
    doc["spec"].update(spec)
    hub.put(doc)


def exact(*configurations: Doc) -> Doc:
    return {"mode": "Exact", "configurations": list(configurations)}


def built_in(name: str, weight: int) -> Doc:
    return {"scoreCoordinate": {"type": "BuiltIn", "builtIn": name}, "weight": weight}


def add_on(resource: str, score: str, weight: int) -> Doc:
    return {
        "scoreCoordinate": {
            "type": "AddOn",
            "addOn": {"resourceName": resource, "scoreName": score},
        },
        "weight": weight,
    }


RESOURCES = [
    ["10", "10", "50", "100"],
    ["7", "10", "90", "100"],
    ["9", "10", "80", "100"],
]


_NAMESPACES = itertools.count()


@pytest.fixture(params=["directory", pytest.param("kubernetes", marks=pytest.mark.envtest)])
def hub(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Hub]:
    """An empty hub with a live controller watching it (upstream's BeforeEach): a hub
    folder, or a namespace of its own on the module's real API server."""
    found: ScenarioHub
    server: Envtest | None = None
    if request.param == "directory":
        found = DirectoryScenarioHub(tmp_path / "hub", "ns-up")
    else:
        server = request.getfixturevalue("envtest")
        found = KubeScenarioHub(server, tmp_path, f"ns-up-{next(_NAMESPACES)}")
    found.start()
    try:
        yield found
    finally:
        try:
            found.stop()
        finally:
            if server is not None:
                RealHub(server, tmp_path).reset()  # the cluster-scoped objects too


# -- placement_test.go: Placement / Scheduling ----------------------------------------


def test_should_recreate_placementdecisions_once_placementdecisions_are_deleted(hub: Hub) -> None:
    """placement_test.go, "Should re-create placementdecisions successfully once
    placementdecisions are deleted"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    for name in hub.decisions():
        hub.delete_decision(name)

    # 8 s, not upstream's 30 s: past the directory hub's 5-s rescan (a real server's
    # watch tells at once), waiting longer only makes a failure slower.
    assert_decision_created(hub, timeout=8)
    assert_decision_numbers(hub, 5, 1)
    assert_decision_groups(hub, [group(0, [1], 5)])


def test_should_recreate_placementdecisions_once_selected_clusters_are_terminating(
    hub: Hub,
) -> None:
    """placement_test.go, "Should re-create placementdecisions successfully once selected
    clusters are terminating"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    # A finalizer, then a delete: the cluster stays, terminating.
    terminating = clusters[0]
    hub.terminate(terminating)

    assert_decision_created(hub)
    assert_decision_numbers(hub, 4, 1)
    assert_decision_groups(hub, [group(0, [1], 4)])

    # The finalizer removed: the cluster is gone.
    hub.delete_clusters(terminating)


def test_should_create_empty_placementdecision_when_no_cluster_selected(hub: Hub) -> None:
    """placement_test.go, "Should create empty placementdecision when no cluster
    selected"."""
    create_placement_with_decision(hub, {}, 0, 1)
    assert_decision_groups(hub, [group(0, [1], 0)])


def test_should_create_multiple_placementdecisions_once_scheduled(hub: Hub) -> None:
    """placement_test.go, "Should create multiple placementdecisions once scheduled"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 101)
    create_placement_with_decision(hub, {}, 101, 2)

    assert_decision_numbers(hub, 101, 2)
    assert_decision_groups(hub, [group(0, [1, 2], 101)])
    assert_satisfied(hub, 101, True)


def test_should_schedule_placement_successfully_once_spec_clustersets_changes(hub: Hub) -> None:
    """placement_test.go, "Should schedule placement successfully once spec.ClusterSets
    changes"."""
    hub.bind_cluster_set(SET1)
    hub.bind_cluster_set(SET2)
    hub.create_clusters(SET1, 2)
    hub.create_clusters(SET2, 3)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    patch_placement_spec(hub, clusterSets=[SET1])
    assert_decision_numbers(hub, 2, 1)


def test_should_schedule_successfully_once_spec_numberofclusters_is_reduced(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once spec.NumberOfClusters is
    reduced"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    patch_placement_spec(hub, numberOfClusters=4)
    assert_decision_numbers(hub, 4, 1)
    assert_satisfied(hub, 4, True)


def test_should_schedule_successfully_once_spec_numberofclusters_is_increased(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once spec.NumberOfClusters is
    increased"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 10)
    create_placement_with_decision(hub, {"numberOfClusters": 5}, 5, 1)

    patch_placement_spec(hub, numberOfClusters=8)
    assert_decision_numbers(hub, 8, 1)
    assert_satisfied(hub, 8, True)


def test_should_schedule_successfully_once_misconfigured_is_fixed(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once MisConfigured is fixed"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 1)

    # Operator Exists with a value: an invalid toleration.
    toleration = {"key": "key1", "operator": "Exists", "value": "value1"}
    hub.put_placement({"numberOfClusters": 1, "tolerations": [toleration]})
    assert_decision_numbers(hub, 0, 1)
    assert_misconfigured(hub, True)

    patch_placement_spec(hub, tolerations=[])
    assert_decision_numbers(hub, 1, 1)
    assert_misconfigured(hub, False)
    assert_satisfied(hub, 1, True)


def test_should_be_satisfied_once_new_clusters_are_added(hub: Hub) -> None:
    """placement_test.go, "Should be satisfied once new clusters are added"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    hub.create_clusters(SET1, 5)
    assert_decision_numbers(hub, 10, 1)
    assert_satisfied(hub, 10, True)


def test_should_schedule_successfully_once_clusters_belong_to_labelselector_clusterset_are_added_deleted(  # noqa: E501
    hub: Hub,
) -> None:
    """placement_test.go, "Should schedule successfully once clusters belong to
    labelselector clusterset are added/deleted"."""
    hub.create_label_selector_set(SET1, vendor="openShift")
    hub.create_binding(SET1)
    clusters1 = hub.create_clusters(CLUSTER + "1", 1, vendor="openShift")
    create_placement_with_decision(hub, {"numberOfClusters": 2}, 1, 1)

    clusters2 = hub.create_clusters(CLUSTER + "2", 1, vendor="openShift")
    assert_decision_numbers(hub, 2, 1)
    assert_satisfied(hub, 2, True)

    hub.delete_clusters(*clusters1)
    assert_decision_numbers(hub, 1, 1)
    hub.delete_clusters(*clusters2)
    assert_decision_numbers(hub, 0, 1)


def test_should_update_the_decision_group_once_clusters_added_deleted(hub: Hub) -> None:
    """placement_test.go, "Should update the decision group once clusters
    added/deleted"."""
    hub.create_label_selector_set("global")
    hub.create_binding("global")
    canary = hub.create_clusters(SET1, 2, vendor="openShift")
    noncanary = hub.create_clusters(SET1, 3)

    spec = {
        "decisionStrategy": {
            "groupStrategy": {
                "clustersPerDecisionGroup": 2,
                "decisionGroups": [
                    {
                        "groupName": "canary",
                        "groupClusterSelector": {
                            "labelSelector": {"matchLabels": {"vendor": "openShift"}}
                        },
                    }
                ],
            }
        }
    }
    create_placement_with_decision(hub, spec, 5, 3)
    assert_decision_numbers(hub, 5, 3)
    assert_satisfied(hub, 5, True)
    all_five = [group(0, [1], 2, "canary"), group(1, [2], 2), group(2, [3], 1)]
    assert_decision_groups(hub, all_five)

    hub.delete_clusters(canary[0], noncanary[0])
    assert_decision_groups(hub, [group(0, [1], 1, "canary"), group(1, [2], 2)])

    canary += hub.create_clusters(SET1, 1, vendor="openShift")
    assert_decision_numbers(hub, 4, 2)
    assert_decision_groups(hub, [group(0, [1], 2, "canary"), group(1, [2], 2)])

    noncanary += hub.create_clusters(SET1, 1)
    assert_decision_numbers(hub, 5, 3)
    assert_decision_groups(hub, all_five)

    hub.delete_clusters(*canary[1:])
    hub.delete_clusters(*noncanary[1:])
    hub.delete("ManagedClusterSet", "global")
    assert_decision_numbers(hub, 0, 1)
    assert_decision_groups(hub, [group(0, [1], 0)])


def test_should_schedule_successfully_once_clusters_belong_to_global_clusterset_are_added_deleted(
    hub: Hub,
) -> None:
    """placement_test.go, "Should schedule successfully once clusters belong to
    global(empty labelselector) clusterset are added/deleted)"."""
    hub.create_label_selector_set("global")
    hub.create_binding("global")
    clusters1 = hub.create_clusters(CLUSTER + "1", 1)
    create_placement_with_decision(hub, {"numberOfClusters": 2}, 1, 1)

    clusters2 = hub.create_clusters(CLUSTER + "2", 1)
    assert_decision_numbers(hub, 2, 1)
    assert_satisfied(hub, 2, True)

    hub.delete_clusters(*clusters1)
    assert_decision_numbers(hub, 1, 1)
    hub.delete_clusters(*clusters2)
    assert_decision_numbers(hub, 0, 1)


def test_should_schedule_successfully_once_new_clusterset_is_bound(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once new clusterset is bound"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    hub.bind_cluster_set(SET2)
    hub.create_clusters(SET2, 3)
    assert_decision_numbers(hub, 8, 1)
    assert_satisfied(hub, 8, False)


def test_should_schedule_successfully_once_new_labelselector_clusterset_is_bound(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once new labelselector clusterset
    is bound"."""
    hub.create_label_selector_set(SET1, vendor="openShift")
    hub.create_binding(SET1)
    clusters1 = hub.create_clusters(CLUSTER + "1", 1, vendor="openShift")
    create_placement_with_decision(hub, {"numberOfClusters": 2}, 1, 1)

    hub.create_label_selector_set(SET2, vendor="IKS")
    hub.create_binding(SET2)
    clusters2 = hub.create_clusters(CLUSTER + "2", 1, vendor="IKS")
    assert_decision_numbers(hub, 2, 1)
    assert_satisfied(hub, 2, True)

    hub.delete_clusters(clusters1[0], clusters2[0])


def test_should_schedule_successfully_once_a_clusterset_deleted_added(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once a clusterset
    deleted/added"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)
    assert_decision_numbers(hub, 5, 1)
    assert_satisfied(hub, 5, False)

    hub.delete("ManagedClusterSet", SET1)
    assert_decision_numbers(hub, 0, 1)

    # Added back as upstream does: a LabelSelector set with no labels (every cluster).
    hub.create_label_selector_set(SET1)
    assert_decision_numbers(hub, 5, 1)
    assert_satisfied(hub, 5, False)


def test_should_schedule_successfully_once_a_labelselector_clusterset_deleted_added(
    hub: Hub,
) -> None:
    """placement_test.go, "Should schedule successfully once a labelselector clusterset
    deleted/added"."""
    hub.create_label_selector_set(SET1, vendor="openShift")
    hub.create_binding(SET1)
    clusters1 = hub.create_clusters(CLUSTER + "1", 1, vendor="openShift")
    clusters2 = hub.create_clusters(CLUSTER + "2", 1, vendor="IKS")
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 1, 1)
    assert_decision_numbers(hub, 1, 1)
    assert_satisfied(hub, 1, False)

    hub.delete("ManagedClusterSet", SET1)
    assert_decision_numbers(hub, 0, 1)

    hub.create_label_selector_set(SET1, vendor="openShift")
    assert_decision_numbers(hub, 1, 1)
    assert_satisfied(hub, 1, False)

    hub.delete_clusters(*clusters1)
    assert_decision_numbers(hub, 0, 1)
    hub.delete_clusters(*clusters2)


def test_should_schedule_successfully_once_a_clustersetbinding_deleted_added(hub: Hub) -> None:
    """placement_test.go, "Should schedule successfully once a clustersetbinding
    deleted/added"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)
    assert_decision_numbers(hub, 5, 1)
    assert_satisfied(hub, 5, False)

    hub.delete("ManagedClusterSetBinding", SET1, hub.ns)
    assert_decision_numbers(hub, 0, 1)

    hub.create_binding(SET1)
    assert_decision_numbers(hub, 5, 1)
    assert_satisfied(hub, 5, False)


# -- predicate_test.go: Predicates / Cluster Selector ---------------------------------


def test_should_schedule_placement_successfully_once_spec_predicates_labelselector_changes(
    hub: Hub,
) -> None:
    """predicate_test.go, "Should schedule placement successfully once spec.Predicates
    LabelSelector changes"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 2, cloud="Azure")
    hub.create_clusters(SET1, 3, cloud="Amazon")
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    def by_label(cloud: str) -> list[Doc]:
        selector = {"labelSelector": {"matchLabels": {"cloud": cloud}}}
        return [{"requiredClusterSelector": selector}]

    patch_placement_spec(hub, predicates=by_label("Amazon"))
    assert_decision_numbers(hub, 3, 1)
    assert_decision_groups(hub, [group(0, [1], 3)])

    patch_placement_spec(hub, predicates=by_label("Azure"))
    assert_decision_numbers(hub, 2, 1)


def test_should_schedule_placement_successfully_once_spec_predicates_claimselector_changes(
    hub: Hub,
) -> None:
    """predicate_test.go, "Should schedule placement successfully once spec.Predicates
    ClaimSelector changes"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 2, cloud="Azure")
    hub.create_clusters(SET1, 3, cloud="Amazon")
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    def by_claim(cloud: str) -> list[Doc]:
        expression = {"key": "cloud", "operator": "In", "values": [cloud]}
        return [{"requiredClusterSelector": {"claimSelector": {"matchExpressions": [expression]}}}]

    patch_placement_spec(hub, predicates=by_claim("Amazon"))
    assert_decision_numbers(hub, 3, 1)

    patch_placement_spec(hub, predicates=by_claim("Azure"))
    assert_decision_numbers(hub, 2, 1)


def test_should_schedule_placement_successfully_once_spec_predicates_celselector_changes(
    hub: Hub,
) -> None:
    """predicate_test.go, "Should schedule placement successfully once spec.Predicates
    CelSelector changes"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 2)
    hub.score(clusters[0], "demo", "demo", 70)
    hub.score(clusters[1], "demo", "demo", 90)

    def by_cel(expression: str) -> list[Doc]:
        return [{"requiredClusterSelector": {"celSelector": {"celExpressions": [expression]}}}]

    hub.put_placement({"numberOfClusters": 1, "predicates": by_cel("xxxx.expression")})
    assert_decision_numbers(hub, 0, 1)
    assert_misconfigured(hub, True)

    expression = "managedCluster.scores(\"demo\").filter(s, s.name == 'demo').all(e, e.value > 80)"
    patch_placement_spec(hub, predicates=by_cel(expression))
    assert_decision_numbers(hub, 1, 1)
    assert_cluster_names(hub, [clusters[1]])


# -- toleration_test.go: TaintToleration ----------------------------------------------


def test_should_schedule_successfully_when_taint_toleration_matches(hub: Hub) -> None:
    """toleration_test.go, "Should schedule successfully when taint/toleration
    matches"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 3)
    hub.taint(clusters[0], {"key": "key1", "value": "value1", "effect": "NoSelect"})
    hub.taint(clusters[1], {"key": "key2", "value": "value2", "effect": "NoSelect"})
    hub.taint(clusters[2], {"key": "key2", "value": "value3", "effect": "NoSelect"})

    tolerations = [
        {"key": "key1", "operator": "Exists"},
        {"key": "key2", "operator": "Equal", "value": "value2"},
    ]
    create_placement_with_decision(hub, {"numberOfClusters": 3, "tolerations": tolerations}, 2, 1)
    assert_cluster_names(hub, clusters[:2])


def test_should_schedule_when_taint_toleration_effect_matches(hub: Hub) -> None:
    """toleration_test.go, "Should schedule when taint/toleration effect matches"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 4)
    hub.taint(clusters[0], {"key": "key1", "value": "value1", "effect": "NoSelect"})
    hub.taint(clusters[1], {"key": "key2", "value": "value2", "effect": "NoSelectIfNew"})
    hub.taint(clusters[2], {"key": "key3", "value": "value3", "effect": "PreferNoSelect"})

    # The keys match, the effects do not.
    tolerations = [
        {"key": "key1", "operator": "Exists", "effect": "PreferNoSelect"},
        {"key": "key2", "operator": "Exists", "effect": "NoSelect"},
        {"key": "key3", "operator": "Exists", "effect": "NoSelect"},
        {"key": "key4", "operator": "Exists", "effect": "NoSelect"},
    ]
    create_placement_with_decision(hub, {"numberOfClusters": 4, "tolerations": tolerations}, 2, 1)
    assert_cluster_names(hub, [clusters[2], clusters[3]])

    # NoSelectIfNew, not tolerated, on a cluster already decided: it stays.
    hub.after_sync(
        lambda: hub.taint(
            clusters[3], {"key": "key4", "value": "value4", "effect": "NoSelectIfNew"}
        )
    )
    assert_cluster_names(hub, [clusters[2], clusters[3]])


# Upstream: tolerations of 10 s and 20 s, and a taint added 60 s ago. Both hubs keep
# upstream's: the first expectation holds only until the shorter toleration expires
# (counted from a timeAdded cut to the second), and a busy machine may take seconds to
# write the taints and the placement and sync it.
TOLERATION_S = {"directory": (10, 20), "kubernetes": (10, 20)}


def test_should_reschedule_when_expire_tolerationseconds(hub: Hub) -> None:
    """toleration_test.go, "Should reschedule when expire TolerationSeconds"."""
    short_s, long_s = TOLERATION_S[hub.kind]
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 4)
    added = datetime.now(UTC)
    long_ago = added - timedelta(seconds=60)
    hub.taint(
        clusters[0],
        {"key": "key1", "value": "value1", "effect": "NoSelect", "timeAdded": _stamp(added)},
    )
    hub.taint(
        clusters[1],
        {"key": "key2", "value": "value2", "effect": "NoSelect", "timeAdded": _stamp(added)},
    )
    hub.taint(
        clusters[2],
        {"key": "key2", "value": "value2", "effect": "NoSelect", "timeAdded": _stamp(long_ago)},
    )

    tolerations = [
        {"key": "key1", "operator": "Exists", "tolerationSeconds": short_s},
        {"key": "key2", "operator": "Exists", "tolerationSeconds": long_s},
    ]
    create_placement_with_decision(hub, {"numberOfClusters": 4, "tolerations": tolerations}, 3, 1)
    assert_cluster_names(hub, [clusters[0], clusters[1], clusters[3]])

    # The placement is requeued when each toleration expires (waits scaled with the
    # tolerations: upstream waits 60 s for 10 s and 20 s).
    assert_cluster_names(hub, [clusters[1], clusters[3]], timeout=short_s + 10)
    assert_cluster_names(hub, [clusters[3]], timeout=long_s + 10)

    # A new taint, not tolerated.
    hub.taint(
        clusters[3],
        {"key": "key3", "value": "value3", "effect": "NoSelect", "timeAdded": _stamp(long_ago)},
    )
    assert_cluster_names(hub, [])


# -- prioritizer_test.go: Prioritizers ------------------------------------------------


def _clusters_with_resources(hub: Hub) -> list[str]:
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 3)
    for name, res in zip(clusters, RESOURCES, strict=True):
        hub.resources(name, res)
    return clusters


def test_should_schedule_successfully_with_default_schedulepolicy(hub: Hub) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should schedule successfully with default
    SchedulePolicy"."""
    clusters = _clusters_with_resources(hub)
    create_placement_with_decision(hub, {"numberOfClusters": 2}, 2, 1)
    assert_cluster_names(hub, [clusters[0], clusters[1]])


def test_should_schedule_successfully_based_on_schedulepolicy_resourceallocatablecpu_resourceallocatablememory(  # noqa: E501
    hub: Hub,
) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should schedule successfully based on
    SchedulePolicy ResourceAllocatableCPU & ResourceAllocatableMemory"."""
    clusters = _clusters_with_resources(hub)
    policy = exact(built_in("ResourceAllocatableCPU", 1), built_in("ResourceAllocatableMemory", 1))
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    assert_cluster_names(hub, [clusters[0], clusters[2]])


def test_should_keep_steady_successfully_even_placementdecisions_balance_and_cluster_situation_changes(  # noqa: E501
    hub: Hub,
) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should keep steady successfully even
    placementdecisions' balance and cluster situation changes"."""
    clusters = _clusters_with_resources(hub)
    policy = {
        "mode": "Additive",
        "configurations": [
            built_in("Steady", 3),
            built_in("ResourceAllocatableCPU", 1),
            built_in("ResourceAllocatableMemory", 1),
        ],
    }
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    assert_cluster_names(hub, [clusters[0], clusters[2]])

    # Upstream's fake decision. The directory hub's controller does not watch OUT, so it
    # does not see it (the Kubernetes hub's does); the expectation does not depend on it
    # (Steady reads the placement's own decisions).
    hub.put_decision(PLACEMENT + "-1", [clusters[1]])
    new = hub.create_clusters(SET1, 1)
    hub.after_sync(lambda: hub.resources(new[0], ["10", "10", "100", "100"]))
    assert_cluster_names(hub, [clusters[0], clusters[2]])


def test_should_schedule_successfully_based_on_schedulepolicy_balance(hub: Hub) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should schedule successfully based on
    SchedulePolicy balance"."""
    clusters = _clusters_with_resources(hub)
    # The decision must be there before the placement: the directory hub reads the
    # decisions of its output folder when it starts (the Kubernetes hub's controller
    # would see it live; it is restarted all the same).
    hub.stop()
    hub.put_decision("fake-1", [clusters[0]])
    hub.start()

    policy = exact(built_in("Balance", 2), built_in("ResourceAllocatableCPU", 1))
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    # The decisions are final once there are two: 5 s is plenty (upstream: 60 s).
    assert_cluster_names(hub, [clusters[1], clusters[2]], timeout=5)


def test_should_reschedule_successfully_once_a_new_cluster_with_resources_added_deleted(
    hub: Hub,
) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should re-schedule successfully once a new
    cluster with resources added/deleted"."""
    clusters = _clusters_with_resources(hub)
    policy = exact(built_in("ResourceAllocatableCPU", 1), built_in("ResourceAllocatableMemory", 1))
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    assert_cluster_names(hub, [clusters[0], clusters[2]])

    new = hub.create_clusters(SET1, 1)
    hub.resources(new[0], ["10", "10", "100", "100"])
    assert_cluster_names(hub, [clusters[2], new[0]])

    hub.delete_clusters(new[0])
    assert_cluster_names(hub, [clusters[0], clusters[2]])


def test_should_schedule_successfully_based_on_addonplacementscore(hub: Hub) -> None:
    """prioritizer_test.go, AddonScore, "Should schedule successfully based on
    AddOnPlacementScore"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 3)
    for name, value in zip(clusters, (80, 90, 100), strict=True):
        hub.score(name, "demo", "demo", value)

    policy = exact(add_on("demo", "demo", 1))
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    assert_cluster_names(hub, [clusters[1], clusters[2]])


def test_should_reschedule_every_resyncinterval_and_update_decision_when_addonplacementscore_changes(  # noqa: E501
    hub: Hub,
) -> None:
    """prioritizer_test.go, AddonScore, "Should reschedule every ResyncInterval and update
    desicion when AddOnPlacementScore changes"."""
    hub.bind_cluster_set(SET1)
    clusters = hub.create_clusters(SET1, 3)

    policy = exact(add_on("demo", "demo", 1))
    create_placement_with_decision(hub, {"numberOfClusters": 2, "prioritizerPolicy": policy}, 2, 1)
    # No scores yet.
    assert_cluster_names(hub, [clusters[0], clusters[1]])

    for name, value in zip(clusters, (80, 90, 100), strict=True):
        hub.score(name, "demo", "demo", value)
    assert_cluster_names(hub, [clusters[1], clusters[2]])

    for name, value in zip(clusters, (100, 90, 100), strict=True):
        hub.score(name, "demo", "demo", value)
    assert_cluster_names(hub, [clusters[0], clusters[2]])
