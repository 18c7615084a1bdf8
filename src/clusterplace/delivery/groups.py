"""A placement's decision groups, as OCM's ``PlacementDecisionClustersTracker`` sees them.

Every PlacementDecision carries a group name and a group index (upstream reads them from
the decision's ``decision-group-name`` and ``decision-group-index`` labels); decisions
with the same pair form one group, a set of cluster names. The tracker answers two
questions the rollout asks: the groups named by a list of keys (a name stands for every
index carrying it), and every group except those. The second walks the indices
0, 1, ..., n-1 where n is the number of distinct indices, so a group whose index falls
outside that range (a gap, or a negative index) is never part of "every group".

Where upstream's answer would depend on Go's map order, which only happens for inputs a
real placement never produces, we decide: when one index carries several names, the
index belongs to the smallest name; groups of equal index are taken in name order; a
cluster in several groups reports the group of smallest (index, name).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["ClusterGroups", "DecisionTracker", "GroupKey", "all_clusters", "ordered_keys"]


@dataclass(frozen=True)
class GroupKey:
    """A decision group: its name (may be empty) and its index."""

    group_name: str = ""
    group_index: int = 0


ClusterGroups = Mapping[GroupKey, frozenset[str]]


def _order(key: GroupKey) -> tuple[int, str]:
    return key.group_index, key.group_name


def ordered_keys(groups: ClusterGroups) -> list[GroupKey]:
    """Upstream's ``GetOrderedGroupKeys``: the groups by ascending index."""
    return sorted(groups, key=_order)


def all_clusters(groups: ClusterGroups) -> set[str]:
    """Upstream's ``GetClusters``: every cluster of every group."""
    found: set[str] = set()
    for clusters in groups.values():
        found |= clusters
    return found


def cluster_to_group_key(groups: ClusterGroups) -> dict[str, GroupKey]:
    """Upstream's ``ClusterToGroupKey``: the group each cluster reports."""
    found: dict[str, GroupKey] = {}
    for key in ordered_keys(groups):
        for cluster in groups[key]:
            found.setdefault(cluster, key)
    return found


class DecisionTracker:
    """The groups of one placement's decisions, and upstream's two lookups over them."""

    def __init__(self, groups: Mapping[GroupKey, Iterable[str]]) -> None:
        self.groups: dict[GroupKey, frozenset[str]] = {
            key: frozenset(clusters) for key, clusters in groups.items()
        }
        self.index_to_name: dict[int, str] = {}
        self.name_to_indices: dict[str, list[int]] = {}
        for key in ordered_keys(self.groups):
            self.index_to_name.setdefault(key.group_index, key.group_name)
            self.name_to_indices.setdefault(key.group_name, []).append(key.group_index)

    def fulfill(self, keys: Sequence[GroupKey]) -> list[GroupKey]:
        """Upstream's ``fulfillGroupKeys``: a key with a name stands for every index of
        that name (ascending); a key without one for its index, under that index's name."""
        full: list[GroupKey] = []
        for key in keys:
            if key.group_name:
                for index in self.name_to_indices.get(key.group_name, ()):
                    full.append(GroupKey(key.group_name, index))
            elif key.group_index in self.index_to_name:
                full.append(GroupKey(self.index_to_name[key.group_index], key.group_index))
        return full

    def existing(self, keys: Sequence[GroupKey]) -> dict[GroupKey, frozenset[str]]:
        """Upstream's ``ExistingClusterGroups``: the groups the keys name."""
        return {key: self.groups[key] for key in self.fulfill(keys) if key in self.groups}

    def existing_besides(self, keys: Sequence[GroupKey] = ()) -> dict[GroupKey, frozenset[str]]:
        """Upstream's ``ExistingClusterGroupsBesides``: the groups at indices
        0 .. (number of distinct indices - 1) that the keys do not name."""
        excluded = set(self.fulfill(keys))
        found: dict[GroupKey, frozenset[str]] = {}
        for index in range(len(self.index_to_name)):
            key = GroupKey(self.index_to_name.get(index, ""), index)
            if key not in excluded and key in self.groups:
                found[key] = self.groups[key]
        return found
