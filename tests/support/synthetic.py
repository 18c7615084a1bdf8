"""A synthetic fleet of any size for the explorer's tests at scale: clusters with the
example fleet's kinds of labels (provider, environment, region, tier), an availability
condition, allocatable resources and an occasional taint; exclusive and label-selector
cluster sets; a dozen placements of every shape (numberOfClusters or all, decision
groups named and not, predicates, prioritizers). Fixed by a seed."""

from __future__ import annotations

import random
from typing import Any

from clusterplace.api import (
    Fleet,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
)

__all__ = ["synthetic_fleet"]

G = "cluster.open-cluster-management.io"
PROVIDERS = ("aws", "gcp", "azure", "on-prem")
ENVIRONMENTS = ("production", "staging", "development")
REGIONS = ("us", "eu", "ap")
TIERS = ("gold", "silver", "bronze")


def _cluster(i: int, rng: random.Random) -> dict[str, Any]:
    provider = PROVIDERS[i % len(PROVIDERS)]
    environment = ENVIRONMENTS[(i // 4) % len(ENVIRONMENTS)]
    region = REGIONS[(i // 12) % len(REGIONS)]
    tier = rng.choice(TIERS)
    name = f"{provider}-{environment[:4]}-{region}-{i:04d}"
    available = "True" if rng.random() > 0.05 else rng.choice(["False", "Unknown"])
    cpu = 8 + (i * 37) % 120
    body: dict[str, Any] = {
        "apiVersion": f"{G}/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": name,
            "labels": {
                "provider": provider,
                "environment": environment,
                "region": region,
                "tier": tier,
                f"{G}/clusterset": "prod" if environment == "production" else "nonprod",
            },
        },
        "spec": {"hubAcceptsClient": True},
        "status": {
            "conditions": [
                {
                    "type": "ManagedClusterConditionAvailable",
                    "status": available,
                    "reason": "ManagedClusterAvailable"
                    if available == "True"
                    else "ManagedClusterLeaseUpdateStopped",
                    "message": "Managed cluster is available"
                    if available == "True"
                    else "Registration agent stopped updating its lease.",
                    "lastTransitionTime": "2026-11-01T00:00:00Z",
                }
            ],
            "allocatable": {"cpu": str(cpu), "memory": f"{16 + (i * 53) % 240}Gi"},
            "capacity": {"cpu": str(cpu + 4), "memory": f"{32 + (i * 53) % 240}Gi"},
        },
    }
    if i % 41 == 7:
        body["spec"]["taints"] = [
            {
                "key": "maintenance",
                "effect": "NoSelect",
                "timeAdded": "2026-11-01T00:00:00Z",
            }
        ]
    return body


def _set(name: str, selector: dict[str, Any] | None = None) -> ManagedClusterSet:
    spec: dict[str, Any] = {"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}}
    if selector is not None:
        spec = {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": selector}}
    return ManagedClusterSet.model_validate(
        {"apiVersion": f"{G}/v1beta2", "kind": "ManagedClusterSet", "metadata": {"name": name}}
        | {"spec": spec}
    )


def _binding(namespace: str, name: str) -> ManagedClusterSetBinding:
    return ManagedClusterSetBinding.model_validate(
        {
            "apiVersion": f"{G}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterSet": name},
        }
    )


def _placement(namespace: str, name: str, spec: dict[str, Any]) -> Placement:
    return Placement.model_validate(
        {
            "apiVersion": f"{G}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )


def _selector(**labels: str | list[str]) -> dict[str, Any]:
    expressions = [
        {"key": k, "operator": "In", "values": v if isinstance(v, list) else [v]}
        for k, v in labels.items()
    ]
    return {"requiredClusterSelector": {"labelSelector": {"matchExpressions": expressions}}}


CPU = {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "ResourceAllocatableCPU"}, "weight": 2}
MEMORY = {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "ResourceAllocatableMemory"}}


def _placements() -> list[Placement]:
    prod, everything = ["prod"], ["global"]
    return [
        _placement(
            "apps",
            "web-frontend",
            {
                "clusterSets": prod,
                "numberOfClusters": 12,
                "predicates": [_selector(provider=["aws", "gcp"])],
                "prioritizerPolicy": {"mode": "Additive", "configurations": [CPU]},
            },
        ),
        _placement(
            "apps",
            "canary-rollout",
            {
                "clusterSets": prod,
                "predicates": [_selector(region="eu")],
                "decisionStrategy": {
                    "groupStrategy": {
                        "clustersPerDecisionGroup": "25%",
                        "decisionGroups": [
                            {
                                "groupName": "canary",
                                "groupClusterSelector": {
                                    "labelSelector": {"matchLabels": {"tier": "silver"}}
                                },
                            }
                        ],
                    }
                },
            },
        ),
        _placement(
            "apps",
            "analytics",
            {
                "clusterSets": everything,
                "numberOfClusters": 40,
                "predicates": [_selector(tier="gold")],
                "prioritizerPolicy": {"mode": "Exact", "configurations": [CPU, MEMORY]},
            },
        ),
        _placement("apps", "everywhere", {"clusterSets": everything}),
        _placement(
            "apps",
            "batch",
            {
                "clusterSets": everything,
                "numberOfClusters": 100,
                "predicates": [_selector(environment=["staging", "development"])],
                "prioritizerPolicy": {"mode": "Additive", "configurations": [MEMORY]},
            },
        ),
        _placement(
            "apps",
            "gold-eu",
            {
                "clusterSets": ["gold"],
                "numberOfClusters": 5,
                "predicates": [_selector(region="eu")],
            },
        ),
        _placement(
            "team-a",
            "dev-sandbox",
            {"clusterSets": ["nonprod"], "numberOfClusters": 2},
        ),
        _placement(
            "team-a",
            "staging-azure",
            {
                "clusterSets": ["nonprod"],
                "numberOfClusters": 8,
                "predicates": [_selector(provider="azure", environment="staging")],
            },
        ),
        _placement(
            "team-b",
            "on-prem-only",
            {"clusterSets": ["global"], "predicates": [_selector(provider="on-prem")]},
        ),
        _placement(
            "team-b",
            "ap-pair",
            {
                "clusterSets": ["global"],
                "numberOfClusters": 2,
                "predicates": [_selector(region="ap", tier="gold")],
                "prioritizerPolicy": {"mode": "Additive", "configurations": [CPU]},
            },
        ),
        _placement(
            "team-b",
            "nowhere",
            {"clusterSets": ["global"], "predicates": [_selector(provider="mainframe")]},
        ),
        _placement(
            "team-b",
            "half-of-gcp",
            {
                "clusterSets": ["global"],
                "numberOfClusters": 60,
                "predicates": [_selector(provider="gcp")],
                "prioritizerPolicy": {"mode": "Additive", "configurations": [CPU, MEMORY]},
            },
        ),
    ]


def synthetic_fleet(clusters: int, seed: int = 3) -> Fleet:
    """``clusters`` clusters, four cluster sets (prod and nonprod by their exclusive
    label, global of every cluster, gold by a label selector) bound to three namespaces,
    and twelve placements."""
    rng = random.Random(seed)
    objects: list[KubeObject] = [
        ManagedCluster.model_validate(_cluster(i, rng)) for i in range(clusters)
    ]
    objects += [
        _set("prod"),
        _set("nonprod"),
        _set("global", {}),
        _set("gold", {"matchLabels": {"tier": "gold"}}),
    ]
    objects += [_binding("apps", s) for s in ("prod", "global", "gold")]
    objects += [_binding("team-a", "nonprod"), _binding("team-b", "global")]
    objects += _placements()
    return Fleet.of(objects)
