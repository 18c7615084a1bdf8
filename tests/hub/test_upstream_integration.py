"""Upstream OCM's placement integration scenarios, on the directory hub.

Each test is one ``It`` of open-cluster-management-io/ocm ``test/integration/placement/``
(cited in its docstring), run against the real ``clusterplace controller --hub DIR``
process as a user runs it: the controller watches a temporary hub folder from the start
(upstream starts its controller manager before each scenario), and the scenario's API
calls become edits of that folder, one manifest file per object (create: write the file;
update: rewrite it; delete: remove it). Expectations are read from what the controller
wrote (``DIR/.clusterplace``), with upstream's timeouts (30 s, 60 s for cluster names).

Translations, where the directory hub has no equivalent of an API object or call:

- namespaces are implicit (upstream creates one per scenario);
- a PlacementDecision created through the API is a file in the output folder: the hub
  folder's decisions are ignored, and the output folder is where the hub keeps them;
- upstream's ``IsControlledBy`` check of a decision (its ownerReference) is the placement
  label: the directory hub writes no ownerReferences (it has no garbage collector);
- ``tolerationSeconds`` and taint ages are scaled down (upstream: 10 s and 20 s) so that
  the whole file runs in about a minute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.directory_hub import Controller

SET_LABEL = "cluster.open-cluster-management.io/clusterset"
PLACEMENT_LABEL = "cluster.open-cluster-management.io/placement"
TIMEOUT = 30.0  # upstream's eventuallyTimeout
NS = "ns-up"
PLACEMENT = "placement-up"
SET1 = "clusterset-up1"
SET2 = "clusterset-up2"
PROBE = "zz-probe"  # a placement and namespace of no scenario, to see the watch live
CLUSTER = "cluster-up"  # upstream's clusterName (a set label value that names no set)

Doc = dict[str, Any]


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def eventually(check: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Poll ``check`` until it holds (upstream's ``Eventually``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class Hub:
    """A hub folder edited as upstream's scenarios edit the API, the controller watching
    it, and readers of what the controller wrote."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.out = root / ".clusterplace"
        root.mkdir()
        self.controller: Controller | None = None
        self._clusters = 0

    # -- the controller ---------------------------------------------------------------

    def start(self) -> None:
        """Start the controller and wait until its watch is live. It says "watching"
        before the watcher has started, and an edit made in between is seen only at the
        next periodic rescan (5 s later): a probe placement, created and deleted, waits
        that out."""
        self.controller = Controller(self.root)
        controller = self.controller
        eventually(lambda: "watching" in controller.text(), "the controller to watch")
        status = self.out / "placements" / PROBE / f"{PROBE}.yaml"
        self.put_placement({}, name=PROBE, namespace=PROBE)
        eventually(status.exists, "the probe placement's status", timeout=10)
        self.delete("Placement", PROBE, PROBE)
        eventually(lambda: not status.exists(), "the probe placement's removal", timeout=10)

    def stop(self) -> None:
        if self.controller is not None:
            code = self.controller.stop()
            text = self.controller.text()
            self.controller = None
            assert code == 0, text
            assert "Traceback" not in text, text

    def syncs(self) -> int:
        assert self.controller is not None
        return self.controller.text().count("synced ")

    def after_sync(self, edit: Callable[[], None]) -> None:
        """Make ``edit`` and wait until the controller has synced after it: for
        upstream's expectations that something *stays* as it is."""
        before = self.syncs()
        edit()
        eventually(lambda: self.syncs() > before, "a sync after the edit")

    # -- objects ----------------------------------------------------------------------

    def _path(self, kind: str, name: str, namespace: str | None) -> Path:
        return self.root / f"{kind.lower()}.{namespace or '-'}.{name}.yaml"

    def put(self, doc: Doc) -> None:
        meta = doc["metadata"]
        self._path(doc["kind"], meta["name"], meta.get("namespace")).write_text(
            yaml.safe_dump(doc, sort_keys=False)
        )

    def get(self, kind: str, name: str, namespace: str | None = None) -> Doc:
        loaded: Doc = yaml.safe_load(self._path(kind, name, namespace).read_text())
        return loaded

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        self._path(kind, name, namespace).unlink()

    def bind_cluster_set(self, name: str, namespace: str = NS) -> None:
        """assertBindingClusterSet: a set (exclusive label, the API's default) and its
        binding."""
        self.put(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta2",
                "kind": "ManagedClusterSet",
                "metadata": {"name": name},
                "spec": {"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}},
            }
        )
        self.create_binding(name, namespace)

    def create_label_selector_set(self, name: str, **match_labels: str) -> None:
        """assertCreatingClusterSet: a LabelSelector set (no labels: every cluster)."""
        self.put(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta2",
                "kind": "ManagedClusterSet",
                "metadata": {"name": name},
                "spec": {
                    "clusterSelector": {
                        "selectorType": "LabelSelector",
                        "labelSelector": {"matchLabels": dict(match_labels)},
                    }
                },
            }
        )

    def create_binding(self, name: str, namespace: str = NS) -> None:
        self.put(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta2",
                "kind": "ManagedClusterSetBinding",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"clusterSet": name},
            }
        )

    def create_clusters(self, set_name: str, count: int, **labels: str) -> list[str]:
        """assertCreatingClusters: ``count`` clusters labelled for ``set_name``, with
        ``labels`` as labels and as claims; names sort in creation order."""
        names = []
        for _ in range(count):
            name = f"cluster-{self._clusters:03d}"
            self._clusters += 1
            claims = [{"name": k, "value": v} for k, v in labels.items()]
            status: Doc = {"conditions": []}
            if claims:
                status["clusterClaims"] = claims
            self.put(
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1",
                    "kind": "ManagedCluster",
                    "metadata": {"name": name, "labels": {SET_LABEL: set_name, **labels}},
                    "spec": {"hubAcceptsClient": True},
                    "status": status,
                }
            )
            names.append(name)
        return sorted(names)

    def delete_clusters(self, *names: str) -> None:
        for name in names:
            self.delete("ManagedCluster", name)

    def taint(self, cluster: str, taint: Doc) -> None:
        """assertPatchingClusterSpecWithTaint: append a taint."""
        doc = self.get("ManagedCluster", cluster)
        doc["spec"].setdefault("taints", []).append(taint)
        self.put(doc)

    def resources(self, cluster: str, res: list[str]) -> None:
        """assertPatchingClusterStatusWithResources: [cpu allocatable, cpu capacity,
        memory allocatable, memory capacity]."""
        doc = self.get("ManagedCluster", cluster)
        doc["status"]["allocatable"] = {"cpu": res[0], "memory": res[2]}
        doc["status"]["capacity"] = {"cpu": res[1], "memory": res[3]}
        self.put(doc)

    def score(self, cluster: str, name: str, score_name: str, value: int) -> None:
        """assertCreatingAddOnPlacementScores: one score, valid for 10 s."""
        self.put(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1alpha1",
                "kind": "AddOnPlacementScore",
                "metadata": {"name": name, "namespace": cluster},
                "status": {
                    "scores": [{"name": score_name, "value": value}],
                    "validUntil": _stamp(datetime.now(UTC) + timedelta(seconds=10)),
                },
            }
        )

    def put_placement(self, spec: Doc, name: str = PLACEMENT, namespace: str = NS) -> None:
        self.put(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "Placement",
                "metadata": {"name": name, "namespace": namespace},
                "spec": spec,
            }
        )

    def put_decision(self, name: str, clusters: list[str], namespace: str = NS) -> None:
        """assertCreatingPlacementDecision: a decision labelled with its own name, in
        the output folder (where the directory hub keeps decisions)."""
        folder = self.out / "placementdecisions" / namespace
        folder.mkdir(parents=True, exist_ok=True)
        doc = {
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {"name": name, "namespace": namespace, "labels": {PLACEMENT_LABEL: name}},
            "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
        }
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))

    # -- what the controller wrote ----------------------------------------------------

    def decisions(self, placement: str = PLACEMENT, namespace: str = NS) -> dict[str, Doc]:
        """The decisions labelled for ``placement`` (upstream lists them by label)."""
        found: dict[str, Doc] = {}
        folder = self.out / "placementdecisions" / namespace
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            try:
                doc = yaml.safe_load(path.read_text())
            except (OSError, yaml.YAMLError):
                continue  # replaced meanwhile: the next poll reads it
            labels = (doc.get("metadata") or {}).get("labels") or {}
            if labels.get(PLACEMENT_LABEL) == placement:
                found[doc["metadata"]["name"]] = doc
        return found

    def decided(self, placement: str = PLACEMENT) -> list[str]:
        return sorted(
            d["clusterName"]
            for doc in self.decisions(placement).values()
            for d in (doc.get("status") or {}).get("decisions") or []
        )

    def status(self, placement: str = PLACEMENT, namespace: str = NS) -> Doc:
        path = self.out / "placements" / namespace / f"{placement}.yaml"
        try:
            doc = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError):
            return {}
        return (doc or {}).get("status") or {}

    def condition(self, kind: str) -> tuple[str, str] | None:
        for c in self.status().get("conditions") or []:
            if c["type"] == kind:
                return c["status"], c["reason"]
        return None


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
    doc = hub.get("Placement", PLACEMENT, NS)
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


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    """An empty hub folder with a live controller watching it (upstream's BeforeEach)."""
    folder = Hub(tmp_path / "hub")
    folder.start()
    try:
        yield folder
    finally:
        folder.stop()


# -- placement_test.go: Placement / Scheduling ----------------------------------------


def test_should_recreate_placementdecisions_once_placementdecisions_are_deleted(hub: Hub) -> None:
    """placement_test.go, "Should re-create placementdecisions successfully once
    placementdecisions are deleted"."""
    hub.bind_cluster_set(SET1)
    hub.create_clusters(SET1, 5)
    create_placement_with_decision(hub, {"numberOfClusters": 10}, 5, 1)

    for name in hub.decisions():
        (hub.out / "placementdecisions" / NS / f"{name}.yaml").unlink()

    # 8 s, not upstream's 30 s: past the directory hub's 5-s rescan, waiting longer only
    # makes the known failure slower.
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
    doc = hub.get("ManagedCluster", terminating)
    doc["metadata"]["finalizers"] = ["test"]
    hub.put(doc)
    doc["metadata"]["deletionTimestamp"] = _stamp(datetime.now(UTC))
    hub.put(doc)

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

    hub.delete("ManagedClusterSetBinding", SET1, NS)
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


# Upstream: tolerations of 10 s and 20 s, and a taint added 60 s ago. Here 4 s and 8 s.
SHORT_S = 4
LONG_S = 8


def test_should_reschedule_when_expire_tolerationseconds(hub: Hub) -> None:
    """toleration_test.go, "Should reschedule when expire TolerationSeconds"."""
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
        {"key": "key1", "operator": "Exists", "tolerationSeconds": SHORT_S},
        {"key": "key2", "operator": "Exists", "tolerationSeconds": LONG_S},
    ]
    create_placement_with_decision(hub, {"numberOfClusters": 4, "tolerations": tolerations}, 3, 1)
    assert_cluster_names(hub, [clusters[0], clusters[1], clusters[3]])

    # The placement is requeued when each toleration expires (waits scaled with the
    # tolerations: upstream waits 60 s for 10 s and 20 s).
    assert_cluster_names(hub, [clusters[1], clusters[3]], timeout=SHORT_S + 10)
    assert_cluster_names(hub, [clusters[3]], timeout=LONG_S + 10)

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

    # Upstream's fake decision. The controller does not watch OUT, so it does not see it;
    # the expectation does not depend on it (Steady reads the placement's own decisions).
    hub.put_decision(PLACEMENT + "-1", [clusters[1]])
    new = hub.create_clusters(SET1, 1)
    hub.after_sync(lambda: hub.resources(new[0], ["10", "10", "100", "100"]))
    assert_cluster_names(hub, [clusters[0], clusters[2]])


def test_should_schedule_successfully_based_on_schedulepolicy_balance(hub: Hub) -> None:
    """prioritizer_test.go, BuiltinPlugin, "Should schedule successfully based on
    SchedulePolicy balance"."""
    clusters = _clusters_with_resources(hub)
    # The decision must be there before the placement: the directory hub reads the
    # decisions of its output folder when it starts.
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
