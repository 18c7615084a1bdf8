"""The directory hub: a folder of manifests is the hub, and the controller keeps its
PlacementDecisions and Placement statuses current in an output folder.

- The hub folder (``DIR``) holds what ``-f`` reads: clusters, sets, bindings,
  placements and add-on scores. It is watched (watchfiles), and each edit becomes
  object changes for the reconcile core.
- The output folder (``OUT``, by default ``DIR/.clusterplace``) holds what the
  controller writes (see :class:`OutLayout`); it is the hub's state for decisions and
  statuses, read back at start, so a restarted controller carries on where it stopped.
- One controller at a time: the output folder is locked (``flock``) for as long as the
  controller runs; a second one waits for the lock, as a standby replica waits for a
  lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from clusterplace.api import KubeObject, Placement
from clusterplace.api.placement import PlacementStatus
from clusterplace.codecs import decode, read_documents
from clusterplace.codecs.sources import expand_sources
from clusterplace.controller import Key, ObjectChange, Reconciler
from clusterplace.errors import ClusterplaceError, InputError, Location
from clusterplace.hub.directory.files import remove_temporaries
from clusterplace.hub.directory.layout import DEFAULT_OUT, OutLayout
from clusterplace.hub.directory.manifests import SETTLE_S, ManifestFolder
from clusterplace.hub.directory.sink import DirectorySink
from clusterplace.outputs.lock import FolderBusyError, folder_lock
from clusterplace.safepath import SymlinkLoopError, resolve

__all__ = ["DirectoryHub", "RunSummary", "run_directory_controller"]

# How long the watcher gathers a burst of file events (ms), and how often the folder is
# scanned anyway, in case an event was missed (s).
_STEP_MS = 5
_DEBOUNCE_MS = 50
_RESCAN_S = 5.0


@dataclass
class RunSummary:
    syncs: int
    writes: int
    events: int
    errors: int
    temporaries_removed: int


class DirectoryHub:
    """The hub folder and the output folder, as the reconcile core's source."""

    def __init__(
        self,
        root: Path,
        layout: OutLayout,
        *,
        recursive: bool = False,
        report: Callable[[str], None] = lambda _: None,
        status_of: Callable[[Key], PlacementStatus | None] = lambda _: None,
    ) -> None:
        self.root = root
        self.layout = layout
        self.report = report
        self.status_of = status_of  # the status the hub holds now (the controller's)
        self.folder = ManifestFolder(root, recursive=recursive, exclude=layout.root, report=report)

    def initial_objects(self) -> list[KubeObject]:
        """The hub at start: the manifests, the decisions written so far, and each
        placement with the status written so far (else the one in its manifest)."""
        self.folder.scan()
        while self.folder.unsettled:
            time.sleep(SETTLE_S)
            self.folder.scan()
        decisions, statuses = self._read_output()
        objects: list[KubeObject] = []
        for obj in self.folder.objects():
            if isinstance(obj, Placement):
                key = (obj.namespace, obj.name)
                if key in statuses:
                    obj = obj.model_copy(update={"status": statuses[key]})
            objects.append(obj)
        objects.extend(decisions)
        return objects

    def _read_output(
        self,
    ) -> tuple[list[KubeObject], dict[Key, PlacementStatus | None]]:
        """The decisions and the placement statuses written so far."""
        objects: list[KubeObject] = []
        statuses: dict[Key, PlacementStatus | None] = {}
        kinds = ((self.layout.decisions, "PlacementDecision"), (self.layout.statuses, "Placement"))
        for folder, kind in kinds:
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*")):
                if path.name.startswith(".") or not path.is_file():
                    continue
                try:
                    loaded = decode(read_documents(expand_sources([str(path)])))
                except ClusterplaceError as err:
                    self.report(f"{err}\n(ignored: the controller writes it again)")
                    continue
                for obj in loaded.objects:
                    if obj.kind != kind:
                        self.report(f"{path}: {obj.ref} does not belong here; ignored")
                    elif isinstance(obj, Placement):
                        statuses[(obj.namespace, obj.name)] = obj.status
                    else:
                        objects.append(obj)
        return objects, statuses

    def _overlay(self, change: ObjectChange) -> ObjectChange:
        """A placement edited in the hub folder keeps the status the hub holds (its
        spec is the manifest's, its status the controller's), as on Kubernetes."""
        new = change.new
        if not isinstance(new, Placement):
            return change
        if change.old is None:
            return change  # a new placement: the status in its manifest, if any
        status = self.status_of((new.namespace, new.name))
        return ObjectChange(change.old, new.model_copy(update={"status": status}))

    async def batches(self, stop: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        """Object changes as the hub folder changes, until ``stop`` is set."""
        from watchfiles import awatch  # the watcher starts threads: only when watching

        out = resolve(self.layout.root)

        def relevant(_: object, path: str) -> bool:
            try:
                resolved = resolve(Path(path))
            except SymlinkLoopError:
                return True  # read, and reported there
            return not resolved.is_relative_to(out) and not Path(path).name.startswith(".")

        yield await self._settled(None)  # edits before the watch began
        async for events in awatch(
            self.root,
            stop_event=stop,
            watch_filter=relevant,
            recursive=self.folder.recursive,
            step=_STEP_MS,
            debounce=_DEBOUNCE_MS,
            rust_timeout=int(_RESCAN_S * 1000),
            yield_on_timeout=True,
        ):
            # The files the watcher saw change; none at all is the periodic rescan, which
            # looks at every file in case an event was missed.
            paths = [Path(path) for _, path in events] if events else None
            changes = await self._settled(paths)
            if changes:
                yield changes

    async def _settled(self, paths: list[Path] | None) -> list[ObjectChange]:
        """Scan ``paths`` (None: every file) until none is left unsettled."""
        changes = [self._overlay(c) for c in self.folder.scan(paths=paths)]
        while self.folder.pending:
            await asyncio.sleep(SETTLE_S)
            changes.extend(self._overlay(c) for c in self.folder.scan(paths=self.folder.pending))
        return changes


def run_directory_controller(
    root: Path,
    out: Path | None = None,
    *,
    once: bool = False,
    now: datetime | None = None,
    recursive: bool = False,
    resync: float | None = 600.0,
    lock_timeout: float = float("inf"),
    report: Callable[[str], None] = lambda _: None,
) -> RunSummary:
    """Run the controller on the hub folder ``root`` until SIGTERM/SIGINT (or, with
    ``once``, until every placement was synced once). ``now`` fixes the clock (for
    reproducible ``once`` runs)."""
    if not root.is_dir():
        raise InputError("the hub must be a folder of manifests", Location(file=str(root)))
    layout = OutLayout(out if out is not None else root / DEFAULT_OUT)
    clock = (lambda: now) if now is not None else (lambda: datetime.now(UTC))
    with _locked(layout.root, lock_timeout, report):
        removed = remove_temporaries(layout.root)
        if removed:
            report(f"removed {removed} temporary files an interrupted run left")
        sink = DirectorySink(layout, clock, report)
        reconciler = Reconciler(sink, now=clock, resync=resync, log=report)

        def status_of(key: Key) -> PlacementStatus | None:
            placement = reconciler.state.placement(key)
            return None if placement is None else placement.status

        hub = DirectoryHub(root, layout, recursive=recursive, report=report, status_of=status_of)
        reconciler.boot(hub.initial_objects())
        asyncio.run(_serve(reconciler, hub, once))
        stats = reconciler.stats
        return RunSummary(stats.syncs, stats.writes, stats.events, stats.errors, removed)


@contextlib.contextmanager
def _locked(folder: Path, timeout: float, report: Callable[[str], None]) -> Iterator[None]:
    """Hold the output folder's lock; say so when another controller holds it first."""
    try:
        with folder_lock(folder, timeout=0):
            yield
            return
    except FolderBusyError:
        if timeout <= 0:
            raise
    report(f"another controller holds {folder}; standing by until it stops")
    with folder_lock(folder, timeout=timeout):
        report(f"took over {folder}")
        yield


async def _serve(reconciler: Reconciler, hub: DirectoryHub, once: bool) -> None:
    if once:
        await reconciler.drain()
        await reconciler.sink.flush()
        return
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        hub.report(f"watching {hub.root}; writing to {hub.layout.root}")
        await reconciler.run(hub.batches(stop), stop)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signum)
