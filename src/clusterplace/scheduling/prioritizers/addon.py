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

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        scores: dict[str, int] = {}
        expired: list[str] = []
        for cluster in clusters:
            scores[cluster.name] = 0
            found = ctx.snapshot.scores.get((cluster.name, self.resource_name))
            if found is None:
                continue
            valid_until = found.status.valid_until if found.status else None
            if valid_until is not None and ctx.now > valid_until:
                expired.append(f"{cluster.name}/{self.resource_name}")
                continue
            value = found.score(self.score_name)
            if value is not None:
                scores[cluster.name] = value
        if expired:
            message = f"AddOnPlacementScores {' '.join(expired)} expired"
            return ScoreResult(scores, Status.warning(self.name, message))
        return ScoreResult(scores)
