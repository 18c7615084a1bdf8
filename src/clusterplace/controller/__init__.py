"""Live controllers on one reconcile engine: the placement controller keeps
PlacementDecisions and Placement status current, the ManifestWorkReplicaSet controller
keeps works current, with upstream's triggers and syncs, on any hub.

The engine and its controllers know nothing of files or HTTP: a hub
(:mod:`clusterplace.hub.directory`, :mod:`clusterplace.hub.kubernetes`) feeds the engine
changes and gives each controller a sink to write to. See docs/controller.md and
docs/controller-design.md.
"""

from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.delivery import DeliveryReconciler
from clusterplace.controller.engine import Controller, Engine, HubSourceEnded
from clusterplace.controller.enqueue import placements_to_sync
from clusterplace.controller.queue import WorkQueue
from clusterplace.controller.reconciler import Reconciler, SyncStats
from clusterplace.controller.sink import HubRefused, HubWriteError, HubWriteRejected, Sink
from clusterplace.controller.state import HubState
from clusterplace.controller.sync import SyncPlan, Write, plan_sync

__all__ = [
    "Controller",
    "DeliveryReconciler",
    "Engine",
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
