"""The cluster's identity for defkit placement: the ``vela-cluster-identity`` ConfigMap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from clusterplace.api import ConfigMap, Fleet, KubeObject

__all__ = [
    "CLUSTER_IDENTITY_CONFIGMAP",
    "CLUSTER_IDENTITY_NAMESPACE",
    "ConfigMapSource",
    "cluster_labels_exist",
    "format_cluster_labels",
    "get_cluster_labels",
]

CLUSTER_IDENTITY_CONFIGMAP = "vela-cluster-identity"
CLUSTER_IDENTITY_NAMESPACE = "vela-system"


@runtime_checkable
class ConfigMapSource(Protocol):
    """Where ConfigMaps are read from (a live cluster, say). Return None when not found;
    raise for any other failure, which apply-module treats as fatal (fail closed)."""

    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None: ...


Source = ConfigMapSource | Fleet | Iterable[KubeObject] | ConfigMap | None


def _find(source: Source) -> ConfigMap | None:
    key = (CLUSTER_IDENTITY_NAMESPACE, CLUSTER_IDENTITY_CONFIGMAP)
    if source is None:
        return None
    if isinstance(source, ConfigMap):
        return source if (source.namespace, source.name) == key else None
    if isinstance(source, ConfigMapSource):
        return source.get_config_map(*key)
    if isinstance(source, Fleet):
        return source.config_maps.get(key)
    for obj in source:
        if isinstance(obj, ConfigMap) and (obj.namespace, obj.name) == key:
            return obj
    return None


def get_cluster_labels(source: Source) -> dict[str, str]:
    """A copy of the identity ConfigMap's ``data`` (``binaryData`` ignored); ``{}`` when the
    ConfigMap or its data is absent."""
    found = _find(source)
    return dict(found.data or {}) if found is not None else {}


def cluster_labels_exist(source: Source) -> bool:
    """Whether the identity ConfigMap exists."""
    return _find(source) is not None


def format_cluster_labels(labels: Mapping[str, str] | None) -> str:
    """``k=v`` pairs sorted by key and joined by ", "; ``(no labels)`` when empty."""
    if not labels:
        return "(no labels)"
    return ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
