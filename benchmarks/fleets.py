"""Synthetic fleets, fixed by a seed: OCM's own benchmark shape (S1) and a realistic
large fleet with labels, claims, taints, resources and add-on scores."""

from __future__ import annotations

import random
from typing import Any

from clusterplace.api import (
    AddOnPlacementScore,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
)

G = "cluster.open-cluster-management.io"
PROVIDERS = ["aws", "gcp", "azure", "on-prem"]
REGIONS = ["us", "eu", "ap"]
ENVIRONMENTS = ["production", "staging", "development"]
TIERS = ["gold", "silver", "bronze"]


def _set_and_binding(namespace: str) -> list[KubeObject]:
    return [
        ManagedClusterSet.model_validate(
            {
                "apiVersion": f"{G}/v1beta2",
                "kind": "ManagedClusterSet",
                "metadata": {"name": "benchmark"},
            }
        ),
        ManagedClusterSetBinding.model_validate(
            {
                "apiVersion": f"{G}/v1beta2",
                "kind": "ManagedClusterSetBinding",
                "metadata": {"name": "benchmark", "namespace": namespace},
                "spec": {"clusterSet": "benchmark"},
            }
        ),
    ]


def s1_cluster(i: int, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """Cluster ``i`` of OCM's benchmark fleet (performance-anchors.md), as JSON."""
    cpu, mem = 4 + (i * 37) % 97, 8 + (i * 53) % 113
    return {
        "apiVersion": f"{G}/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": f"cluster{i}",
            "labels": {f"{G}/clusterset": "benchmark", **(labels or {})},
        },
        "status": {
            "allocatable": {"cpu": str(cpu), "memory": f"{mem}Gi"},
            "capacity": {"cpu": str(cpu + 4), "memory": f"{mem + 16}Gi"},
        },
    }


def s1_fleet(clusters: int, placements: int) -> list[KubeObject]:
    """OCM's benchmark: every cluster scored 80 by add-on ``demo``; each placement picks 10
    with Exact AddOn demo/demo + ResourceAllocatableCPU + Balance, weight 1 each."""
    objects: list[KubeObject] = [
        ManagedCluster.model_validate(s1_cluster(i)) for i in range(clusters)
    ]
    objects += [
        AddOnPlacementScore.model_validate(
            {
                "apiVersion": f"{G}/v1alpha1",
                "kind": "AddOnPlacementScore",
                "metadata": {"name": "demo", "namespace": f"cluster{i}"},
                "status": {"scores": [{"name": "demo", "value": 80}]},
            }
        )
        for i in range(clusters)
    ]
    objects += _set_and_binding("benchmark")
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
    objects += [
        Placement.model_validate(
            {
                "apiVersion": f"{G}/v1beta1",
                "kind": "Placement",
                "metadata": {"name": f"benchmark-{k:05d}", "namespace": "benchmark"},
                "spec": {"numberOfClusters": 10, "prioritizerPolicy": policy},
            }
        )
        for k in range(placements)
    ]
    return objects


def realistic_cluster(i: int, rng: random.Random) -> dict[str, Any]:
    """A cluster with realistic labels, claims, an occasional taint, and resources."""
    body = s1_cluster(
        i,
        {
            "provider": rng.choice(PROVIDERS),
            "region": REGIONS[i % 3],
            "zone": f"{REGIONS[i % 3]}-{rng.randint(1, 3)}",
            "environment": rng.choice(ENVIRONMENTS),
            "tier": rng.choice(TIERS),
            "kubernetes-minor": str(rng.randint(27, 31)),
        },
    )
    body["status"]["clusterClaims"] = [
        {
            "name": "platform.open-cluster-management.io",
            "value": rng.choice(["AWS", "GCP", "Azure", "Other"]),
        },
        {"name": "region.open-cluster-management.io", "value": REGIONS[i % 3]},
        {"name": "id.k8s.io", "value": f"id-{i:08d}"},
    ]
    if i % 17 == 0:
        body["spec"] = {
            "taints": [
                {
                    "key": "dedicated",
                    "value": "gpu",
                    "effect": "NoSelect",
                    "timeAdded": "2026-01-01T00:00:00Z",
                }
            ]
        }
    elif i % 29 == 0:
        body["spec"] = {
            "taints": [
                {
                    "key": f"{G}/unreachable",
                    "effect": "NoSelect",
                    "timeAdded": "2026-01-01T00:00:00Z",
                }
            ]
        }
    return body


def s2_fleet(clusters: int, seed: int = 7) -> list[KubeObject]:
    """A very large fleet and one placement: label + claim predicates, tolerations,
    CPU and memory prioritizers, 100 clusters."""
    rng = random.Random(seed)
    objects: list[KubeObject] = [
        ManagedCluster.model_validate(realistic_cluster(i, rng)) for i in range(clusters)
    ]
    objects += _set_and_binding("benchmark")
    objects.append(
        Placement.model_validate(
            {
                "apiVersion": f"{G}/v1beta1",
                "kind": "Placement",
                "metadata": {"name": "big", "namespace": "benchmark"},
                "spec": {
                    "numberOfClusters": 100,
                    "predicates": [
                        {
                            "requiredClusterSelector": {
                                "labelSelector": {"matchLabels": {"region": "us"}},
                                "claimSelector": {
                                    "matchExpressions": [
                                        {
                                            "key": "platform.open-cluster-management.io",
                                            "operator": "In",
                                            "values": ["AWS", "GCP"],
                                        }
                                    ]
                                },
                            }
                        }
                    ],
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu"}],
                    "prioritizerPolicy": {
                        "mode": "Exact",
                        "configurations": [
                            {"scoreCoordinate": {"builtIn": "ResourceAllocatableCPU"}},
                            {"scoreCoordinate": {"builtIn": "ResourceAllocatableMemory"}},
                        ],
                    },
                },
            }
        )
    )
    return objects


def clusters_yaml(count: int, seed: int = 11) -> str:
    """``count`` ManagedCluster documents as one YAML stream (for the loading scenario)."""
    import yaml

    rng = random.Random(seed)
    return yaml.safe_dump_all([realistic_cluster(i, rng) for i in range(count)], sort_keys=False)
