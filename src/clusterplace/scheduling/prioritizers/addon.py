"""AddOn: scores published by add-ons in AddOnPlacementScore objects.

The score object ``resourceName`` lives in the cluster's namespace; its item
``scoreName`` is the score. Missing object or item: 0. Expired (``now`` past
``validUntil``): 0, and the placement gets a Warning listing the expired objects.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from clusterplace.api import AddOnPlacementScore
from clusterplace.scheduling.framework import (
    ADDON_SCORES,
    Context,
    PrioritizerPlugin,
    Scored,
    Status,
)
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["AddOnPrioritizer", "refresh_score"]


def _entry(found: AddOnPlacementScore | None, score_name: str, now: datetime) -> tuple[int, bool]:
    """(the score, whether the object has expired) from one AddOnPlacementScore."""
    if found is None:
        return 0, False
    valid_until = found.status.valid_until if found.status else None
    if valid_until is not None and now > valid_until:
        return 0, True
    value = found.score(score_name)
    return (0 if value is None else value), False


def refresh_score(snapshot: Snapshot, cluster: str, resource: str) -> None:
    """AddOnPlacementScore ``resource`` of ``cluster`` changed in ``snapshot.scores``:
    update the per-run indexes and forget the scores computed from the old one."""
    position = snapshot.index.get(cluster)
    if position is None:
        return
    found = snapshot.scores.get((cluster, resource))
    for key, index in snapshot.memo.items():
        if isinstance(key, tuple) and key[0] == "addon" and key[1] == resource:
            values, expired = index
            values[position], expired[position] = _entry(found, key[2], key[3])
    snapshot.forget_shared(f"AddOn/{resource}/")


class AddOnPrioritizer(PrioritizerPlugin):
    reads = frozenset({ADDON_SCORES})

    def __init__(self, resource_name: str, score_name: str) -> None:
        self.resource_name = resource_name
        self.score_name = score_name
        self.name = f"AddOn/{resource_name}/{score_name}"

    def _index(self, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
        """Every cluster's score (0 when none) and whether its score object has expired."""
        snapshot = ctx.snapshot
        values = np.zeros(len(snapshot.names), dtype=np.int64)
        expired = np.zeros(len(snapshot.names), dtype=bool)
        for (namespace, name), found in snapshot.scores.items():
            position = snapshot.index.get(namespace)
            if name != self.resource_name or position is None:
                continue
            values[position], expired[position] = _entry(found, self.score_name, ctx.now)
        return values, expired

    def score_ids(self, ctx: Context, ids: np.ndarray) -> Scored:
        return ctx.snapshot.shared(self.name, ids, lambda: self._score(ctx, ids))

    def _score(self, ctx: Context, ids: np.ndarray) -> Scored:
        key = ("addon", self.resource_name, self.score_name, ctx.now)
        values, expired = ctx.snapshot.cached(key, lambda: self._index(ctx))
        scores = values[ids]
        stale = ids[expired[ids]]
        if len(stale):
            names = " ".join(f"{n}/{self.resource_name}" for n in ctx.snapshot.names_of(stale))
            return Scored(
                scores, None, Status.warning(self.name, f"AddOnPlacementScores {names} expired")
            )
        return Scored(scores)
