"""ConfigMap (v1) and the opaque object every other kind becomes."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict

from clusterplace.api.base import KubeObject

__all__ = ["ConfigMap", "GenericObject"]


class ConfigMap(KubeObject):
    API_VERSIONS: ClassVar[tuple[str, ...]] = ("v1",)
    KIND: ClassVar[str] = "ConfigMap"

    data: dict[str, str] | None = None
    binary_data: dict[str, str] | None = None
    immutable: bool | None = None


class GenericObject(KubeObject):
    """Any object of a kind clusterplace does not model: metadata typed, the rest kept."""

    model_config = ConfigDict(extra="allow")

    def body(self) -> dict[str, Any]:
        """Every field besides apiVersion, kind and metadata, as given."""
        return dict(self.__pydantic_extra__ or {})
