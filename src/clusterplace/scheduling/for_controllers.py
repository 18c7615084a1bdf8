"""What a live controller asks of the scheduler: the one door the controllers use.

A controller keeps a fleet current from a change stream and plans one placement at a
time; it needs the live fleet and its snapshot, the queueing hints that say which
plans still hold, one placement's scheduling, and the cluster sets' selectors for its
triggers. Everything else in the scheduling package (filters, prioritizers, indexes,
the pipeline) stays behind this face: an import-linter contract keeps the controllers
to it and to the package's public names.
"""

from __future__ import annotations

from clusterplace.scheduling.candidates import SetSelectorError, cluster_set_selector
from clusterplace.scheduling.hints import (
    QueueingHints,
    SyncRecord,
    decisions_as_held,
    planned_status,
    sync_record,
)
from clusterplace.scheduling.live import LiveFleet
from clusterplace.scheduling.scheduler import schedule_one
from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "LiveFleet",
    "QueueingHints",
    "SetSelectorError",
    "Snapshot",
    "SyncRecord",
    "cluster_set_selector",
    "decisions_as_held",
    "planned_status",
    "schedule_one",
    "sync_record",
]
