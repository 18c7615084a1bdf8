"""Delivery after placement: OCM's progressive rollout, as a pure function.

``plan_rollout(strategy, decisions, statuses, now)`` answers what OCM's rollout handler
answers for a ManifestWorkReplicaSet or an add-on: which clusters of a placement's
decisions get the workload now, which have passed their progress deadline, which left the
placement, whether failures broke the budget, and when to look again. See
docs/semantics.md, "Rollouts".

``plan_replica_set`` plans one sync of a ManifestWorkReplicaSet, the rollout's consumer:
which ManifestWorks to write and delete, and the status (docs/semantics.md, "Delivery").
``explain_rollout`` reads such a plan back as words: every cluster's state, and why each
waiting cluster waits.
"""

from clusterplace.delivery.explain import (
    RolloutExplanation,
    UnknownReplicaSetError,
    explain_fleet_rollout,
    explain_rollout,
)
from clusterplace.delivery.groups import GroupKey
from clusterplace.delivery.replicaset import (
    HALTED,
    WARNINGS,
    WORKS_DEGRADED,
    PlacementRollout,
    ReplicaSetPlan,
    plan_replica_set,
)
from clusterplace.delivery.rollout import (
    ClusterRolloutStatus,
    RolloutInputError,
    RolloutResult,
    RolloutStatus,
    RolloutStop,
    StopRule,
    plan_rollout,
)
from clusterplace.delivery.strategy import RolloutStrategyError
from clusterplace.delivery.works import (
    DecisionGroupError,
    decision_pages,
    desired_work,
    rollout_status,
    same_work,
    template_problems,
)

__all__ = [
    "HALTED",
    "WARNINGS",
    "WORKS_DEGRADED",
    "ClusterRolloutStatus",
    "DecisionGroupError",
    "GroupKey",
    "PlacementRollout",
    "ReplicaSetPlan",
    "RolloutExplanation",
    "RolloutInputError",
    "RolloutResult",
    "RolloutStatus",
    "RolloutStop",
    "RolloutStrategyError",
    "StopRule",
    "UnknownReplicaSetError",
    "decision_pages",
    "desired_work",
    "explain_fleet_rollout",
    "explain_rollout",
    "plan_replica_set",
    "plan_rollout",
    "rollout_status",
    "same_work",
    "template_problems",
]
