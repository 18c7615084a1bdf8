"""A live placement controller: keeps PlacementDecisions and Placement status current as
the hub changes, with upstream's triggers and sync, on any hub.

The reconcile core here knows nothing of files or HTTP: a hub
(:mod:`clusterplace.hub.directory`, :mod:`clusterplace.hub.kubernetes`) feeds it changes and
gives it a :class:`Sink` to write to. See docs/controller.md.
"""

from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.enqueue import placements_to_sync
from clusterplace.controller.queue import WorkQueue
from clusterplace.controller.reconciler import HubSourceEnded, Reconciler, SyncStats
from clusterplace.controller.sink import HubRefused, HubWriteError, HubWriteRejected, Sink
from clusterplace.controller.state import HubState
from clusterplace.controller.sync import SyncPlan, Write, plan_sync

__all__ = [
    "HubRefused",
    "HubSourceEnded",
    "HubState",
    "HubWriteError",
    "HubWriteRejected",
    "Key",
    "ObjectChange",
    "Reconciler",
    "Sink",
    "SyncPlan",
    "SyncStats",
    "WorkQueue",
    "Write",
    "placements_to_sync",
    "plan_sync",
]
