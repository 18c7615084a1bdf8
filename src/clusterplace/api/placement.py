"""Placement and PlacementDecision (cluster.open-cluster-management.io/v1beta1)."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, StringConstraints, field_validator

from clusterplace.api.base import (
    Condition,
    Int32,
    Int64,
    KubeModel,
    KubeObject,
    QualifiedName,
    StatusModel,
    Time,
)
from clusterplace.api.cluster import GROUP, TaintEffect
from clusterplace.api.selectors import ClaimSelector, LabelSelector

__all__ = [
    "DECISION_GROUP_INDEX_LABEL",
    "DECISION_GROUP_NAME_LABEL",
    "DISABLE_SCHEDULING_ANNOTATION",
    "PLACEMENT_LABEL",
    "AddOnScore",
    "ClusterDecision",
    "ClusterPredicate",
    "ClusterSelector",
    "DecisionGroup",
    "DecisionGroupStatus",
    "DecisionStrategy",
    "GroupStrategy",
    "Placement",
    "PlacementDecision",
    "PlacementSpec",
    "PlacementStatus",
    "PrioritizerConfig",
    "PrioritizerPolicy",
    "ScoreCoordinate",
    "SpreadConstraint",
    "SpreadPolicy",
    "Toleration",
    "decision_group_label",
]

PLACEMENT_LABEL = f"{GROUP}/placement"
DECISION_GROUP_NAME_LABEL = f"{GROUP}/decision-group-name"
DECISION_GROUP_INDEX_LABEL = f"{GROUP}/decision-group-index"
DISABLE_SCHEDULING_ANNOTATION = f"{GROUP}/experimental-scheduling-disable"


def decision_group_label(index: int | str, name: str | None = None) -> str:
    """A decision group as every output writes it: ``0`` for the unnamed group of index 0,
    ``0:canary`` for a named one."""
    return f"{index}:{name}" if name else str(index)


TOPOLOGY_KEY_PATTERN = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
)
GROUP_NAME_PATTERN = r"^[a-zA-Z0-9][-A-Za-z0-9_.]{0,61}[a-zA-Z0-9]$"
CLUSTERS_PER_GROUP_PATTERN = r"^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$"


class CelSelector(KubeModel):
    cel_expressions: list[str] | None = None


class ClusterSelector(KubeModel):
    """One predicate's selector: labels AND claims AND every CEL expression."""

    label_selector: LabelSelector | None = None
    claim_selector: ClaimSelector | None = None
    cel_selector: CelSelector | None = None


class ClusterPredicate(KubeModel):
    required_cluster_selector: ClusterSelector | None = None


class AddOnScore(KubeModel):
    resource_name: str
    score_name: str


class ScoreCoordinate(KubeModel):
    type: Literal["BuiltIn", "AddOn"] = "BuiltIn"
    built_in: str | None = None
    add_on: AddOnScore | None = Field(default=None, alias="addOn")


class PrioritizerConfig(KubeModel):
    score_coordinate: ScoreCoordinate
    weight: Annotated[int, Field(ge=-10, le=10)] = 1


class PrioritizerPolicy(KubeModel):
    # No enum upstream: an unknown mode is a controller-level misconfiguration.
    mode: str = "Additive"
    configurations: list[PrioritizerConfig] | None = None


class SpreadConstraint(KubeModel):
    topology_key: Annotated[str, StringConstraints(max_length=316, pattern=TOPOLOGY_KEY_PATTERN)]
    topology_key_type: Literal["Label", "Claim"]
    max_skew: Annotated[int, Field(ge=1, le=2**31 - 1)] = 1
    when_unsatisfiable: Literal["DoNotSchedule", "ScheduleAnyway"] = "ScheduleAnyway"


class SpreadPolicy(KubeModel):
    spread_constraints: Annotated[list[SpreadConstraint], Field(max_length=8)] | None = None


class Toleration(KubeModel):
    key: QualifiedName | None = None
    # No enum upstream: an unknown operator simply never matches.
    operator: str = "Equal"
    value: Annotated[str, StringConstraints(max_length=1024)] | None = None
    effect: TaintEffect | None = None
    toleration_seconds: Int64 | None = None


class GroupClusterSelector(KubeModel):
    label_selector: LabelSelector | None = None
    claim_selector: ClaimSelector | None = None


class DecisionGroup(KubeModel):
    group_name: Annotated[str, StringConstraints(pattern=GROUP_NAME_PATTERN)]
    group_cluster_selector: GroupClusterSelector


class GroupStrategy(KubeModel):
    decision_groups: list[DecisionGroup] | None = None
    clusters_per_decision_group: int | str = "100%"

    @field_validator("clusters_per_decision_group")
    @classmethod
    def _int_or_string(cls, value: int | str) -> int | str:
        # The CRD pattern applies to strings only; integers are taken as they are.
        if isinstance(value, str) and not re.fullmatch(CLUSTERS_PER_GROUP_PATTERN, value):
            raise ValueError(
                f"{value!r} must be a positive integer or a percentage from 1% to 100% "
                f"(pattern {CLUSTERS_PER_GROUP_PATTERN})"
            )
        return value


class DecisionStrategy(KubeModel):
    group_strategy: GroupStrategy | None = None


class PlacementSpec(KubeModel):
    cluster_sets: list[str] | None = None
    number_of_clusters: Int32 | None = None
    predicates: list[ClusterPredicate] | None = None
    prioritizer_policy: PrioritizerPolicy = Field(default_factory=PrioritizerPolicy)
    spread_policy: SpreadPolicy | None = None
    tolerations: list[Toleration] | None = None
    decision_strategy: DecisionStrategy | None = None
    sort_by: Literal["ClusterName", "Score"] | None = None
    score_rate_limit: Annotated[str, StringConstraints(pattern=r"^[0-9]+[hms]$")] | None = None


class DecisionGroupStatus(KubeModel):
    decision_group_index: Int32 = 0
    decision_group_name: str = ""
    decisions: list[str] = Field(default_factory=list)
    cluster_count: Int32 = 0


class PlacementStatus(StatusModel):
    number_of_selected_clusters: Int32 = 0
    decision_groups: list[DecisionGroupStatus] | None = None
    conditions: list[Condition] | None = None
    last_score_update_time: Time | None = None


class Placement(KubeObject):
    """What to select: cluster sets, predicates, prioritizers, tolerations, groups."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1beta1", f"{GROUP}/v1alpha1")
    KIND: ClassVar[str] = "Placement"

    spec: PlacementSpec = Field(default_factory=PlacementSpec)
    status: PlacementStatus | None = None


class ClusterDecision(KubeModel):
    """One entry of ``PlacementDecision.status.decisions``. Frozen, like ``Condition``:
    the scheduler shares one entry per cluster among every placement's decisions."""

    model_config = ConfigDict(frozen=True)

    cluster_name: str
    reason: str = ""
    score: Int64 | None = None


class PlacementDecisionStatus(StatusModel):
    decisions: list[ClusterDecision] = Field(default_factory=list)


class PlacementDecision(KubeObject):
    """One page (at most 100) of a Placement's selected clusters."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1beta1", f"{GROUP}/v1alpha1")
    KIND: ClassVar[str] = "PlacementDecision"

    status: PlacementDecisionStatus = Field(default_factory=PlacementDecisionStatus)

    @property
    def cluster_names(self) -> list[str]:
        return [d.cluster_name for d in self.status.decisions]
