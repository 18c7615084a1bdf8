"""Delivery after placement: OCM's progressive rollout, as a pure function.

``plan_rollout(strategy, decisions, statuses, now)`` answers what OCM's rollout handler
answers for a ManifestWorkReplicaSet or an add-on: which clusters of a placement's
decisions get the workload now, which have passed their progress deadline, which left the
placement, whether failures broke the budget, and when to look again. See
docs/semantics.md, "Rollouts".
"""

from clusterplace.delivery.groups import GroupKey
from clusterplace.delivery.rollout import (
    ClusterRolloutStatus,
    RolloutInputError,
    RolloutResult,
    RolloutStatus,
    plan_rollout,
)
from clusterplace.delivery.strategy import RolloutStrategyError

__all__ = [
    "ClusterRolloutStatus",
    "GroupKey",
    "RolloutInputError",
    "RolloutResult",
    "RolloutStatus",
    "RolloutStrategyError",
    "plan_rollout",
]
