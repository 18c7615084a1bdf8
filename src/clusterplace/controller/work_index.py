"""The hub's ManifestWorkReplicaSets and ManifestWorks, with the indexes delivery reads.

Part of the one cache of hub objects (:class:`clusterplace.controller.state.HubState`):
the Placements and PlacementDecisions an MWRS refers to are read from the same cache as
the placement controller's, so this holds only what the placement controller does not
watch, and two indexes over it: the works each MWRS owns (by its owner label), and the
MWRSs that name each placement. Only :meth:`WorkIndex.record` changes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from clusterplace.api import KubeObject, ManifestWork, ManifestWorkReplicaSet
from clusterplace.api.work import MWRS_LABEL
from clusterplace.controller.changes import Key

__all__ = ["WorkIndex", "work_set_owner"]


def work_set_owner(work: ManifestWork) -> Key | None:
    """The MWRS a work's owner label names (``<namespace>.<name>``, exactly one dot)."""
    value = work.labels.get(MWRS_LABEL)
    if value is None:
        return None
    parts = value.split(".")
    return (parts[0], parts[1]) if len(parts) == 2 else None


class WorkIndex:
    """The watched MWRSs and ManifestWorks by (namespace, name), and their indexes."""

    def __init__(self) -> None:
        self.work_sets: dict[Key, ManifestWorkReplicaSet] = {}
        self.works: dict[Key, ManifestWork] = {}
        self._owned: dict[Key, set[Key]] = defaultdict(set)  # MWRS -> its works
        self._users: dict[Key, set[Key]] = defaultdict(set)  # placement -> MWRSs naming it

    def get(self, obj: KubeObject) -> KubeObject | None:
        key = (obj.namespace, obj.name)
        if isinstance(obj, ManifestWorkReplicaSet):
            return self.work_sets.get(key)
        if isinstance(obj, ManifestWork):
            return self.works.get(key)
        return None

    def record(self, old: KubeObject | None, new: KubeObject | None) -> None:
        """Replace ``old`` (None: an addition) by ``new`` (None: a deletion)."""
        obj = new if new is not None else old
        assert obj is not None
        key = (obj.namespace, obj.name)
        table: dict[Key, KubeObject]
        if isinstance(obj, ManifestWorkReplicaSet):
            table = self.work_sets  # type: ignore[assignment]
        elif isinstance(obj, ManifestWork):
            table = self.works  # type: ignore[assignment]
        else:
            return
        if new is None:
            table.pop(key, None)
        else:
            table[key] = new
        for version, step in ((old, -1), (new, +1)):
            if version is not None:
                self._index(key, version, step)

    def _index(self, key: Key, obj: KubeObject, step: int) -> None:
        def move(index: dict[Key, set[Key]], at: Key) -> None:
            if step > 0:
                index[at].add(key)
                return
            members = index.get(at)
            if members is not None:
                members.discard(key)
                if not members:
                    del index[at]

        if isinstance(obj, ManifestWorkReplicaSet):
            for ref in obj.spec.placement_refs:
                move(self._users, (obj.namespace, ref.name))
        elif isinstance(obj, ManifestWork):
            owner = work_set_owner(obj)
            if owner is not None:
                move(self._owned, owner)

    def owned(self, key: Key) -> list[ManifestWork]:
        """The works carrying MWRS ``key``'s owner label, by (namespace, name)."""
        return [self.works[k] for k in sorted(self._owned.get(key, ()))]

    def keys(self) -> list[Key]:
        """Every MWRS, and every owner a work's label names (an MWRS deleted while
        nobody watched still has works to clean up), sorted."""
        owners = {owner for owner, works in self._owned.items() if works}
        return sorted(owners.union(self.work_sets))

    def users(self, placements: Iterable[Key]) -> set[Key]:
        """The MWRSs that name any of ``placements``."""
        found: set[Key] = set()
        for placement in placements:
            found.update(self._users.get(placement, ()))
        return found
