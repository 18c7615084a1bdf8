"""Typed Kubernetes and OCM objects for placement, the registry of their kinds, and the
:class:`Fleet` index. Reading them from text is :mod:`clusterplace.codecs`.

>>> from clusterplace.codecs import load_fleet, expand_sources
>>> fleet = load_fleet(expand_sources(["examples/fleet"]))  # doctest: +SKIP
>>> sorted(fleet.clusters)  # doctest: +SKIP
"""

from __future__ import annotations

from clusterplace.api.addon import AddOnPlacementScore, AddOnPlacementScoreItem
from clusterplace.api.base import Condition, KubeObject, ObjectMeta, OwnerReference
from clusterplace.api.cluster import (
    CLUSTERSET_LABEL,
    ClusterClaim,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Taint,
)
from clusterplace.api.core import ConfigMap, GenericObject
from clusterplace.api.fleet import Fleet
from clusterplace.api.module import DefinitionModule, Hook
from clusterplace.api.placement import Placement, PlacementDecision
from clusterplace.api.selectors import ClaimSelector, LabelSelector, LabelSelectorRequirement
from clusterplace.api.work import ManifestWork, ManifestWorkReplicaSet, RolloutStrategy

__all__ = [
    "CLUSTERSET_LABEL",
    "AddOnPlacementScore",
    "AddOnPlacementScoreItem",
    "ClaimSelector",
    "ClusterClaim",
    "Condition",
    "ConfigMap",
    "DefinitionModule",
    "Fleet",
    "GenericObject",
    "Hook",
    "KubeObject",
    "LabelSelector",
    "LabelSelectorRequirement",
    "ManagedCluster",
    "ManagedClusterSet",
    "ManagedClusterSetBinding",
    "ManifestWork",
    "ManifestWorkReplicaSet",
    "ObjectMeta",
    "OwnerReference",
    "Placement",
    "PlacementDecision",
    "RolloutStrategy",
    "Taint",
]
