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
    """Cluster ``i`` of OCM's benchmark fleet (as upstream's scheduler benchmark builds it),
    as JSON."""
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


S2_PLACEMENT = ("benchmark", "big")
S2_WARM = ("benchmark", "warm-up")


def s2_warm_placement() -> Placement:
    """A placement in S2's namespace whose predicates differ from S2's (another region,
    other platforms), so scheduling it first warms only what placements really share:
    the candidate list and the per-cluster columns, not S2's filters or scores."""
    return Placement.model_validate(
        {
            "apiVersion": f"{G}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": S2_WARM[1], "namespace": S2_WARM[0]},
            "spec": {
                "numberOfClusters": 100,
                "predicates": [
                    {
                        "requiredClusterSelector": {
                            "labelSelector": {"matchLabels": {"region": "eu"}},
                            "claimSelector": {
                                "matchExpressions": [
                                    {
                                        "key": "platform.open-cluster-management.io",
                                        "operator": "In",
                                        "values": ["Azure", "Other"],
                                    }
                                ]
                            },
                        }
                    }
                ],
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


def s6_fleet(clusters: int, placements: int) -> list[KubeObject]:
    """S2's large fleet with ``placements`` placements like its one (``big-0``...),
    alternating between regions and asking for different numbers of clusters."""
    objects = s2_fleet(clusters)
    template = objects.pop()
    assert isinstance(template, Placement)
    for i in range(placements):
        spec = template.spec.model_copy(update={"number_of_clusters": 10 + i})
        raw = template.model_dump(by_alias=True, exclude_none=True)
        raw["metadata"]["name"] = f"big-{i}"
        raw["spec"] = spec.model_dump(by_alias=True, exclude_none=True)
        selector = raw["spec"]["predicates"][0]["requiredClusterSelector"]
        selector["labelSelector"]["matchLabels"]["region"] = "us" if i % 2 == 0 else "eu"
        objects.append(Placement.model_validate(raw))
    return objects


def clusters_yaml(count: int, seed: int = 11) -> str:
    """``count`` ManagedCluster documents as one YAML stream (for the loading scenario)."""
    import yaml

    rng = random.Random(seed)
    return yaml.safe_dump_all([realistic_cluster(i, rng) for i in range(count)], sort_keys=False)


TEAMS = 50


def s3_fleet(
    clusters: int, placements: int, scoped: bool = True, seed: int = 13
) -> list[KubeObject]:
    """A fleet shared by teams: each team's namespace is bound to its own cluster set
    (``scoped``) or every namespace to one set of all clusters. Placements mix the
    default policy (Balance + Steady), resource-based and add-on-based Exact policies,
    label and claim predicates, tolerations, and 1 to 5 clusters each."""
    rng = random.Random(seed)
    teams = min(TEAMS, clusters)
    objects: list[KubeObject] = []
    for i in range(clusters):
        body = realistic_cluster(i, rng)
        team = f"team-{i % teams:02d}"
        body["metadata"]["labels"][f"{G}/clusterset"] = team if scoped else "fleet"
        objects.append(ManagedCluster.model_validate(body))
        objects.append(_score(i, rng.randint(0, 100)))
    for name in [f"team-{t:02d}" for t in range(teams)] if scoped else ["fleet"]:
        objects.append(_set(name))
    for t in range(teams):
        namespace = f"team-{t:02d}"
        objects.append(_binding(namespace, namespace if scoped else "fleet"))
    for k in range(placements):
        objects.append(_s3_placement(f"team-{k % teams:02d}", f"app-{k:05d}", rng))
    return objects


def score_object(i: int, value: int) -> AddOnPlacementScore:
    """Add-on ``demo``'s score of cluster ``i``."""
    return _score(i, value)


def _score(i: int, value: int) -> AddOnPlacementScore:
    return AddOnPlacementScore.model_validate(
        {
            "apiVersion": f"{G}/v1alpha1",
            "kind": "AddOnPlacementScore",
            "metadata": {"name": "demo", "namespace": f"cluster{i}"},
            "status": {"scores": [{"name": "demo", "value": value}]},
        }
    )


def _set(name: str) -> ManagedClusterSet:
    return ManagedClusterSet.model_validate(
        {"apiVersion": f"{G}/v1beta2", "kind": "ManagedClusterSet", "metadata": {"name": name}}
    )


def _binding(namespace: str, set_name: str) -> ManagedClusterSetBinding:
    return ManagedClusterSetBinding.model_validate(
        {
            "apiVersion": f"{G}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": set_name, "namespace": namespace},
            "spec": {"clusterSet": set_name},
        }
    )


def _s3_placement(namespace: str, name: str, rng: random.Random) -> Placement:
    labels: dict[str, str] = {"environment": rng.choice(ENVIRONMENTS)}
    if rng.random() < 0.5:
        labels["region"] = rng.choice(REGIONS)
    selector: dict[str, Any] = {"labelSelector": {"matchLabels": labels}}
    if rng.random() < 0.2:
        selector["claimSelector"] = {
            "matchExpressions": [
                {
                    "key": "platform.open-cluster-management.io",
                    "operator": "In",
                    "values": ["AWS", "GCP"],
                }
            ]
        }
    spec: dict[str, Any] = {
        "numberOfClusters": rng.randint(1, 5),
        "predicates": [{"requiredClusterSelector": selector}],
    }
    if rng.random() < 0.2:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    policy = rng.random()
    if policy < 0.25:
        spec["prioritizerPolicy"] = {
            "mode": "Exact",
            "configurations": [
                {"scoreCoordinate": {"builtIn": "ResourceAllocatableCPU"}},
                {"scoreCoordinate": {"builtIn": "ResourceAllocatableMemory"}},
            ],
        }
    elif policy < 0.5:
        spec["prioritizerPolicy"] = {
            "mode": "Additive",
            "configurations": [
                {
                    "scoreCoordinate": {
                        "type": "AddOn",
                        "addOn": {"resourceName": "demo", "scoreName": "demo"},
                    },
                    "weight": 2,
                }
            ],
        }
    return Placement.model_validate(
        {
            "apiVersion": f"{G}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )
