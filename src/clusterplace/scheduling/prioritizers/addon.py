"""AddOn: scores published by add-ons in AddOnPlacementScore objects.

The score object ``resourceName`` lives in the cluster's namespace; its item
``scoreName`` is the score. Missing object or item: 0. Expired (``now`` past
``validUntil``): 0, and the placement gets a Warning listing the expired objects.
"""

from __future__ import annotations

from collections.abc import Sequence

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import Context, ScoreResult, Status

__all__ = ["AddOnPrioritizer"]


class AddOnPrioritizer:
    def __init__(self, resource_name: str, score_name: str) -> None:
        self.resource_name = resource_name
        self.score_name = score_name
        self.name = f"AddOn/{resource_name}/{score_name}"

    def _index(self, ctx: Context) -> tuple[dict[str, int], set[str]]:
        """Every cluster's score and the clusters whose score object has expired."""
        values: dict[str, int] = {}
        expired: set[str] = set()
        for (namespace, name), found in ctx.snapshot.scores.items():
            if name != self.resource_name:
                continue
            valid_until = found.status.valid_until if found.status else None
            if valid_until is not None and ctx.now > valid_until:
                expired.add(namespace)
                continue
            value = found.score(self.score_name)
            if value is not None:
                values[namespace] = value
        return values, expired

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        key = ("addon", self.resource_name, self.score_name, ctx.now)
        values, stale = ctx.snapshot.cached(key, lambda: self._index(ctx))
        scores = {c.name: values.get(c.name, 0) for c in clusters}
        expired = [f"{c.name}/{self.resource_name}" for c in clusters if c.name in stale]
        if expired:
            message = f"AddOnPlacementScores {' '.join(expired)} expired"
            return ScoreResult(scores, Status.warning(self.name, message))
        return ScoreResult(scores)
