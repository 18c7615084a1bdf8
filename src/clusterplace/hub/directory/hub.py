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
- The hub's view is what is on disk (see :mod:`.manifests`): objects moved between
  files stay, an unreadable folder keeps what was known under it, odd entries are
  skipped, and the last good text of every hub file is kept in ``OUT/lastgood`` to
  stand in for a file that is invalid at start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from clusterplace.api import KubeObject, Placement, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL, PlacementStatus
from clusterplace.codecs import decode, read_documents
from clusterplace.codecs.sources import expand_sources
from clusterplace.controller import Key, ObjectChange, Reconciler
from clusterplace.errors import ClusterplaceError, InputError, Location
from clusterplace.hub.directory.files import remove_temporaries
from clusterplace.hub.directory.lastgood import LastGood
from clusterplace.hub.directory.layout import DEFAULT_OUT, OutLayout
from clusterplace.hub.directory.manifests import SETTLE_S, ManifestFolder
from clusterplace.hub.directory.sink import DirectorySink
from clusterplace.outputs.errors import OutputError
from clusterplace.outputs.lock import folder_lock

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
    errors: int  # syncs that failed, and last good versions that could not be written
    temporaries_removed: int
    invalid_files: int = 0  # hub files (or folders) that could not be read as they are


class DirectoryHub:
    """The hub folder and the output folder, as the reconcile core's source.

    ``last_good`` keeps the last good text of every hub file in ``OUT/lastgood`` and
    uses it for a file that cannot be read at start (only the controller, which holds
    the output folder's lock, writes there).

    :attr:`incomplete` is True while some hub file (or folder) could not be read and
    has no last good version: the objects it holds are unknown, so the objects seen are
    not the whole hub and nothing may be deleted for being absent from them.
    """

    def __init__(
        self,
        root: Path,
        layout: OutLayout,
        *,
        recursive: bool = False,
        report: Callable[[str], None] = lambda _: None,
        status_of: Callable[[Key], PlacementStatus | None] = lambda _: None,
        last_good: bool = False,
    ) -> None:
        self.root = root
        self.layout = layout
        self.report = report
        self.status_of = status_of  # the status the hub holds now (the controller's)
        self.folder = ManifestFolder(
            root,
            recursive=recursive,
            exclude=layout.root,
            report=report,
            last_good=LastGood(layout.lastgood) if last_good else None,
        )

    @property
    def incomplete(self) -> bool:
        """Whether some hub file or folder could not be read and has no last good
        version (:attr:`ManifestFolder.unreadable`): deletions must wait while it is."""
        return bool(self.folder.unreadable)

    @property
    def invalid_files(self) -> int:
        """How many hub files (or folders) cannot be read as they are now."""
        return len(self.folder.invalid)

    def initial_objects(self) -> list[KubeObject]:
        """The hub at start: the manifests, the decisions written so far, and each
        placement with the status written so far (else the one in its manifest)."""
        self.folder.scan()
        while self.folder.unsettled:
            time.sleep(SETTLE_S)
            self.folder.scan()
        decisions, statuses = self._read_output()
        objects: list[KubeObject] = []
        placements: set[Key] = set()
        for obj in self.folder.objects():
            if isinstance(obj, Placement):
                key = (obj.namespace, obj.name)
                placements.add(key)
                if key in statuses:
                    obj = obj.model_copy(update={"status": statuses[key]})
            objects.append(obj)
        if self.incomplete:
            # A placement in a file that cannot be read is unknown, not deleted: its
            # decisions are left alone (on disk, untouched) until the hub is whole.
            kept = [d for d in decisions if _owner(d) in placements]
            if len(kept) < len(decisions):
                self.report(
                    f"{len(decisions) - len(kept)} decisions of placements not found are "
                    "kept as they are: some hub files cannot be read"
                )
            decisions = kept
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

        out = _real(self.layout.root)

        def relevant(_: object, path: str) -> bool:
            return not Path(path).name.startswith(".") and not _real(Path(path)).is_relative_to(out)

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
        changes = [self._overlay(c) for c in self._scan(paths)]
        while self.folder.pending:
            await asyncio.sleep(SETTLE_S)
            changes.extend(self._overlay(c) for c in self._scan(self.folder.pending))
        return changes

    def _scan(self, paths: Iterable[Path] | None) -> list[ObjectChange]:
        """One scan; a failure is reported and the watch goes on (the next change or
        rescan tries again)."""
        try:
            return self.folder.scan(paths=paths)
        except Exception as err:
            self.report(f"{self.root}: the scan failed ({type(err).__name__}: {err}); retrying")
            self.folder.pending = set()
            return []


def _real(path: Path) -> Path:
    """``path`` with its symlinks resolved; never raises (a symlink loop does not)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        return path.absolute()


def _owner(decision: KubeObject) -> Key | None:
    if not isinstance(decision, PlacementDecision):
        return None
    name = decision.labels.get(PLACEMENT_LABEL)
    return None if name is None else (decision.namespace, name)


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
        sink = DirectorySink(layout, clock)
        reconciler = Reconciler(sink, now=clock, resync=resync, log=report)

        def status_of(key: Key) -> PlacementStatus | None:
            placement = reconciler.state.placement(key)
            return None if placement is None else placement.status

        hub = DirectoryHub(
            root,
            layout,
            recursive=recursive,
            report=report,
            status_of=status_of,
            last_good=True,
        )
        reconciler.boot(hub.initial_objects())
        asyncio.run(_serve(reconciler, hub, once))
        stats = reconciler.stats
        errors = stats.errors + hub.folder.write_errors
        invalid = hub.invalid_files
        return RunSummary(stats.syncs, stats.writes, stats.events, errors, removed, invalid)


@contextlib.contextmanager
def _locked(folder: Path, timeout: float, report: Callable[[str], None]) -> Iterator[None]:
    """Hold the output folder's lock; say so when another controller holds it first.
    Only taking the lock waits: an error raised while it is held propagates as itself."""
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(folder_lock(folder, timeout=0))
        except OutputError:
            if timeout <= 0:
                raise
            report(f"another controller holds {folder}; standing by until it stops")
            held.enter_context(folder_lock(folder, timeout=timeout))
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
