"""AddOn: scores published by add-ons in AddOnPlacementScore objects.

The score object ``resourceName`` lives in the cluster's namespace; its item
``scoreName`` is the score. Missing object or item: 0. Expired (``now`` past
``validUntil``): 0, and the placement gets a Warning listing the expired objects.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from clusterplace.api import AddOnPlacementScore, ManagedCluster
from clusterplace.scheduling.framework import (
    ADDON_SCORES,
    Context,
    PrioritizerPlugin,
    Scored,
    Status,
)
from clusterplace.scheduling.shared import SharedScores
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["AddOnPrioritizer", "AddOnScoreIndex"]


def _entry(found: AddOnPlacementScore | None, score_name: str, now: datetime) -> tuple[int, bool]:
    """(the score, whether the object has expired) from one AddOnPlacementScore."""
    if found is None:
        return 0, False
    valid_until = found.status.valid_until if found.status else None
    if valid_until is not None and now > valid_until:
        return 0, True
    value = found.score(score_name)
    return (0 if value is None else value), False


class AddOnScoreIndex(SnapshotIndex):
    """For each (resource, score name): every cluster's score (0 when none) and whether
    its score object has expired, built on first use. The tables hold for one epoch
    between score expiries (:meth:`Snapshot.expiry_epoch`): a snapshot that lives on
    (the controller's) asks at a new time with every sync, and keeps its tables until
    a score expires."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._tables: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        self._epoch: tuple[int, int] | None = None
        self._now: datetime | None = None  # a time of that epoch (changes look at it)
        # For each table, a bound on its scores' absolute values (kept by changes: it
        # may stay above the largest after one shrinks, which is still a bound).
        self._limits: dict[tuple[str, str], int] = {}

    def values(
        self, resource: str, score_name: str, now: datetime
    ) -> tuple[np.ndarray, np.ndarray]:
        epoch = self.snapshot.expiry_epoch(now)
        if epoch != self._epoch:
            self._tables.clear()
            self._limits.clear()
            self._epoch, self._now = epoch, now
        key = (resource, score_name)
        found = self._tables.get(key)
        if found is None:
            found = self._tables[key] = self._build(resource, score_name, now)
            self._limits[key] = int(np.abs(found[0]).max()) if len(found[0]) else 0
        return found

    def limit(self, resource: str, score_name: str, now: datetime) -> int:
        """No score of :meth:`values` (same arguments) is larger in absolute value."""
        self.values(resource, score_name, now)
        return self._limits[(resource, score_name)]

    def _build(
        self, resource: str, score_name: str, now: datetime
    ) -> tuple[np.ndarray, np.ndarray]:
        snapshot = self.snapshot
        values = np.zeros(len(snapshot.names), dtype=np.int64)
        expired = np.zeros(len(snapshot.names), dtype=bool)
        for (namespace, name), found in snapshot.scores.items():
            position = snapshot.index.get(namespace)
            if name != resource or position is None:
                continue
            values[position], expired[position] = _entry(found, score_name, now)
        return values, expired

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """Scores are objects of their own, looked up by cluster name: nothing to do."""

    def on_score_changed(self, position: int, resource: str) -> None:
        found = self.snapshot.scores.get((self.snapshot.names[position], resource))
        now = self._now
        for key, (values, expired) in self._tables.items():
            table_resource, score_name = key
            if table_resource == resource and now is not None:
                value, expired[position] = _entry(found, score_name, now)
                values[position] = value
                self._limits[key] = max(self._limits[key], abs(value))


class AddOnPrioritizer(PrioritizerPlugin):
    reads = frozenset({ADDON_SCORES})
    per_placement = False  # shared through SharedScores by positions

    def __init__(self, resource_name: str, score_name: str) -> None:
        self.resource_name = resource_name
        self.score_name = score_name
        self.name = f"AddOn/{resource_name}/{score_name}"

    def score_positions(self, ctx: Context, positions: np.ndarray) -> Scored:
        shared = ctx.snapshot.index_of(SharedScores)
        return shared.get(
            self.name,
            self.reads,
            positions,
            lambda: self._score(ctx, positions),
            # Scores expire: what is shared holds between two expiries only.
            moment=ctx.snapshot.expiry_epoch(ctx.now),
        )

    def _score(self, ctx: Context, positions: np.ndarray) -> Scored:
        index = ctx.snapshot.index_of(AddOnScoreIndex)
        values, expired = index.values(self.resource_name, self.score_name, ctx.now)
        limit = index.limit(self.resource_name, self.score_name, ctx.now)
        scores = values[positions]
        stale = positions[expired[positions]]
        if len(stale):
            names = " ".join(f"{n}/{self.resource_name}" for n in ctx.snapshot.names_of(stale))
            warning = Status.warning(self.name, f"AddOnPlacementScores {names} expired")
            return Scored(scores, None, warning, limit)
        return Scored(scores, limit=limit)
