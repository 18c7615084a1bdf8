"""A fleet: every typed object of one input, indexed the way placement looks them up."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from clusterplace.api.addon import AddOnPlacementScore
from clusterplace.api.base import KubeObject
from clusterplace.api.cluster import ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding
from clusterplace.api.core import ConfigMap
from clusterplace.api.module import DefinitionModule
from clusterplace.api.placement import Placement, PlacementDecision
from clusterplace.api.work import ManifestWork, ManifestWorkReplicaSet

if TYPE_CHECKING:  # reading lives in clusterplace.codecs, which imports this module
    from clusterplace.codecs.loader import Document

__all__ = ["Fleet"]

NamespacedKey = tuple[str, str]  # (namespace, name)


@dataclass
class Fleet:
    """Typed objects by kind; cluster-scoped kinds keyed by name, others by (namespace, name).

    ``unknown`` holds the documents of kinds clusterplace does not model, so a
    command can report them instead of silently dropping them.
    """

    clusters: dict[str, ManagedCluster] = field(default_factory=dict)
    cluster_sets: dict[str, ManagedClusterSet] = field(default_factory=dict)
    bindings: dict[NamespacedKey, ManagedClusterSetBinding] = field(default_factory=dict)
    placements: dict[NamespacedKey, Placement] = field(default_factory=dict)
    decisions: dict[NamespacedKey, PlacementDecision] = field(default_factory=dict)
    scores: dict[NamespacedKey, AddOnPlacementScore] = field(default_factory=dict)
    config_maps: dict[NamespacedKey, ConfigMap] = field(default_factory=dict)
    modules: dict[str, DefinitionModule] = field(default_factory=dict)
    work_sets: dict[NamespacedKey, ManifestWorkReplicaSet] = field(default_factory=dict)
    works: dict[NamespacedKey, ManifestWork] = field(default_factory=dict)
    unknown: list[Document] = field(default_factory=list)

    @classmethod
    def of(cls, objects: Iterable[KubeObject]) -> Fleet:
        """A fleet of already-typed objects (the library entry point; no duplicate check)."""
        fleet = cls()
        for obj in objects:
            fleet.add(obj)
        return fleet

    def _tables(self) -> dict[type[KubeObject], dict[Any, Any]]:
        return {
            ManagedCluster: self.clusters,
            ManagedClusterSet: self.cluster_sets,
            ManagedClusterSetBinding: self.bindings,
            Placement: self.placements,
            PlacementDecision: self.decisions,
            AddOnPlacementScore: self.scores,
            ConfigMap: self.config_maps,
            DefinitionModule: self.modules,
            ManifestWorkReplicaSet: self.work_sets,
            ManifestWork: self.works,
        }

    def _table(self, obj: KubeObject) -> dict[Any, Any] | None:
        return self._tables().get(type(obj))

    @staticmethod
    def key(obj: KubeObject) -> object:
        return (obj.namespace, obj.name) if obj.NAMESPACED else obj.name

    def get(self, obj: KubeObject) -> KubeObject | None:
        """The object of this fleet with the same kind and identity as ``obj``."""
        table = self._table(obj)
        return None if table is None else table.get(self.key(obj))

    def add(self, obj: KubeObject) -> None:
        table = self._table(obj)
        if table is not None:
            table[self.key(obj)] = obj

    def remove(self, obj: KubeObject) -> KubeObject | None:
        """Remove and return the object of ``obj``'s kind and identity (None if absent)."""
        table = self._table(obj)
        return None if table is None else table.pop(self.key(obj), None)

    def copy(self) -> Fleet:
        """A fleet with tables of its own (objects shared): changes to either table
        set never show in the other."""
        return Fleet(
            **{f.name: type(getattr(self, f.name))(getattr(self, f.name)) for f in fields(self)}
        )

    def objects(self) -> list[KubeObject]:
        """Every typed object, kinds in a fixed order, each kind sorted by identity."""
        return [table[k] for table in self._tables().values() for k in sorted(table)]
