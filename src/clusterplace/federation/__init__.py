"""Kubernetes Federation ClusterSelector: route objects to clusters by their labels."""

from clusterplace.federation.cluster_selector import (
    ANNOTATION,
    OPERATOR_ALIASES,
    parse_cluster_selector,
    send_to_cluster,
)
from clusterplace.federation.routing import Routed, RoutingError, object_file_name, route

__all__ = [
    "ANNOTATION",
    "OPERATOR_ALIASES",
    "Routed",
    "RoutingError",
    "object_file_name",
    "parse_cluster_selector",
    "route",
    "send_to_cluster",
]
