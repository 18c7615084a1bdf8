"""Open Cluster Management Placement scheduling, faithful to upstream and explained.

>>> from clusterplace.api import expand_sources, load_fleet
>>> from clusterplace.scheduling import schedule
>>> result = schedule(load_fleet(expand_sources(["examples/fleet"])))  # doctest: +SKIP
"""

from clusterplace.scheduling.explain import ClusterExplanation, explain
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.schedule import Outcome, schedule_placement
from clusterplace.scheduling.scheduler import PlacementResult, ScheduleResult, schedule
from clusterplace.scheduling.snapshot import DecisionStore, Snapshot

__all__ = [
    "ClusterExplanation",
    "Code",
    "DecisionStore",
    "Outcome",
    "PlacementResult",
    "ScheduleResult",
    "Snapshot",
    "Status",
    "explain",
    "schedule",
    "schedule_placement",
]
