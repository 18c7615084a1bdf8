"""Which clusters get which object: the pure plan behind ``clusterplace route``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterplace.api.registry import namespace_of
from clusterplace.errors import ClusterplaceError
from clusterplace.federation.cluster_selector import ANNOTATION, parse_cluster_selector
from clusterplace.federation.observed import WorkloadState
from clusterplace.federation.replicas import ReplicaPlan
from clusterplace.labels import LabelIndex, Labels, SelectorError

__all__ = ["Routed", "RoutingError", "object_file_name", "route"]


@dataclass(frozen=True)
class Routed:
    """One object and the clusters (sorted) it goes to; a Deployment or ReplicaSet also
    carries the division of its replicas among them (``division``) and the states
    observed in those clusters that fed it."""

    obj: Mapping[str, Any]
    clusters: tuple[str, ...]
    file_name: str
    selector: str | None  # canonical form of the annotation, None when absent
    division: ReplicaPlan | None = None
    observed: Mapping[str, WorkloadState] = field(default_factory=dict)

    def copy_for(self, cluster: str) -> Mapping[str, Any]:
        """The object as written to ``cluster``: with its share of the replicas."""
        if self.division is None:
            return self.obj
        spec = dict(self.obj.get("spec") or {})
        spec["replicas"] = self.division.replicas(cluster)
        return {**self.obj, "spec": spec}


class RoutingError(ClusterplaceError, ValueError):
    """Objects whose annotation is invalid: ``problems`` pairs each object's index with why."""

    def __init__(self, problems: Sequence[tuple[int, str]]) -> None:
        super().__init__("; ".join(msg for _, msg in problems))
        self.problems = list(problems)


INDEX_FROM = 64  # clusters from which selectors are answered by a LabelIndex

_KEEP = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
NAME_MAX = 255  # bytes in one file name, on every common file system


def _encode(text: str, keep: frozenset[str]) -> str:
    """``text`` with every character outside ``keep`` written as ``%XX`` (UTF-8 bytes),
    '%' included: distinct texts give distinct results, and no result holds a separator
    or a letter whose case a case-insensitive file system could fold."""
    if all(ch in keep for ch in text):
        return text
    return "".join(
        ch if ch in keep else "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        for ch in text
    )


def object_file_name(obj: Mapping[str, Any]) -> str:
    """A stable file name from kind (with API group), namespace and name.

    ``deployment.apps_shop_web.yaml``, ``configmap_default_settings.yaml``,
    ``namespace_shop.yaml``. Injective: the kind (lower-cased, since Kubernetes resolves
    kinds without regard to case) and each part are encoded so that ``.`` only ends the
    kind and ``_`` only separates parts; a namespaced object written without a
    namespace is in ``default``, as the API server would put it.
    """
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rpartition("/")[0]
    kind = _encode(str(obj.get("kind", "")).lower(), _KEEP)
    meta = obj.get("metadata") or {}
    parts = [f"{kind}.{_encode(group, _KEEP | {'.'})}" if group else kind]
    namespace = namespace_of(str(obj.get("kind", "")), meta.get("namespace"))
    if namespace is not None:
        parts.append(_encode(namespace, _KEEP | {"."}))
    parts.append(_encode(str(meta.get("name", "")), _KEEP | {"."}))
    return "_".join(parts) + ".yaml"


def _unsafe_name(obj: Mapping[str, Any], file_name: str) -> str | None:
    """Why the object cannot have ``file_name`` as a file of its own (None if it can)."""
    meta = obj.get("metadata") or {}
    if meta.get("name") in (".", ".."):
        return f"metadata.name {meta['name']!r} cannot be used in a file name"
    size = len(file_name.encode("utf-8"))
    if size > NAME_MAX:
        return (
            f"its file name would be {size} bytes long, and file systems allow {NAME_MAX}; "
            "use a shorter name"
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
    # Many clusters: each selector is answered over all of them at once (the same
    # answers as Selector.matches; tests/labels/test_index.py).
    label_index = LabelIndex(clusters[name] for name in names) if len(names) >= INDEX_FROM else None
    for index, obj in enumerate(objects):
        file_name = object_file_name(obj)
        unsafe = _unsafe_name(obj, file_name)
        if unsafe:
            problems.append((index, unsafe))
            continue
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        value = annotations.get(ANNOTATION)
        if value is None:
            routed.append(Routed(obj, tuple(names), file_name, None))
            continue
        if not isinstance(value, str):
            problems.append((index, f"annotation {ANNOTATION} must be a string"))
            continue
        try:
            selector = parse_cluster_selector(value)
        except SelectorError as err:
            problems.append((index, f"invalid {ANNOTATION} annotation: {err.message}"))
            continue
        if label_index is not None:
            chosen = tuple(names[i] for i in label_index.positions(selector).tolist())
        else:
            chosen = tuple(name for name in names if selector.matches(clusters[name]))
        routed.append(Routed(obj, chosen, file_name, str(selector)))
    if problems:
        raise RoutingError(problems)
    return routed
