"""Kubernetes Federation v1: route objects to clusters by their ClusterSelector, and
divide Deployments' and ReplicaSets' replicas among those clusters as the Federation
replica scheduler did."""

from clusterplace.federation.cluster_selector import (
    ANNOTATION,
    OPERATOR_ALIASES,
    parse_cluster_selector,
    send_to_cluster,
)
from clusterplace.federation.division import (
    DivisionError,
    DivisionWarning,
    WorkloadFieldError,
    divide_one,
    divide_workloads,
    preferences_annotation,
    route_and_divide,
    spec_replicas,
    workload_key,
)
from clusterplace.federation.fnv import fnv1_32
from clusterplace.federation.observed import (
    WORKLOAD_KINDS,
    ClusterState,
    ObservedError,
    WorkloadState,
    check_observed,
    is_workload,
)
from clusterplace.federation.replica_preferences import (
    DEPLOYMENT_PREFERENCES,
    REPLICA_SET_PREFERENCES,
    ClusterPreferences,
    PreferencesError,
    ReplicaPreferences,
    parse_preferences,
)
from clusterplace.federation.replicas import DIVISIONS, PlanInputError, ReplicaPlan, plan_replicas
from clusterplace.federation.routing import Routed, RoutingError, object_file_name, route

__all__ = [
    "ANNOTATION",
    "DEPLOYMENT_PREFERENCES",
    "DIVISIONS",
    "OPERATOR_ALIASES",
    "REPLICA_SET_PREFERENCES",
    "WORKLOAD_KINDS",
    "ClusterPreferences",
    "ClusterState",
    "DivisionError",
    "DivisionWarning",
    "ObservedError",
    "PlanInputError",
    "PreferencesError",
    "ReplicaPlan",
    "ReplicaPreferences",
    "Routed",
    "RoutingError",
    "WorkloadFieldError",
    "WorkloadState",
    "check_observed",
    "divide_one",
    "divide_workloads",
    "fnv1_32",
    "is_workload",
    "object_file_name",
    "parse_cluster_selector",
    "parse_preferences",
    "plan_replicas",
    "preferences_annotation",
    "route",
    "route_and_divide",
    "send_to_cluster",
    "spec_replicas",
    "workload_key",
]
