"""AddOnPlacementScore (cluster.open-cluster-management.io/v1alpha1)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from clusterplace.api.base import Condition, KubeObject, StatusModel, Time
from clusterplace.api.cluster import GROUP

__all__ = ["AddOnPlacementScore", "AddOnPlacementScoreItem"]


class AddOnPlacementScoreItem(StatusModel):
    name: str
    value: Annotated[int, Field(ge=-100, le=100)]


class AddOnPlacementScoreStatus(StatusModel):
    conditions: list[Condition] | None = None
    scores: list[AddOnPlacementScoreItem] | None = None
    valid_until: Time | None = None


class AddOnPlacementScore(KubeObject):
    """Scores an add-on publishes for one cluster, in that cluster's namespace."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1alpha1",)
    KIND: ClassVar[str] = "AddOnPlacementScore"

    status: AddOnPlacementScoreStatus | None = None

    def score(self, name: str) -> int | None:
        """The value of score ``name``, or None when this object has no such score."""
        for item in (self.status.scores if self.status else None) or []:
            if item.name == name:
                return item.value
        return None
