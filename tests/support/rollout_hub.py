"""A directory hub with a ManifestWorkReplicaSet, as a user drives it: the hub written
(:func:`write_hub`: three clusters, a canary decision group, ProgressivePerGroup with a
2-minute soak), ``controller --once`` at a time (:func:`once`), a work agent's report
(:func:`report`), and what OUT then holds (:func:`works`, :func:`status`,
:func:`conditions`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from clusterplace.cli.main import main
from tests.support.files import replace_text

__all__ = ["T0", "conditions", "once", "report", "status", "work_path", "works", "write_hub"]

GROUP = "cluster.open-cluster-management.io"
T0 = "2026-06-01T00:00:00Z"


def _cluster(name: str, canary: bool, ring: str = "main") -> dict[str, Any]:
    labels = {f"{GROUP}/clusterset": "fleet", "ring": "canary" if canary else ring}
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": labels},
        "spec": {"hubAcceptsClient": True},
    }


def write_hub(hub: Path, *, max_failures: int = 0, late: bool = False) -> None:
    """The hub; with ``late``, a fourth cluster ``c4`` forms a third group after the
    canary group (c1) and the main one (c2, c3)."""
    hub.mkdir()
    groups = [
        {
            "groupName": ring,
            "groupClusterSelector": {"labelSelector": {"matchLabels": {"ring": ring}}},
        }
        for ring in (("canary", "main") if late else ("canary",))
    ]
    docs: list[dict[str, Any]] = [
        _cluster("c1", True),
        _cluster("c2", False),
        _cluster("c3", False),
        *([_cluster("c4", False, ring="late")] if late else []),
        {
            "apiVersion": f"{GROUP}/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "fleet"},
        },
        {
            "apiVersion": f"{GROUP}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "fleet", "namespace": "apps"},
            "spec": {"clusterSet": "fleet"},
        },
        {
            "apiVersion": f"{GROUP}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {"decisionStrategy": {"groupStrategy": {"decisionGroups": groups}}},
        },
        {
            "apiVersion": "work.open-cluster-management.io/v1alpha1",
            "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "manifestWorkTemplate": {
                    "workload": {
                        "manifests": [
                            {
                                "apiVersion": "v1",
                                "kind": "ConfigMap",
                                "metadata": {"name": "web", "namespace": "default"},
                                "data": {"version": "1"},
                            }
                        ]
                    }
                },
                "placementRefs": [
                    {
                        "name": "web",
                        "rolloutStrategy": {
                            "type": "ProgressivePerGroup",
                            "progressivePerGroup": {
                                "minSuccessTime": "2m",
                                "maxFailures": max_failures,
                            },
                        },
                    }
                ],
            },
        },
    ]
    (hub / "hub.yaml").write_text(yaml.safe_dump_all(docs))


def once(hub: Path, now: str) -> None:
    assert main(["controller", "--hub", str(hub), "--once", "--now", now]) == 0


def works(hub: Path) -> dict[str, dict[str, Any]]:
    folder = hub / ".clusterplace" / "manifestworks"
    return {p.parent.name: yaml.safe_load(p.read_text()) for p in sorted(folder.glob("*/*.yaml"))}


def work_path(hub: Path, cluster: str) -> Path:
    """The file of the cluster's one work (its name carries a digest of its owner)."""
    (path,) = (hub / ".clusterplace" / "manifestworks" / cluster).glob("*.yaml")
    return path


def report(hub: Path, cluster: str, state: str, at: str) -> None:
    """What a work agent writes into the work's status (the cluster's one work)."""
    path = work_path(hub, cluster)
    work = yaml.safe_load(path.read_text())
    generation = work["metadata"]["generation"]

    def c(kind: str, status: str) -> dict[str, Any]:
        return {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "message": "",
            "lastTransitionTime": at,
            "observedGeneration": generation,
        }

    progressing = "False" if state == "done" else "True"
    found = [c("Applied", "True"), c("Progressing", progressing)]
    if state == "failed":
        found.append(c("Degraded", "True"))
    else:
        found.append(c("Available", "True"))
    work["status"] = {"conditions": found}
    replace_text(path, yaml.safe_dump(work))


def status(hub: Path) -> dict[str, Any]:
    path = hub / ".clusterplace" / "manifestworkreplicasets" / "apps" / "web.yaml"
    return yaml.safe_load(path.read_text())["status"]  # type: ignore[no-any-return]


def conditions(hub: Path) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in status(hub)["conditions"]
    }
