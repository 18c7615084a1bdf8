"""Parity with OCM's own scheduler on its benchmark fleet (performance-anchors.md, S1).

``tests/data/ocm_s1_first200_decisions.txt`` holds upstream's decisions for the first
200 placements (of its 10,000-placement run, recorded with OCM's Go scheduler), one line
per placement: ``benchmark-<k> <cluster>,<cluster>,...`` in PlacementDecision order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
)
from clusterplace.scheduling import schedule

G = "cluster.open-cluster-management.io"
DATA = Path(__file__).parents[1] / "data" / "ocm_s1_first200_decisions.txt"


def _s1_fleet(clusters: int, placements: int) -> list[KubeObject]:
    objects: list[KubeObject] = []
    for i in range(clusters):
        cpu, mem = 4 + (i * 37) % 97, 8 + (i * 53) % 113
        status: dict[str, Any] = {
            "allocatable": {"cpu": str(cpu), "memory": f"{mem}Gi"},
            "capacity": {"cpu": str(cpu + 4), "memory": f"{mem + 16}Gi"},
        }
        objects.append(
            ManagedCluster.model_validate(
                {
                    "apiVersion": f"{G}/v1",
                    "kind": "ManagedCluster",
                    "metadata": {"name": f"cluster{i}", "labels": {f"{G}/clusterset": "benchmark"}},
                    "status": status,
                }
            )
        )
        objects.append(
            AddOnPlacementScore.model_validate(
                {
                    "apiVersion": f"{G}/v1alpha1",
                    "kind": "AddOnPlacementScore",
                    "metadata": {"name": "demo", "namespace": f"cluster{i}"},
                    "status": {"scores": [{"name": "demo", "value": 80}]},
                }
            )
        )
    objects.append(
        ManagedClusterSet.model_validate(
            {
                "apiVersion": f"{G}/v1beta2",
                "kind": "ManagedClusterSet",
                "metadata": {"name": "benchmark"},
            }
        )
    )
    objects.append(
        ManagedClusterSetBinding.model_validate(
            {
                "apiVersion": f"{G}/v1beta2",
                "kind": "ManagedClusterSetBinding",
                "metadata": {"name": "benchmark", "namespace": "benchmark"},
                "spec": {"clusterSet": "benchmark"},
            }
        )
    )
    policy = {
        "mode": "Exact",
        "configurations": [
            {
                "scoreCoordinate": {
                    "type": "AddOn",
                    "addOn": {"resourceName": "demo", "scoreName": "demo"},
                }
            },
            {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "ResourceAllocatableCPU"}},
            {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "Balance"}},
        ],
    }
    for k in range(placements):
        objects.append(
            Placement.model_validate(
                {
                    "apiVersion": f"{G}/v1beta1",
                    "kind": "Placement",
                    "metadata": {"name": f"benchmark-{k:05d}", "namespace": "benchmark"},
                    "spec": {"numberOfClusters": 10, "prioritizerPolicy": policy},
                }
            )
        )
    return objects


def test_first_200_placements_decide_exactly_as_upstream() -> None:
    expected = [line.split(" ")[1] for line in DATA.read_text().splitlines()]
    result = schedule(
        Fleet.of(_s1_fleet(1000, len(expected))), now=datetime(2026, 1, 1, tzinfo=UTC)
    )
    got = [
        ",".join(d.cluster_name for pd in r.decisions for d in pd.status.decisions)
        for r in result.placements
    ]
    assert got == expected
