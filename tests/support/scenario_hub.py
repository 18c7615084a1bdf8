"""Upstream OCM's placement integration scenarios need a hub they can edit as upstream's
``It`` blocks edit the API, a live controller on it, and readers of what the controller
wrote. :class:`ScenarioHub` is that face; two hubs have it:

- :class:`DirectoryScenarioHub`: a hub folder, one manifest file per object, watched by
  ``clusterplace controller --hub DIR`` (decisions and status read from its output
  folder; a decision is "of the placement" by its label, the directory hub writing no
  ownerReferences);
- :class:`KubeScenarioHub`: a real API server (:class:`tests.support.envtest.Envtest`),
  objects created, replaced and deleted through the API (status through the status
  subresource), a real namespace per scenario, watched by ``clusterplace controller
  --kubeconfig``; a decision is "of the placement" when it carries the placement label
  *and* a controller ownerReference to the placement's uid (upstream's
  ``IsControlledBy``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import yaml

from tests.support.directory_hub import Controller as DirectoryController
from tests.support.envtest import Envtest, ensure_namespace, resource_path
from tests.support.files import replace_text
from tests.support.kube_hub import Controller as KubeController
from tests.support.waiting import wait_for

__all__ = [
    "PLACEMENT",
    "PLACEMENT_LABEL",
    "SET_LABEL",
    "DirectoryScenarioHub",
    "KubeScenarioHub",
    "ScenarioHub",
    "stamp",
]

OCM = "cluster.open-cluster-management.io"
SET_LABEL = f"{OCM}/clusterset"
PLACEMENT_LABEL = f"{OCM}/placement"
PLACEMENT = "placement-up"
PROBE = "zz-probe"  # a placement and namespace of no scenario, to see the watch live

Doc = dict[str, Any]


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Process(Protocol):
    """A controller process: its log so far, and its exit code once stopped."""

    def text(self) -> str: ...

    def stop(self) -> int: ...


class ScenarioHub:
    """What a scenario does to a hub and reads back; the variants below store objects."""

    kind = ""

    def __init__(self, ns: str) -> None:
        self.ns = ns
        self._clusters = 0
        self.controller: _Process | None = None

    # -- storage (each variant) ---------------------------------------------------------

    def put(self, doc: Doc) -> None:
        """Create ``doc``, or replace the object of its name (spec, metadata, status)."""
        raise NotImplementedError

    def get(self, kind: str, name: str, namespace: str | None = None) -> Doc:
        raise NotImplementedError

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        raise NotImplementedError

    def terminate(self, cluster: str) -> None:
        """A finalizer, then a delete: the cluster stays, terminating."""
        raise NotImplementedError

    def delete_decision(self, name: str, namespace: str | None = None) -> None:
        """Delete a PlacementDecision the controller wrote."""
        raise NotImplementedError

    def put_decision(self, name: str, clusters: list[str], namespace: str | None = None) -> None:
        """assertCreatingPlacementDecision: a decision labelled with its own name."""
        raise NotImplementedError

    def decisions(self, placement: str = PLACEMENT, namespace: str | None = None) -> dict[str, Doc]:
        """The decisions of ``placement`` (upstream lists them by label), by name."""
        raise NotImplementedError

    def status(self, placement: str = PLACEMENT, namespace: str | None = None) -> Doc:
        raise NotImplementedError

    # -- the controller -----------------------------------------------------------------

    def start(self) -> None:
        """Start the controller (``self.controller``) and wait until it watches."""
        raise NotImplementedError

    def log(self) -> str:
        assert self.controller is not None
        return self.controller.text()

    def stop(self) -> None:
        """Stop the controller: it must exit 0, with no traceback."""
        if self.controller is not None:
            code = self.controller.stop()
            text = self.controller.text()
            self.controller = None
            assert code == 0, text
            assert "Traceback" not in text, text

    def syncs(self) -> int:
        return self.log().count("synced ")

    def after_sync(self, edit: Callable[[], None]) -> None:
        """Make ``edit`` and wait until the controller has synced after it: for
        upstream's expectations that something *stays* as it is."""
        before = self.syncs()
        edit()
        wait_for(lambda: self.syncs() > before, 30, "a sync after the edit")

    # -- upstream's helpers, on put/get/delete -----------------------------------------

    def bind_cluster_set(self, name: str, namespace: str | None = None) -> None:
        """assertBindingClusterSet: a set (exclusive label, the API's default) and its
        binding."""
        self.put(
            {
                "apiVersion": f"{OCM}/v1beta2",
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
                "apiVersion": f"{OCM}/v1beta2",
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

    def create_binding(self, name: str, namespace: str | None = None) -> None:
        self.put(
            {
                "apiVersion": f"{OCM}/v1beta2",
                "kind": "ManagedClusterSetBinding",
                "metadata": {"name": name, "namespace": namespace or self.ns},
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
                    "apiVersion": f"{OCM}/v1",
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
        doc.setdefault("status", {})["allocatable"] = {"cpu": res[0], "memory": res[2]}
        doc["status"]["capacity"] = {"cpu": res[1], "memory": res[3]}
        self.put(doc)

    def score(self, cluster: str, name: str, score_name: str, value: int) -> None:
        """assertCreatingAddOnPlacementScores: one score. Upstream's is valid for 10 s;
        this one for 120 s, since no scenario here waits for it to expire, and a busy
        machine may take longer than 10 s to write the scores and the placement and
        to sync it (an expired score counts 0, which would change the expectation)."""
        self.put(
            {
                "apiVersion": f"{OCM}/v1alpha1",
                "kind": "AddOnPlacementScore",
                "metadata": {"name": name, "namespace": cluster},
                "status": {
                    "scores": [{"name": score_name, "value": value}],
                    "validUntil": stamp(datetime.now(UTC) + timedelta(seconds=120)),
                },
            }
        )

    def put_placement(self, spec: Doc, name: str = PLACEMENT, namespace: str | None = None) -> None:
        self.put(
            {
                "apiVersion": f"{OCM}/v1beta1",
                "kind": "Placement",
                "metadata": {"name": name, "namespace": namespace or self.ns},
                "spec": spec,
            }
        )

    def decided(self, placement: str = PLACEMENT) -> list[str]:
        return sorted(
            d["clusterName"]
            for doc in self.decisions(placement).values()
            for d in (doc.get("status") or {}).get("decisions") or []
        )

    def condition(self, kind: str) -> tuple[str, str] | None:
        for c in self.status().get("conditions") or []:
            if c["type"] == kind:
                return c["status"], c["reason"]
        return None

    @staticmethod
    def _decision_doc(name: str, clusters: list[str], namespace: str) -> Doc:
        return {
            "apiVersion": f"{OCM}/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {"name": name, "namespace": namespace, "labels": {PLACEMENT_LABEL: name}},
            "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
        }


class DirectoryScenarioHub(ScenarioHub):
    """A hub folder edited as upstream's scenarios edit the API (create: write the
    file; update: rewrite it; delete: remove it), the controller watching it."""

    kind = "directory"

    def __init__(self, root: Path, ns: str) -> None:
        super().__init__(ns)
        self.root = root
        self.out = root / ".clusterplace"
        root.mkdir()

    def start(self) -> None:
        """Start the controller and wait until its watch is live. It says "watching"
        before the watcher has started, and an edit made in between is seen only at the
        next periodic rescan (5 s later): a probe placement, created and deleted, waits
        that out."""
        self.controller = DirectoryController(self.root)
        controller = self.controller
        wait_for(lambda: "watching" in controller.text(), 30, "the controller to watch")
        status = self.out / "placements" / PROBE / f"{PROBE}.yaml"
        self.put_placement({}, name=PROBE, namespace=PROBE)
        wait_for(status.exists, 10, "the probe placement's status")
        self.delete("Placement", PROBE, PROBE)
        wait_for(lambda: not status.exists(), 10, "the probe placement's removal")

    def _path(self, kind: str, name: str, namespace: str | None) -> Path:
        return self.root / f"{kind.lower()}.{namespace or '-'}.{name}.yaml"

    def put(self, doc: Doc) -> None:
        meta = doc["metadata"]
        replace_text(
            self._path(doc["kind"], meta["name"], meta.get("namespace")),
            yaml.safe_dump(doc, sort_keys=False),
        )

    def get(self, kind: str, name: str, namespace: str | None = None) -> Doc:
        loaded: Doc = yaml.safe_load(self._path(kind, name, namespace).read_text())
        return loaded

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        self._path(kind, name, namespace).unlink()

    def terminate(self, cluster: str) -> None:
        doc = self.get("ManagedCluster", cluster)
        doc["metadata"]["finalizers"] = ["test"]
        self.put(doc)
        doc["metadata"]["deletionTimestamp"] = stamp(datetime.now(UTC))
        self.put(doc)

    def delete_decision(self, name: str, namespace: str | None = None) -> None:
        (self.out / "placementdecisions" / (namespace or self.ns) / f"{name}.yaml").unlink()

    def put_decision(self, name: str, clusters: list[str], namespace: str | None = None) -> None:
        """In the output folder, where the directory hub keeps decisions (the hub
        folder's are ignored)."""
        folder = self.out / "placementdecisions" / (namespace or self.ns)
        folder.mkdir(parents=True, exist_ok=True)
        doc = self._decision_doc(name, clusters, namespace or self.ns)
        replace_text(folder / f"{name}.yaml", yaml.safe_dump(doc, sort_keys=False))

    def decisions(self, placement: str = PLACEMENT, namespace: str | None = None) -> dict[str, Doc]:
        found: dict[str, Doc] = {}
        folder = self.out / "placementdecisions" / (namespace or self.ns)
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            try:
                doc = yaml.safe_load(path.read_text())
            except (OSError, yaml.YAMLError):
                continue  # replaced meanwhile: the next poll reads it
            labels = (doc.get("metadata") or {}).get("labels") or {}
            if labels.get(PLACEMENT_LABEL) == placement:
                found[doc["metadata"]["name"]] = doc
        return found

    def status(self, placement: str = PLACEMENT, namespace: str | None = None) -> Doc:
        path = self.out / "placements" / (namespace or self.ns) / f"{placement}.yaml"
        try:
            doc = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError):
            return {}
        return (doc or {}).get("status") or {}


_VERSIONS = {
    "ManagedCluster": "v1",
    "ManagedClusterSet": "v1beta2",
    "ManagedClusterSetBinding": "v1beta2",
    "Placement": "v1beta1",
    "PlacementDecision": "v1beta1",
    "AddOnPlacementScore": "v1alpha1",
}


class KubeScenarioHub(ScenarioHub):
    """A real API server edited as upstream's scenarios edit it (as the admin), the
    controller watching it through a kubeconfig."""

    kind = "kubernetes"

    def __init__(self, server: Envtest, folder: Path, ns: str) -> None:
        super().__init__(ns)
        self.server = server
        self.folder = folder  # for the controller's log
        self.kubeconfig = server.kubeconfig
        self._namespaces: set[str] = set()
        self.namespace(ns)

    # -- the controller -----------------------------------------------------------------

    def start(self) -> None:
        """Start the controller and wait until it watches: it lists, then watches from
        the list's resourceVersion, so nothing made after this is missed."""
        self.controller = KubeController(self)
        self.controller.wait_watching()

    # -- storage ------------------------------------------------------------------------

    def namespace(self, name: str) -> None:
        ensure_namespace(self.server, name, self._namespaces)

    def _path(self, kind: str, name: str | None = None, namespace: str | None = None) -> str:
        return resource_path(f"{OCM}/{_VERSIONS[kind]}", kind, namespace, name)

    def put(self, doc: Doc) -> None:
        doc = dict(doc)
        status = doc.pop("status", None)
        meta = doc["metadata"]
        namespace = meta.get("namespace")
        if namespace:
            self.namespace(namespace)
        path = self._path(doc["kind"], meta["name"], namespace)
        code, answer = 409, None
        if "resourceVersion" not in meta:  # a new object (a read one is replaced)
            code, answer = self.server.request(
                "POST", self._path(doc["kind"], None, namespace), doc
            )
        while code == 409:  # there already, or changed since read: replaced
            current = self.server.get(path)
            meta = {**meta, "resourceVersion": current["metadata"]["resourceVersion"]}
            code, answer = self.server.request("PUT", path, {**doc, "metadata": meta})
        assert code in (200, 201), (doc["kind"], meta["name"], code, answer)
        if status is not None:
            code, answer = self.server.request(
                "PATCH",
                path + "/status",
                {"status": status},
                content_type="application/merge-patch+json",
            )
            assert code == 200, (doc["kind"], meta["name"], code, answer)

    def get(self, kind: str, name: str, namespace: str | None = None) -> Doc:
        found = self.server.get(self._path(kind, name, namespace))
        assert isinstance(found, dict), (kind, name)
        return found

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        """Delete the object (its finalizers removed first, as upstream's tests do)."""
        path = self._path(kind, name, namespace)
        found = self.server.get(path)
        if found and found["metadata"].get("finalizers"):
            self.server.request(
                "PATCH",
                path,
                {"metadata": {"finalizers": None}},
                content_type="application/merge-patch+json",
            )
        code, answer = self.server.request("DELETE", path)
        assert code in (200, 202, 404), (kind, name, code, answer)

    def terminate(self, cluster: str) -> None:
        path = self._path("ManagedCluster", cluster)
        code, answer = self.server.request(
            "PATCH",
            path,
            {"metadata": {"finalizers": ["test"]}},
            content_type="application/merge-patch+json",
        )
        assert code == 200, (cluster, code, answer)
        code, answer = self.server.request("DELETE", path)
        assert code in (200, 202), (cluster, code, answer)
        assert "deletionTimestamp" in self.get("ManagedCluster", cluster)["metadata"]

    def delete_decision(self, name: str, namespace: str | None = None) -> None:
        code, answer = self.server.request(
            "DELETE", self._path("PlacementDecision", name, namespace or self.ns)
        )
        assert code == 200, (name, code, answer)

    def put_decision(self, name: str, clusters: list[str], namespace: str | None = None) -> None:
        self.put(self._decision_doc(name, clusters, namespace or self.ns))

    def decisions(self, placement: str = PLACEMENT, namespace: str | None = None) -> dict[str, Doc]:
        """The decisions labelled for ``placement`` and controlled by it (a controller
        ownerReference to its uid: upstream's ``IsControlledBy``)."""
        namespace = namespace or self.ns
        owner = self.server.get(self._path("Placement", placement, namespace))
        if not owner:
            return {}
        uid = owner["metadata"]["uid"]
        selector = f"?labelSelector={PLACEMENT_LABEL}%3D{placement}"
        listing = self.server.get(self._path("PlacementDecision", None, namespace) + selector)
        found: dict[str, Doc] = {}
        for doc in (listing or {}).get("items") or ():
            refs = doc["metadata"].get("ownerReferences") or ()
            if any(r.get("controller") and r.get("uid") == uid for r in refs):
                found[doc["metadata"]["name"]] = doc
        return found

    def status(self, placement: str = PLACEMENT, namespace: str | None = None) -> Doc:
        found = self.server.get(self._path("Placement", placement, namespace or self.ns))
        return dict((found or {}).get("status") or {})
