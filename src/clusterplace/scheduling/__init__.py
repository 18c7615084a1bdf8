"""Open Cluster Management Placement scheduling, faithful to upstream and explained.

>>> from clusterplace.codecs import expand_sources, load_fleet
>>> from clusterplace.scheduling import explain_placement, schedule
>>> result = schedule(load_fleet(expand_sources(["examples/fleet"])))  # doctest: +SKIP
>>> explain_placement(result, "apps", "analytics")  # doctest: +SKIP

The public face is what ``__all__`` lists (see docs/api.md); the pipeline's internals
live in the submodules.
"""

from __future__ import annotations

from clusterplace.scheduling.candidates import SetSelectorError, cluster_set_selector
from clusterplace.scheduling.counterfactual import SIDES, Suggestion, WhyNot, why_not
from clusterplace.scheduling.edits import Edit, EditError, parse_edit, parse_edits
from clusterplace.scheduling.events import Event
from clusterplace.scheduling.explain import ClusterExplanation, explain, explain_placement
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.hints import QueueingHints, SyncRecord, sync_record
from clusterplace.scheduling.hypothetical import PlacementDiff, WhatIf, what_if
from clusterplace.scheduling.incremental import ChangeReport, IncrementalSchedule
from clusterplace.scheduling.live import LiveFleet, Reach, differences
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.scheduler import schedule, schedule_one
from clusterplace.scheduling.settle import SETTLE_LIMIT, Settled, settle
from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "SETTLE_LIMIT",
    "SIDES",
    "ChangeReport",
    "ClusterExplanation",
    "Code",
    "Edit",
    "EditError",
    "Event",
    "IncrementalSchedule",
    "LiveFleet",
    "PlacementDiff",
    "PlacementResult",
    "QueueingHints",
    "Reach",
    "ScheduleResult",
    "SetSelectorError",
    "Settled",
    "Snapshot",
    "Status",
    "Suggestion",
    "SyncRecord",
    "WhatIf",
    "WhyNot",
    "cluster_set_selector",
    "differences",
    "explain",
    "explain_placement",
    "parse_edit",
    "parse_edits",
    "schedule",
    "schedule_one",
    "settle",
    "sync_record",
    "what_if",
    "why_not",
]
