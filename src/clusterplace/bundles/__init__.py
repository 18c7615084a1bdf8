"""Per-cluster output directories (bundles) that clusterplace writes and keeps tidy."""

from clusterplace.bundles.route_dir import (
    INDEX_NAME,
    Change,
    RoutePlan,
    apply_plan,
    plan_route_dir,
    route_into,
)

__all__ = ["INDEX_NAME", "Change", "RoutePlan", "apply_plan", "plan_route_dir", "route_into"]
