"""Typed Kubernetes objects for placement, and reading them from files kubectl style.

>>> from clusterplace.api import load_fleet, expand_sources
>>> fleet = load_fleet(expand_sources(["examples/fleet"]))  # doctest: +SKIP
>>> sorted(fleet.clusters)  # doctest: +SKIP
"""

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
from clusterplace.api.fleet import Fleet, load_fleet
from clusterplace.api.loader import Document, Loaded, LoadError, decode, read_documents
from clusterplace.api.module import DefinitionModule, Hook
from clusterplace.api.placement import Placement, PlacementDecision
from clusterplace.api.selectors import ClaimSelector, LabelSelector, LabelSelectorRequirement
from clusterplace.api.sources import Source, expand_sources

__all__ = [
    "CLUSTERSET_LABEL",
    "AddOnPlacementScore",
    "AddOnPlacementScoreItem",
    "ClaimSelector",
    "ClusterClaim",
    "Condition",
    "ConfigMap",
    "DefinitionModule",
    "Document",
    "Fleet",
    "GenericObject",
    "Hook",
    "KubeObject",
    "LabelSelector",
    "LabelSelectorRequirement",
    "LoadError",
    "Loaded",
    "ManagedCluster",
    "ManagedClusterSet",
    "ManagedClusterSetBinding",
    "ObjectMeta",
    "OwnerReference",
    "Placement",
    "PlacementDecision",
    "Source",
    "Taint",
    "decode",
    "expand_sources",
    "load_fleet",
    "read_documents",
]
