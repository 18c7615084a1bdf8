"""Which clusters get which object: the pure plan behind ``clusterplace route``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clusterplace.federation.cluster_selector import ANNOTATION, parse_cluster_selector
from clusterplace.labels import Labels, SelectorError

__all__ = ["Routed", "RoutingError", "object_file_name", "route"]


@dataclass(frozen=True)
class Routed:
    """One object and the clusters (sorted) it goes to."""

    obj: Mapping[str, Any]
    clusters: tuple[str, ...]
    file_name: str
    selector: str | None  # canonical form of the annotation, None when absent


class RoutingError(ValueError):
    """Objects whose annotation is invalid: ``problems`` pairs each object's index with why."""

    def __init__(self, problems: Sequence[tuple[int, str]]) -> None:
        super().__init__("; ".join(msg for _, msg in problems))
        self.problems = list(problems)


def object_file_name(obj: Mapping[str, Any]) -> str:
    """A stable file name from kind (with API group), namespace and name.

    ``deployment.apps_shop_web.yaml``, ``configmap_default_settings.yaml``,
    ``namespace_shop.yaml``. Names and namespaces never contain ``_``, so the
    name cannot collide for different objects.
    """
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rpartition("/")[0]
    kind = str(obj.get("kind", "")).lower()
    meta = obj.get("metadata") or {}
    parts = [f"{kind}.{group}" if group else kind]
    if meta.get("namespace"):
        parts.append(str(meta["namespace"]))
    parts.append(str(meta.get("name", "")))
    return "_".join(parts) + ".yaml"


def _unsafe_name(obj: Mapping[str, Any]) -> str | None:
    """Why the object's name or namespace cannot be part of a file name (None if it can)."""
    meta = obj.get("metadata") or {}
    for field in ("namespace", "name"):
        value = str(meta.get(field) or "")
        if "/" in value or "\\" in value or value in (".", "..") or "\0" in value:
            return (
                f"metadata.{field} {value!r} cannot be used in a file name; Kubernetes names "
                "are DNS subdomains (lower-case letters, digits, '-' and '.')"
            )
    return None


def route(objects: Sequence[Mapping[str, Any]], clusters: Mapping[str, Labels]) -> list[Routed]:
    """Route every object to the clusters its annotation selects (all, without one).

    Raises :class:`RoutingError` listing every object with an invalid annotation:
    then nothing is routed at all.
    """
    routed: list[Routed] = []
    problems: list[tuple[int, str]] = []
    names = sorted(clusters)
    for index, obj in enumerate(objects):
        unsafe = _unsafe_name(obj)
        if unsafe:
            problems.append((index, unsafe))
            continue
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        value = annotations.get(ANNOTATION)
        if value is None:
            routed.append(Routed(obj, tuple(names), object_file_name(obj), None))
            continue
        if not isinstance(value, str):
            problems.append((index, f"annotation {ANNOTATION} must be a string"))
            continue
        try:
            selector = parse_cluster_selector(value)
        except SelectorError as err:
            problems.append((index, f"invalid {ANNOTATION} annotation: {err.message}"))
            continue
        chosen = tuple(name for name in names if selector.matches(clusters[name]))
        routed.append(Routed(obj, chosen, object_file_name(obj), str(selector)))
    if problems:
        raise RoutingError(problems)
    return routed
