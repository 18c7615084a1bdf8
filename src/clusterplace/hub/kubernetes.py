"""A live cluster through the official Kubernetes client: read ConfigMaps, and get,
create and update namespaced objects (definitions, hook manifests).

The client is imported on first use, so commands that never talk to a cluster do
not pay for it.
"""

from __future__ import annotations

from typing import Any

from clusterplace.api import ConfigMap
from clusterplace.errors import ClusterplaceError

__all__ = ["KubernetesCluster", "KubernetesError"]


class KubernetesError(ClusterplaceError):
    """The API server refused a request or could not be reached."""


def _plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


class KubernetesCluster:
    """One cluster's API, as a :class:`~clusterplace.placement.ConfigMapSource` and a
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

    def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any] | None:
        from kubernetes.client.exceptions import ApiException

        try:
            data, _, _ = self._api.call_api(
                path,
                method,
                header_params={"Accept": "application/json", "Content-Type": "application/json"},
                body=body,
                response_type="object",
                auth_settings=["BearerToken"],
                _return_http_data_only=False,
                _preload_content=True,
            )
        except ApiException as err:
            if err.status == 404:
                return None
            raise KubernetesError(f"{method} {path}: {err.status} {err.reason}") from None
        except Exception as err:  # connection errors from urllib3 and friends
            raise KubernetesError(f"{method} {path}: {err}") from None
        return data if isinstance(data, dict) else {}

    @staticmethod
    def _collection(api_version: str, kind: str, namespace: str) -> str:
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        return f"{base}/namespaces/{namespace}/{_plural(kind)}"

    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None:
        data = self._call("GET", f"/api/v1/namespaces/{namespace}/configmaps/{name}")
        if data is None:
            return None
        data.setdefault("apiVersion", "v1")
        data.setdefault("kind", "ConfigMap")
        return ConfigMap.model_validate(
            {
                k: v
                for k, v in data.items()
                if k in ("apiVersion", "kind", "metadata", "data", "binaryData")
            }
            | {"metadata": {"name": name, "namespace": namespace}}
        )

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self._call("GET", f"{self._collection(api_version, kind, namespace)}/{name}")

    def create(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        path = self._collection(obj["apiVersion"], obj["kind"], meta["namespace"])
        if self._call("POST", path, obj) is None:
            raise KubernetesError(f"POST {path}: the resource {obj['kind']} is not served")

    def update(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        path = (
            f"{self._collection(obj['apiVersion'], obj['kind'], meta['namespace'])}/{meta['name']}"
        )
        existing = self._call("GET", path) or {}
        version = (existing.get("metadata") or {}).get("resourceVersion")
        body = {**obj, "metadata": {**meta, **({"resourceVersion": version} if version else {})}}
        if self._call("PUT", path, body) is None:
            raise KubernetesError(f"PUT {path}: not found")

    def commit(self) -> None:
        """Writes go to the server as they happen."""
