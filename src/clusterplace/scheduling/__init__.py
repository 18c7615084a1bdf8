"""Open Cluster Management Placement scheduling, faithful to upstream and explained.

>>> from clusterplace.codecs import expand_sources, load_fleet
>>> from clusterplace.scheduling import explain_placement, schedule
>>> result = schedule(load_fleet(expand_sources(["examples/fleet"])))  # doctest: +SKIP
>>> explain_placement(result, "apps", "analytics")  # doctest: +SKIP

The public face is what ``__all__`` lists (see docs/api.md); the pipeline's internals
live in the submodules.
"""

from __future__ import annotations

from clusterplace.scheduling.counterfactual import Suggestion, WhyNot, why_not
from clusterplace.scheduling.edits import Edit, EditError, parse_edit, parse_edits
from clusterplace.scheduling.explain import ClusterExplanation, explain, explain_placement
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.hypothetical import PlacementDiff, WhatIf, what_if
from clusterplace.scheduling.incremental import ChangeReport, IncrementalSchedule
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.scheduler import schedule

__all__ = [
    "ChangeReport",
    "ClusterExplanation",
    "Code",
    "Edit",
    "EditError",
    "IncrementalSchedule",
    "PlacementDiff",
    "PlacementResult",
    "ScheduleResult",
    "Status",
    "Suggestion",
    "WhatIf",
    "WhyNot",
    "explain",
    "explain_placement",
    "parse_edit",
    "parse_edits",
    "schedule",
    "what_if",
    "why_not",
]
