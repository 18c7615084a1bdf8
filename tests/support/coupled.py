"""A fleet whose placements are coupled by Balance: one pass of the scheduler and the
controller's settled answer differ (``schedule`` vs ``schedule --settle``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

__all__ = ["coupled"]

OCM = "cluster.open-cluster-management.io"


def coupled(tmp_path: Path, prioritizers: dict[str, Any] | None = None) -> Path:
    """``apps/one`` (one cluster, by name first c1) and ``apps/web`` (every prod cluster):
    one pass puts one on c1; web then takes c1 and c2, and Balance moves one to c3."""
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": f"{OCM}/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": name, "labels": {"env": env}},
            "spec": {"hubAcceptsClient": True},
        }
        for name, env in (("c1", "prod"), ("c2", "prod"), ("c3", "dev"))
    ]
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "all"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
        }
    )
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "all", "namespace": "apps"},
            "spec": {"clusterSet": "all"},
        }
    )
    one: dict[str, Any] = {"numberOfClusters": 1}
    if prioritizers is not None:
        one["prioritizerPolicy"] = prioritizers
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "one", "namespace": "apps"},
            "spec": one,
        }
    )
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "predicates": [
                    {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"env": "prod"}}}}
                ]
            },
        }
    )
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "fleet.yaml").write_text(yaml.safe_dump_all(docs))
    return hub
