"""Scores shared by placements over the same clusters.

A prioritizer whose scores depend only on which clusters it scores (ResourceAllocatable,
AddOn) computes them once per set of positions; placements with the same candidates
and filters pass the very same set. Entries are kept per prioritizer with what it
reads, so a change drops exactly the entries it can affect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

import numpy as np

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.reads import ADDON_SCORES, cluster_changes
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["SHARED_LIMIT", "SharedScores"]

T = TypeVar("T")

# Sets of more positions than this are not kept: they are rarely repeated.
SHARED_LIMIT = 4096


class SharedScores(SnapshotIndex):
    """Results by prioritizer name and set of positions."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._tables: dict[str, dict[bytes, object]] = {}
        self._reads: dict[str, frozenset[str]] = {}
        self._moments: dict[str, object] = {}
        self._last_key: tuple[np.ndarray, bytes] | None = None  # see _content_key

    def get(
        self,
        name: str,
        reads: frozenset[str],
        positions: np.ndarray,
        compute: Callable[[], T],
        moment: object = None,
    ) -> T:
        """``compute()`` once per set of ``positions`` for prioritizer ``name``, which
        reads ``reads`` of the clusters at those positions and nothing else; and, when
        ``moment`` is given, what it reads of the time (an epoch between score expiries:
        results of another moment are dropped)."""
        if len(positions) > SHARED_LIMIT:
            return compute()
        table = self._tables.get(name)
        if table is None or self._moments[name] != moment:
            table = self._tables[name] = {}
            self._reads[name] = reads
            self._moments[name] = moment
        key = self._content_key(positions)
        try:
            return cast(T, table[key])  # stored by compute() below, for this name
        except KeyError:
            value = compute()
            table[key] = value
            return value

    def _content_key(self, positions: np.ndarray) -> bytes:
        """``positions.tobytes()``, reused while the same array is asked about (arrays of
        positions are never changed in place): placements over the same candidates pass
        the very same array to every prioritizer, and copying and hashing its bytes each
        time costs more than the lookup it serves."""
        last = self._last_key
        if last is None or last[0] is not positions:
            last = self._last_key = (positions, positions.tobytes())
        return last[1]

    def _forget(self, changed: frozenset[str]) -> None:
        for name in [n for n, reads in self._reads.items() if reads & changed]:
            del self._tables[name], self._reads[name], self._moments[name]

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        self._forget(cluster_changes(old, self.snapshot.cluster_list[position]))

    def on_score_changed(self, position: int, resource: str) -> None:
        self._forget(frozenset({ADDON_SCORES}))
