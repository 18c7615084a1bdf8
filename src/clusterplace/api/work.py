"""ManifestWork (work.open-cluster-management.io/v1), ManifestWorkReplicaSet (v1alpha1)
and the RolloutStrategy they use (cluster.open-cluster-management.io/v1alpha1).

Validation is the CRDs': enums, patterns and required fields. What the admission webhook
checks beyond them (manifests present, named, unique and under the size limit) is
:func:`clusterplace.delivery.template_problems`, reported as upstream's webhook would
refuse the object.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints, field_validator

from clusterplace.api.base import Condition, Int32, Int64, KubeModel, KubeObject, StatusModel

__all__ = [
    "MWRS_FINALIZER",
    "MWRS_LABEL",
    "MWRS_PLACEMENT_LABEL",
    "WORK_GROUP",
    "LocalPlacementReference",
    "MandatoryDecisionGroup",
    "ManifestWork",
    "ManifestWorkReplicaSet",
    "ManifestWorkReplicaSetStatus",
    "ManifestWorkSpec",
    "PlacementSummary",
    "ReplicaSetSummary",
    "RolloutStrategy",
]

WORK_GROUP = "work.open-cluster-management.io"
MWRS_LABEL = f"{WORK_GROUP}/manifestworkreplicaset"  # "<namespace>.<name>" of the owner
MWRS_PLACEMENT_LABEL = f"{WORK_GROUP}/placementname"
MWRS_FINALIZER = f"{WORK_GROUP}/manifest-work-cleanup"

# The CRD's patterns (types_rolloutstrategy.go).
ROLLOUT_SIZE_PATTERN = r"^((100|[0-9]{1,2})%|[0-9]+)$"
DEADLINE_PATTERN = r"^(([0-9])+[h|m|s])|None$"


class Workload(KubeModel):
    manifests: list[dict[str, Any]] = Field(default_factory=list)


class DeleteOption(KubeModel):
    propagation_policy: Literal["Foreground", "Orphan", "SelectivelyOrphan"] = "Foreground"
    selectively_orphans: dict[str, Any] | None = None
    ttl_seconds_after_finished: Int64 | None = None


class ManifestWorkSpec(KubeModel):
    """What a work agent applies on its cluster. ``manifestConfigs`` and ``executor``
    are carried as written: clusterplace hands them to the agent and never reads them."""

    workload: Workload = Field(default_factory=Workload)
    delete_option: DeleteOption | None = None
    manifest_configs: list[dict[str, Any]] | None = None
    executor: dict[str, Any] | None = None


class ManifestWorkStatus(StatusModel):
    conditions: list[Condition] | None = None
    resource_status: dict[str, Any] | None = None


class ManifestWork(KubeObject):
    """One cluster's share of a delivery: in the namespace named after the cluster."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{WORK_GROUP}/v1",)
    KIND: ClassVar[str] = "ManifestWork"

    spec: ManifestWorkSpec = Field(default_factory=ManifestWorkSpec)
    status: ManifestWorkStatus | None = None

    def condition(self, kind: str) -> Condition | None:
        """The status condition of type ``kind``, if the agent wrote one."""
        for condition in (self.status.conditions if self.status else None) or ():
            if condition.type == kind:
                return condition
        return None


def _rollout_size(value: int | str) -> int | str:
    if isinstance(value, str) and not re.fullmatch(ROLLOUT_SIZE_PATTERN, value):
        raise ValueError(
            f"{value!r} must be a count or a percentage from 0% to 100% "
            f"(pattern {ROLLOUT_SIZE_PATTERN})"
        )
    return value


class RolloutConfig(KubeModel):
    min_success_time: str | None = None
    progress_deadline: Annotated[str, StringConstraints(pattern=DEADLINE_PATTERN)] | None = None
    max_failures: int | str | None = None

    @field_validator("max_failures")
    @classmethod
    def _failures(cls, value: int | str) -> int | str:
        return _rollout_size(value)


class MandatoryDecisionGroup(KubeModel):
    group_name: str | None = None
    group_index: Int32 | None = None


class RolloutProgressive(RolloutConfig):
    mandatory_decision_groups: list[MandatoryDecisionGroup] | None = None
    max_concurrency: int | str | None = None

    @field_validator("max_concurrency")
    @classmethod
    def _concurrency(cls, value: int | str) -> int | str:
        return _rollout_size(value)


class RolloutProgressivePerGroup(RolloutConfig):
    mandatory_decision_groups: list[MandatoryDecisionGroup] | None = None


class RolloutStrategy(KubeModel):
    """How a placement's clusters receive a change: all at once, a sliding window of
    clusters, or one decision group after another."""

    type: Literal["All", "Progressive", "ProgressivePerGroup"] | None = "All"
    all: RolloutConfig | None = None
    progressive: RolloutProgressive | None = None
    progressive_per_group: RolloutProgressivePerGroup | None = None


class LocalPlacementReference(KubeModel):
    name: Annotated[str, StringConstraints(min_length=1)]
    rollout_strategy: RolloutStrategy = Field(
        default_factory=lambda: RolloutStrategy(type="All", all=RolloutConfig())
    )


class ManifestWorkReplicaSetSpec(KubeModel):
    manifest_work_template: ManifestWorkSpec = Field(default_factory=ManifestWorkSpec)
    placement_refs: Annotated[list[LocalPlacementReference], Field(min_length=1)]
    cascade_deletion_policy: Literal["Background", "Foreground"] = "Background"


class ReplicaSetSummary(StatusModel):
    total: int = 0
    progressing: int = 0
    available: int = 0
    degraded: int = 0
    applied: int = 0


class PlacementSummary(StatusModel):
    name: str
    available_decision_groups: str = ""
    summary: ReplicaSetSummary = Field(default_factory=ReplicaSetSummary)


class ManifestWorkReplicaSetStatus(StatusModel):
    conditions: list[Condition] | None = None
    summary: ReplicaSetSummary = Field(default_factory=ReplicaSetSummary)
    placement_summary: list[PlacementSummary] | None = None


class ManifestWorkReplicaSet(KubeObject):
    """A ManifestWork template delivered to every cluster its placements decide, by
    each placement's rollout strategy."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{WORK_GROUP}/v1alpha1",)
    KIND: ClassVar[str] = "ManifestWorkReplicaSet"

    spec: ManifestWorkReplicaSetSpec
    status: ManifestWorkReplicaSetStatus | None = None

    @property
    def owner_key(self) -> str:
        """The value of :data:`MWRS_LABEL` on the works it owns."""
        return f"{self.namespace}.{self.name}"
