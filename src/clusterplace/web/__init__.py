"""The fleet explorer: a local, read-only web app over the scheduling engine
(``clusterplace serve``). Nothing in the core imports it."""

from clusterplace.web.app import create_app
from clusterplace.web.guards import HostRule, served_hosts
from clusterplace.web.state import Explorer, FleetSource

__all__ = ["Explorer", "FleetSource", "HostRule", "create_app", "served_hosts"]
