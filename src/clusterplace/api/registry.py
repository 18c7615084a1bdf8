"""Which model reads which ``apiVersion``/``kind``, and the conversions of older versions."""

from __future__ import annotations

import copy
import difflib
from typing import Any

from clusterplace.api.addon import AddOnPlacementScore
from clusterplace.api.base import KubeObject
from clusterplace.api.cluster import ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding
from clusterplace.api.core import ConfigMap
from clusterplace.api.module import DefinitionModule
from clusterplace.api.placement import Placement, PlacementDecision
from clusterplace.api.profile import ClusterProfile
from clusterplace.api.work import ManifestWork, ManifestWorkReplicaSet

__all__ = [
    "CLUSTER_SCOPED",
    "MODELS",
    "convert",
    "misspelled_group",
    "model_for",
    "namespace_of",
    "supported_versions",
]

MODELS: tuple[type[KubeObject], ...] = (
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
    AddOnPlacementScore,
    ConfigMap,
    DefinitionModule,
    ManifestWork,
    ManifestWorkReplicaSet,
    ClusterProfile,
)
_BY_KIND: dict[str, type[KubeObject]] = {m.KIND: m for m in MODELS}


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def model_for(api_version: str, kind: str) -> type[KubeObject] | None:
    """The model for this kind in this API group, or None for a kind we do not model."""
    model = _BY_KIND.get(kind)
    if model is None or _group(api_version) != _group(model.API_VERSIONS[0]):
        return None
    return model


# Kinds Kubernetes and OCM serve cluster-scoped (an object of any other kind is taken
# as namespaced, as most custom resources are).
CLUSTER_SCOPED = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "ClusterManagementAddOn",
        "ClusterRole",
        "ClusterRoleBinding",
        "ComponentStatus",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "FlowSchema",
        "IngressClass",
        "ManagedCluster",
        "ManagedClusterSet",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)


def namespace_of(kind: str, namespace: object) -> str | None:
    """The namespace an API server gives an object: ``default`` for a namespaced kind
    written without one, none for a cluster-scoped kind."""
    model = _BY_KIND.get(kind)
    namespaced = model.NAMESPACED if model is not None else kind not in CLUSTER_SCOPED
    if not namespaced:
        return None
    return namespace if isinstance(namespace, str) and namespace else "default"


def misspelled_group(api_version: str, kind: str) -> str | None:
    """For a kind clusterplace models, written with an API group close to its own (a
    typo, not another project's kind of the same name): the apiVersion meant."""
    model = _BY_KIND.get(kind)
    if model is None:
        return None
    group, wanted = _group(api_version), _group(model.API_VERSIONS[0])
    if group == wanted or not difflib.get_close_matches(group, [wanted], n=1, cutoff=0.8):
        return None
    return model.API_VERSIONS[0]


def supported_versions(model: type[KubeObject]) -> tuple[str, ...]:
    return model.API_VERSIONS


def _convert_placement_v1alpha1(raw: dict[str, Any]) -> None:
    # v1alpha1 named a prioritizer with `name`; v1beta1 uses scoreCoordinate.builtIn
    # (which wins when both are set).
    policy = (raw.get("spec") or {}).get("prioritizerPolicy") or {}
    for config in policy.get("configurations") or []:
        if not isinstance(config, dict) or "name" not in config:
            continue
        name = config.pop("name")
        if "scoreCoordinate" not in config:
            config["scoreCoordinate"] = {"type": "BuiltIn", "builtIn": name}


def _convert_clusterset_v1beta1(raw: dict[str, Any]) -> None:
    # v1beta1's LegacyClusterSetLabel is v1beta2's ExclusiveClusterSetLabel.
    selector = (raw.get("spec") or {}).get("clusterSelector")
    if isinstance(selector, dict) and selector.get("selectorType") in (
        None,
        "LegacyClusterSetLabel",
    ):
        selector["selectorType"] = "ExclusiveClusterSetLabel"


def convert(model: type[KubeObject], raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` (an older served version included) in the model's preferred version."""
    preferred = model.API_VERSIONS[0]
    if raw.get("apiVersion") == preferred:
        return raw
    converted = copy.deepcopy(raw)
    version = raw.get("apiVersion", "").rpartition("/")[2]
    if model is Placement and version == "v1alpha1":
        _convert_placement_v1alpha1(converted)
    if model is ManagedClusterSet and version == "v1beta1":
        _convert_clusterset_v1beta1(converted)
    converted["apiVersion"] = preferred
    return converted
