"""The Federation sync controller into targets: ``route --watch``.

:mod:`.inputs` watches what ``route`` reads (manifests, fleet, observed state) with
:mod:`clusterplace.watch`; :mod:`.engine` (:class:`RouteSync`) keeps what each member
cluster should hold current and routes again only what a change can reach, with the
pure :func:`clusterplace.federation.route_and_divide`; a :class:`Target` holds the
copies (:mod:`.folder`: a ``route`` output folder, written crash-safely); :mod:`.run` is
the watch loop.
"""

from clusterplace.fedsync.engine import RouteSync, summary
from clusterplace.fedsync.folder import FolderTarget
from clusterplace.fedsync.inputs import InputState, RouteInputs
from clusterplace.fedsync.run import WatchOptions, run_route_watch
from clusterplace.fedsync.target import ClusterChanges, Copy, CopyOutcome, Target

__all__ = [
    "ClusterChanges",
    "Copy",
    "CopyOutcome",
    "FolderTarget",
    "InputState",
    "RouteInputs",
    "RouteSync",
    "Target",
    "WatchOptions",
    "run_route_watch",
    "summary",
]
