"""Open Cluster Management Placement scheduling, faithful to upstream and explained.

>>> from clusterplace.codecs import expand_sources, load_fleet
>>> from clusterplace.scheduling import explain_placement, schedule
>>> result = schedule(load_fleet(expand_sources(["examples/fleet"])))  # doctest: +SKIP
>>> explain_placement(result, "apps", "analytics")  # doctest: +SKIP

The public face is what ``__all__`` lists (see docs/api.md); the pipeline's internals
live in the submodules, and what a live controller needs of them is
:mod:`clusterplace.scheduling.for_controllers`.
"""

from __future__ import annotations

from clusterplace.scheduling.candidates import SetSelectorError, cluster_set_selector
from clusterplace.scheduling.counterfactual import SIDES, Suggestion, WhyNot, why_not
from clusterplace.scheduling.edits import Edit, EditError, parse_edit, parse_edits
from clusterplace.scheduling.events import Event
from clusterplace.scheduling.explain import ClusterExplanation, explain, explain_placement
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.hypothetical import PlacementDiff, WhatIf, what_if
from clusterplace.scheduling.incremental import ChangeReport, IncrementalSchedule
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.scheduler import schedule, schedule_one
from clusterplace.scheduling.settle import SETTLE_LIMIT, Settled, settle

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
    "PlacementDiff",
    "PlacementResult",
    "ScheduleResult",
    "SetSelectorError",
    "Settled",
    "Status",
    "Suggestion",
    "WhatIf",
    "WhyNot",
    "cluster_set_selector",
    "explain",
    "explain_placement",
    "parse_edit",
    "parse_edits",
    "schedule",
    "schedule_one",
    "settle",
    "what_if",
    "why_not",
]
