"""A live cluster through the official Kubernetes client: read ConfigMaps, and get,
create and update namespaced objects (definitions, hook manifests).

The client is imported on first use, so commands that never talk to a cluster do
not pay for it.
"""

from __future__ import annotations

import json
from typing import Any

from clusterplace.api import ConfigMap
from clusterplace.api.metadata import quote
from clusterplace.api.naming import plural
from clusterplace.errors import ClusterplaceError
from clusterplace.labels.validation import path_segment_errors

__all__ = ["KubernetesCluster", "KubernetesError", "merge_patch"]


class KubernetesError(ClusterplaceError):
    """The API server refused a request or could not be reached."""


def _segments(*parts: str, what: str) -> None:
    """Each part of a request path must be one non-empty URL path segment: a name with
    '/' or '..' would address another resource."""
    for part in parts:
        reasons = path_segment_errors(part) if part else ["must not be empty"]
        if reasons:
            raise KubernetesError(f"{what}: {quote(part)} {'; '.join(reasons)}")


def merge_patch(current: Any, desired: Any) -> Any:
    """The RFC 7386 merge patch that turns ``current`` into ``desired`` ({} when equal)."""
    if not isinstance(current, dict) or not isinstance(desired, dict):
        return desired
    patch: dict[str, Any] = {key: None for key in current if key not in desired}
    for key, value in desired.items():
        if key not in current:
            patch[key] = value
        elif current[key] != value:
            inner = merge_patch(current[key], value)
            patch[key] = inner if inner != {} or not isinstance(value, dict) else value
    return patch


class KubernetesCluster:
    """One cluster's API, as a :class:`~clusterplace.defkit.placement.ConfigMapSource` and a
    :class:`~clusterplace.defkit.stores.DefinitionStore`."""

    def __init__(self, api_client: Any) -> None:
        self._api = api_client

    @classmethod
    def from_kubeconfig(cls, path: str, context: str | None = None) -> KubernetesCluster:
        try:
            from kubernetes import config  # the official client, an optional dependency
        except ImportError:
            raise KubernetesError(
                "talking to a cluster needs the Kubernetes client: pip install 'clusterplace[kube]'"
            ) from None
        try:
            client = config.new_client_from_config(config_file=path, context=context)  # type: ignore[no-untyped-call]
            return cls(client)
        except Exception as err:  # kubeconfig problems come as several exception types
            raise KubernetesError(f"cannot load kubeconfig {path}: {err}") from None

    def _call(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> dict[str, Any] | None:
        """One request; the decoded JSON body, or None for 404. Raises KubernetesError."""
        try:
            method_, url, headers, payload, _ = self._api.param_serialize(
                method=method,
                resource_path=path,
                header_params={"Accept": "application/json", "Content-Type": content_type},
                body=body,
                auth_settings=["BearerToken"],
            )
            response = self._api.call_api(method_, url, header_params=headers, body=payload)
            raw = response.read()
        except Exception as err:  # connection errors from urllib3 and friends
            raise KubernetesError(f"{method} {path}: {err}") from None
        if response.status == 404:
            return None
        if response.status >= 400:
            reason = getattr(response, "reason", "") or ""
            raise KubernetesError(f"{method} {path}: {response.status} {reason}".rstrip())
        data = json.loads(raw) if raw else {}
        return data if isinstance(data, dict) else {}

    @staticmethod
    def _collection(api_version: str, kind: str, namespace: str) -> str:
        _segments(*api_version.split("/"), namespace, plural(kind), what=f"{kind} path")
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        return f"{base}/namespaces/{namespace}/{plural(kind)}"

    def _item(self, api_version: str, kind: str, namespace: str, name: str) -> str:
        _segments(name, what=f"{kind} name")
        return f"{self._collection(api_version, kind, namespace)}/{name}"

    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None:
        data = self._call("GET", self._item("v1", "ConfigMap", namespace, name))
        if data is None:
            return None
        # Only what identity needs: the data, under the name asked for.
        return ConfigMap.model_validate(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace},
                "data": data.get("data"),
                "binaryData": data.get("binaryData"),
            }
        )

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self._call("GET", self._item(api_version, kind, namespace, name))

    def create(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        path = self._collection(obj["apiVersion"], obj["kind"], meta["namespace"])
        if self._call("POST", path, obj) is None:
            raise KubernetesError(f"POST {path}: the resource {obj['kind']} is not served")

    def update(self, obj: dict[str, Any]) -> None:
        """Make the stored object equal to ``obj`` in spec, labels and annotations, with a
        JSON merge patch (RFC 7386) computed against what the server holds."""
        meta = obj["metadata"]
        path = self._item(obj["apiVersion"], obj["kind"], meta["namespace"], meta["name"])
        existing = self._call("GET", path)
        if existing is None:
            raise KubernetesError(f"GET {path}: not found")
        desired = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        current = {
            k: v
            for k, v in existing.items()
            if k not in ("apiVersion", "kind", "metadata", "status")
        }
        patch: dict[str, Any] = merge_patch(current, desired)
        meta_patch = merge_patch(
            {k: existing.get("metadata", {}).get(k) or {} for k in ("labels", "annotations")},
            {k: meta.get(k) or {} for k in ("labels", "annotations")},
        )
        if meta_patch:
            patch["metadata"] = meta_patch
        if patch:
            self._call("PATCH", path, patch, content_type="application/merge-patch+json")

    def commit(self) -> None:
        """Writes go to the server as they happen."""
