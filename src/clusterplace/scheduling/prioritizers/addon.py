"""AddOn: scores published by add-ons in AddOnPlacementScore objects.

The score object ``resourceName`` lives in the cluster's namespace; its item
``scoreName`` is the score. Missing object or item: 0. Expired (``now`` past
``validUntil``): 0, and the placement gets a Warning listing the expired objects.
"""

from __future__ import annotations

import numpy as np

from clusterplace.scheduling.framework import Context, PrioritizerPlugin, Scored, Status
from clusterplace.scheduling.snapshot import MEMO_LIMIT

__all__ = ["AddOnPrioritizer"]


class AddOnPrioritizer(PrioritizerPlugin):
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
            valid_until = found.status.valid_until if found.status else None
            if valid_until is not None and ctx.now > valid_until:
                expired[position] = True
                continue
            value = found.score(self.score_name)
            if value is not None:
                values[position] = value
        return values, expired

    def score_ids(self, ctx: Context, ids: np.ndarray) -> Scored:
        # The result depends only on which clusters are scored, so placements over the
        # same clusters share it (keyed by content; large sets are not worth keeping).
        if len(ids) > MEMO_LIMIT:
            return self._score(ctx, ids)
        return ctx.snapshot.cached(
            ("scored", self.name, ids.tobytes()), lambda: self._score(ctx, ids)
        )

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
