"""The directory hub: a folder of manifests is the hub, and the controller keeps its
PlacementDecisions and Placement statuses current in an output folder.

- The hub folder (``DIR``) holds what ``-f`` reads: clusters, sets, bindings,
  placements and add-on scores. It is watched (watchfiles), and each edit becomes
  object changes for the reconcile core.
- The output folder (``OUT``, by default ``DIR/.clusterplace``) holds what the
  controller writes (see :class:`OutLayout`); it is the hub's state for decisions and
  statuses (:class:`OutStore`), read back at start, so a restarted controller carries
  on where it stopped, and watched like the hub folder, so a decision or status edited
  or deleted by hand is a change the next sync repairs.
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
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from clusterplace import stopping
from clusterplace.api import (
    KubeObject,
    ManifestWork,
    ManifestWorkReplicaSet,
    Placement,
    PlacementDecision,
)
from clusterplace.controller import DeliveryReconciler, Engine, Key, ObjectChange, Reconciler
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.controller.streams import closing
from clusterplace.errors import InputError, Location
from clusterplace.hub.directory.files import remove_temporaries
from clusterplace.hub.directory.lastgood import LastGood
from clusterplace.hub.directory.layout import DEFAULT_OUT, OutLayout
from clusterplace.hub.directory.manifests import SETTLE_S, ManifestFolder
from clusterplace.hub.directory.out_store import OutStore
from clusterplace.hub.directory.sig import DirectorySigDecisions
from clusterplace.hub.directory.sink import DirectorySink
from clusterplace.outputs.journal import sync_folder
from clusterplace.outputs.lock import FolderBusyError, folder_lock
from clusterplace.safepath import real_path
from clusterplace.watch import RESCAN_S, watch_paths

__all__ = ["DirectoryHub", "RunProgress", "RunSummary", "run_directory_controller"]

# What a ``--once`` run tells about itself: (phase, placements done, of how many or None).
RunProgress = Callable[[str, int, int | None], None]

SIG_RETRY_S = 1.0  # after a slice could not be written


@dataclass
class RunSummary:
    syncs: int
    writes: int
    events: int
    errors: int  # syncs that failed, and last good versions that could not be written
    temporaries_removed: int
    invalid_files: int = 0  # hub files (or folders) that could not be read as they are
    placements: int = 0  # distinct placements synced (syncs counts the echoes' too)
    work_sets: int = 0  # ManifestWorkReplicaSets
    work_writes: int = 0  # works, finalizers and MWRS statuses written
    sig_writes: int = 0  # SIG-Multicluster PlacementDecision files written or removed


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
        store: OutStore | None = None,
        last_good: bool = False,
    ) -> None:
        self.root = root
        self.layout = layout
        self.report = report
        self.store = store if store is not None else OutStore(layout, report)
        self.sig: DirectorySigDecisions | None = None  # with --decision-format both
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
        self.store.load()
        objects: list[KubeObject] = [self._with_status(obj) for obj in self.folder.objects()]
        objects.extend(self.store.decisions.values())
        objects.extend(self.store.works.values())
        return objects

    def _with_status(self, obj: KubeObject) -> KubeObject:
        """A placement or ManifestWorkReplicaSet as the hub holds it: its spec is the
        manifest's, its status the output folder's (the manifest's own status only until
        one was written)."""
        if not isinstance(obj, (Placement, ManifestWorkReplicaSet)):
            return obj
        statuses = self.store.status_table(obj.kind)
        key = (obj.namespace, obj.name)
        if key not in statuses:
            return obj
        return obj.model_copy(update={"status": statuses[key]})

    def _overlay(self, change: ObjectChange) -> ObjectChange:
        new = change.new
        return change if new is None else ObjectChange(change.old, self._with_status(new))

    def _out_changes(self, paths: list[Path]) -> list[ObjectChange]:
        """The changes edits of OUT's decisions and statuses made."""
        changes: list[ObjectChange] = []
        for path in paths:
            if self.sig is not None and self.sig.holds(real_path(path)):
                self.sig.reread(path)  # the SIG writer's own file (it syncs on its own)
                continue
            if self.store.unchanged(path):
                continue  # as the sink wrote it (the echo of its own write)
            found = self.store.reread(path)
            if found is None:
                continue
            kind, key, obj = found
            if self.store.objects(kind) is not None:
                # old None: the controller's cache knows what it held (it compares)
                if obj is not None:
                    changes.append(ObjectChange(None, obj))
                else:
                    changes.append(ObjectChange(_reference(kind, *key), None))
                continue
            spec = self._hub_object(kind, key)
            if spec is not None:
                changes.append(ObjectChange(None, self._with_status(spec)))
        return changes

    def _hub_object(self, kind: str, key: Key) -> KubeObject | None:
        for obj in self.folder.objects():
            if obj.kind == kind and (obj.namespace, obj.name) == key:
                return obj
        return None

    async def batches(self, stop: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        """Object changes as the hub folder changes, until ``stop`` is set."""
        out = real_path(self.layout.root)
        out_folders = [
            self.layout.decisions,
            self.layout.statuses,
            self.layout.works,
            self.layout.work_set_statuses,
        ]
        if self.sig is not None:
            out_folders.append(self.layout.sig_decisions)
        for folder in out_folders:
            folder.mkdir(parents=True, exist_ok=True)
        out_real = [real_path(folder) for folder in out_folders]

        def under_out(real: Path) -> bool:
            return any(real.is_relative_to(folder) for folder in out_real)

        def in_out(path: Path) -> bool:
            return under_out(real_path(path))

        root = real_path(self.root)

        def relevant(_: object, path: str) -> bool:
            if Path(path).name.startswith("."):
                return False
            real = real_path(Path(path))
            if under_out(real):
                return True
            if real.is_relative_to(out):
                return False
            # The watch is recursive (OUT's decisions live in subfolders); without -R
            # only the hub folder's own entries matter.
            return self.folder.recursive or real.parent == root or real == root

        watcher = watch_paths(
            [self.root, *out_folders],
            stop=stop,
            watch_filter=relevant,
            recursive=True,
            rescan_s=RESCAN_S,
            report=self.report,
        )
        # The watcher installs its watches when first asked, before its first await: ask,
        # let it run that far, then scan, so that no edit falls between scan and watch.
        following = asyncio.ensure_future(anext(watcher))
        try:
            await asyncio.sleep(0)
            yield await self._settled(None)  # edits before the watch began
            while True:
                try:
                    events = await following
                except StopAsyncIteration:
                    return
                following = asyncio.ensure_future(anext(watcher))
                # The files the watcher saw change; None is the periodic rescan, which
                # looks at every file in case an event was missed.
                seen = sorted(events) if events is not None else []
                outside = [p for p in seen if in_out(p)] if events else self._rescan()
                paths = [p for p in seen if p not in outside] if events else None
                changes = self._out_changes(outside) if outside else []
                if paths is None or paths:
                    changes.extend(await self._settled(paths))
                if changes:
                    yield changes
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await following
            await watcher.aclose()

    def _rescan(self) -> list[Path]:
        """OUT's files that changed since last read or written (a missed event)."""
        found = self.store.rescan()
        if self.sig is not None:
            found.extend(self.sig.rescan())
        return found

    async def _settled(self, paths: list[Path] | None) -> list[ObjectChange]:
        """Scan ``paths`` (None: every file) until none is left unsettled. Placements
        take the status OUT holds when the changes are handed over, not before: a
        status written while a file settled is not rolled back."""
        changes = self._scan(paths)
        while self.folder.pending:
            await asyncio.sleep(SETTLE_S)
            changes.extend(self._scan(self.folder.pending))
        return [self._overlay(c) for c in changes]

    def _scan(self, paths: Iterable[Path] | None) -> list[ObjectChange]:
        """One scan; a failure is reported and the watch goes on (the next change or
        rescan tries again)."""
        try:
            return self.folder.scan(paths=paths)
        except Exception as err:
            self.report(f"{self.root}: the scan failed ({type(err).__name__}: {err}); retrying")
            self.folder.pending = set()
            return []


def run_directory_controller(
    root: Path,
    out: Path | None = None,
    *,
    once: bool = False,
    now: datetime | None = None,
    recursive: bool = False,
    resync: float | None = 600.0,
    expectation_timeout: float = EXPECTATION_TIMEOUT_S,
    lock_timeout: float = float("inf"),
    report: Callable[[str], None] = lambda _: None,
    progress: RunProgress | None = None,
    decision_format: str = "ocm",
) -> RunSummary:
    """Run the controller on the hub folder ``root`` until SIGTERM/SIGINT (or, with
    ``once``, until every placement was synced once). ``now`` fixes the clock (for
    reproducible ``once`` runs). ``progress`` is told what a ``once`` run is doing: the
    phase, how many placements are done and of how many (None: not known).
    ``decision_format`` ``both`` writes SIG-Multicluster PlacementDecisions beside
    OCM's (:mod:`~clusterplace.hub.directory.sig`)."""
    told = progress if progress is not None else (lambda _what, _done, _total: None)
    if not root.is_dir():
        raise InputError("the hub must be a folder of manifests", Location(file=str(root)))
    layout = OutLayout(out if out is not None else root / DEFAULT_OUT)
    clock = (lambda: now) if now is not None else (lambda: datetime.now(UTC))
    with _locked(layout.root, lock_timeout, report):
        removed = remove_temporaries(layout.root)
        if removed:
            report(f"removed {removed} temporary files an interrupted run left")
        hub = DirectoryHub(root, layout, recursive=recursive, report=report, last_good=True)
        sink = DirectorySink(layout, clock, hub.store, report=report)
        # While some hub file is unknown, a placement not seen may well exist: its
        # decisions are not collected (nothing is deleted on a read error).
        sink.hold_deletions = lambda: hub.incomplete
        engine = Engine(resync=resync, log=report)
        reconciler = Reconciler(engine, sink, now=clock, expectation_timeout=expectation_timeout)
        delivery = DeliveryReconciler(
            engine,
            sink,
            now=clock,
            hold_deletions=lambda: hub.incomplete,
            is_cluster=lambda name: name in engine.state.fleet.clusters,
            expectation_timeout=expectation_timeout,
        )
        sig = None
        if decision_format == "both":
            sig = hub.sig = DirectorySigDecisions(
                layout, lambda name: engine.state.fleet.clusters.get(name), report=report
            )

        def publish(changes: list[ObjectChange]) -> None:
            engine.observe(changes)
            if sig is not None:
                sig.observe(changes)

        sink.publish = publish  # the sink's writes come back as changes
        told("reading the hub", 0, None)
        objects = hub.initial_objects()
        engine.boot(objects)
        if sig is not None:
            sig.load()
            sig.observe(ObjectChange(None, obj) for obj in objects)
        if hub.incomplete:
            report(
                "some hub files cannot be read: the decisions of placements not found are "
                "kept as they are until every file can be read"
            )
        asyncio.run(_serve(engine, hub, once, told))
        stats = reconciler.stats
        errors = stats.errors + delivery.stats.errors + hub.folder.write_errors
        if sig is not None:
            errors += sig.errors
        invalid = hub.invalid_files
        return RunSummary(
            stats.syncs,
            stats.writes,
            stats.events,
            errors,
            removed,
            invalid,
            stats.placements,
            len(engine.state.works.work_sets),
            delivery.stats.writes,
            sig.writes if sig is not None else 0,
        )


@contextlib.contextmanager
def _locked(folder: Path, timeout: float, report: Callable[[str], None]) -> Iterator[None]:
    """Hold the output folder's lock; say so when another controller holds it first.
    Only taking the lock waits: an error raised while it is held propagates as itself."""
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(folder_lock(folder, timeout=0))
        except FolderBusyError:
            if timeout <= 0:
                raise
            report(f"another controller holds {folder}; standing by until it stops")
            held.enter_context(folder_lock(folder, timeout=timeout))
            report(f"took over {folder}")
        yield


async def _tap(
    batches: AsyncIterator[list[ObjectChange]], sig: DirectorySigDecisions | None
) -> AsyncIterator[list[ObjectChange]]:
    """The hub's changes, each batch shown to the SIG writer as it passes."""
    async with closing(batches):
        async for batch in batches:
            if sig is not None:
                sig.observe(batch)
            yield batch


async def _follow_sig(sig: DirectorySigDecisions, root: Path, stop: asyncio.Event) -> None:
    """Write the SIG slices of the placements marked dirty, as they are marked, until
    ``stop``; each round made durable with one ``syncfs``. The writer runs between the
    controllers' syncs (a step of the event loop), so a slice lags its page by that."""
    halt = asyncio.ensure_future(stop.wait())
    try:
        while not stop.is_set():
            if sig.dirty:
                failed = sig.drain()
                with contextlib.suppress(OSError):  # reported by the next write that fails
                    sync_folder(root)
                if failed:
                    await asyncio.wait({halt}, timeout=SIG_RETRY_S)
                continue
            sig.wake.clear()
            woken = asyncio.ensure_future(sig.wake.wait())
            await asyncio.wait({woken, halt}, return_when=asyncio.FIRST_COMPLETED)
            woken.cancel()
    finally:
        halt.cancel()


async def _serve(engine: Engine, hub: DirectoryHub, once: bool, progress: RunProgress) -> None:
    if once:
        # Placements first (works follow their decisions), then deliveries, until all
        # are settled: each side's writes may enqueue the other's keys.
        await engine.settle(progress)
        if hub.sig is not None:
            hub.sig.drain()  # the slices of the decisions as they are now
            try:
                sync_folder(hub.layout.root)  # as the sink's flush made the rest durable
            except OSError as err:
                hub.report(f"{hub.layout.root}: {err.strerror or err}")
                hub.sig.errors += 1
        return
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    stopping.handle(loop, stop, "controller")  # a SIGTERM while loading: stop at once
    try:
        hub.report(f"watching {hub.root}; writing to {hub.layout.root}")
        slices = (
            asyncio.ensure_future(_follow_sig(hub.sig, hub.layout.root, stop))
            if hub.sig is not None
            else None
        )
        try:
            await engine.run(_tap(hub.batches(stop), hub.sig), stop)
        finally:
            stop.set()
            if slices is not None:
                await slices
    finally:
        stopping.release(loop)


def _reference(kind: str, namespace: str, name: str) -> KubeObject:
    """An object OUT holds whole, known by its name only (to say it is gone)."""
    model = PlacementDecision if kind == "PlacementDecision" else ManifestWork
    return model.model_validate(
        {
            "apiVersion": model.API_VERSIONS[0],
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
        }
    )
