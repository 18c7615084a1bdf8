"""``route --watch``: keep a route output folder current until stopped.

The inputs (``-f`` files and folders, ``--clusters``, ``--observed``) are watched
(watchfiles), and read again once settled; the output folder is watched too, so a copy
deleted by hand comes back and one edited by hand is reported (and kept, as ``route``
keeps it). Every change set is computed by :class:`~.engine.RouteSync` and written in
one transaction; a line per change set is reported. The output folder's lock is held
from start to stop; if the folder is deleted (or replaced) meanwhile, the watch stops
with an error at its next step, before it would write again, as its lock went with the
folder. SIGTERM and SIGINT stop the watch after the change set in progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from clusterplace import stopping
from clusterplace.codecs import Document
from clusterplace.errors import ClusterplaceError, InputError, InputErrors, Location
from clusterplace.fedsync.engine import RouteSync, summary
from clusterplace.fedsync.folder import FolderTarget
from clusterplace.fedsync.inputs import InputState, RouteInputs
from clusterplace.fedsync.target import Target
from clusterplace.outputs.lock import FolderBusyError, FolderLostError
from clusterplace.safepath import real_path
from clusterplace.watch import RESCAN_S, SETTLE_S, watch_paths

__all__ = ["WatchOptions", "run_route_watch", "watched_paths"]

# How long the watcher gathers a burst of file events (ms); how often every input is
# looked at anyway, in case an event was missed, and a failed write tried again (s).
_LOCK_POLL_S = 0.05

Report = Callable[[str], None]
Observe = Callable[[Iterable[str]], dict[str, dict[Hashable, Document]]]


@dataclass(frozen=True)
class WatchOptions:
    """What ``route --watch`` was given (the options of ``route``)."""

    filenames: tuple[str, ...]
    cluster_files: tuple[str, ...]
    out_dir: Path
    recursive: bool = False
    observed_dir: Path | None = None
    division: str = "upstream"
    force: bool = False
    lock_timeout: float = 0.0
    # Another target than the output folder (``out_dir`` then only names it), and
    # where the observed state is read from instead of ``observed_dir`` (each cluster's
    # objects, read again at every rescan).
    target: Target | None = None
    observe: Observe | None = None
    # Told the inputs in force before each change set is computed (a member target
    # lists the kinds of every manifest to find the copies to prune).
    inputs_seen: Callable[[InputState], None] | None = None


def watched_paths(values: Iterable[str]) -> list[Path]:
    """The files and folders named by ``-f``-style values (comma-separated as kubectl
    allows); standard input and URLs cannot be watched, and each path must exist."""
    paths: list[Path] = []
    for value in values:
        for name in (part for part in value.split(",") if part):
            if name == "-":
                raise InputError(
                    "standard input (-) cannot be watched; give the files or folders to watch"
                )
            if "://" in name:
                raise InputError(
                    "URLs are not read: clusterplace never fetches from the network; "
                    "download the file and pass its path",
                    Location(file=name),
                )
            path = Path(name)
            if not path.exists():
                raise InputError(f'the path "{name}" does not exist')
            paths.append(path)
    return paths


def run_route_watch(options: WatchOptions, *, report: Report = lambda _: None) -> None:
    """Watch the inputs and keep ``options.out_dir`` current until SIGTERM or SIGINT.
    Raises :class:`~clusterplace.errors.ClusterplaceError` for what stops it from
    starting: a path that does not exist, the output folder held by another run past
    the lock timeout, or (as ``route`` refuses) a file clusterplace did not write in the
    way of a copy when the folder is first written."""
    manifests = watched_paths(options.filenames)
    fleets = watched_paths(options.cluster_files)
    observed = options.observed_dir
    if observed is not None and not observed.is_dir():
        raise InputError("--observed must be a directory", Location(file=str(observed)))
    asyncio.run(_watch(options, manifests, fleets, report))


async def _watch(
    options: WatchOptions, manifests: list[Path], fleets: list[Path], report: Report
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # Unbounded: the change set in progress is finished however long it takes.
    if stopping.handle(loop, stop):  # a SIGTERM came while it was starting
        stopping.release(loop)
        report("stopped")
        return
    target: Target = options.target or FolderTarget(options.out_dir, force=options.force)
    try:
        if not await _take(target, options.lock_timeout, stop, report):
            return
        try:
            await _Session(options, manifests, fleets, target, stop, report).run()
        finally:
            target.close()
    finally:
        stopping.release(loop)


async def _take(target: Target, timeout: float, stop: asyncio.Event, report: Report) -> bool:
    """Take the output folder's lock, waiting up to ``timeout`` seconds for another run
    holding it (False: stopped meanwhile)."""
    deadline = time.monotonic() + timeout
    said = False
    while True:
        try:
            target.open()
            return True
        except FolderBusyError:
            if time.monotonic() >= deadline:
                raise
            if not said:
                report(f"another clusterplace run holds {target.where}; waiting for it")
                said = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), _LOCK_POLL_S)
            return False


def _relevant(_change: object, path: str) -> bool:
    # Hidden entries are temporaries, editors' swap files, the output's index and journal.
    return not path.rpartition(os.sep)[2].startswith(".")


class _Watcher:
    """Every path's changes as one stream: a recursive watch and a flat one
    (watchfiles watches a path recursively or not), each feeding one queue."""

    def __init__(
        self,
        recursive: Sequence[Path],
        flat: Sequence[Path],
        stop: asyncio.Event,
        report: Report,
    ) -> None:
        self.queue: asyncio.Queue[set[str]] = asyncio.Queue()
        self.stop = stop
        self.report = report
        self.tasks: list[asyncio.Future[None]] = []
        self.add(recursive, recursive=True)
        self.add(flat, recursive=False)

    def add(self, paths: Sequence[Path], *, recursive: bool) -> None:
        """Watch ``paths`` too (from the next :meth:`started` on)."""
        if paths:
            self.tasks.append(asyncio.ensure_future(self._follow(paths, recursive)))

    async def started(self) -> None:
        """Let every watch install itself: edits from now on are seen."""
        for _ in range(3):
            await asyncio.sleep(0)

    async def _follow(self, paths: Sequence[Path], recursive: bool) -> None:
        # The shared watch (clusterplace.watch): a failing watch is reported and leaves
        # the rescans, which run() does every RESCAN_S seconds in any case.
        async for changes in watch_paths(
            paths,
            stop=self.stop,
            watch_filter=_relevant,
            recursive=recursive,
            rescan_s=RESCAN_S,
            report=self.report,
        ):
            if changes is not None:
                self.queue.put_nowait({str(path) for path in changes})

    async def next(self, timeout: float) -> set[str] | None:
        """The paths changed since the last call, once some did (None: ``timeout``
        seconds passed, or the watch was stopped)."""
        getting = asyncio.ensure_future(self.queue.get())
        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            done, _ = await asyncio.wait(
                {getting, stopping}, timeout=max(timeout, 0.0), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for task in (getting, stopping):
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
        if getting not in done or getting.cancelled():
            return None
        paths = getting.result()
        while not self.queue.empty():
            paths |= self.queue.get_nowait()
        return paths

    async def close(self) -> None:
        self.stop.set()
        for task in self.tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5.0)


def _same_observed(
    old: dict[str, dict[Hashable, Document]], new: dict[str, dict[Hashable, Document]]
) -> bool:
    if old.keys() != new.keys():
        return False
    for cluster, docs in old.items():
        other = new[cluster]
        if docs.keys() != other.keys():
            return False
        if any(d.data != other[k].data for k, d in docs.items()):
            return False
    return True


def _watch_roots(
    inputs: Sequence[Path], observed: Path | None, recursive: bool
) -> tuple[list[Path], list[Path]]:
    """(the paths to watch recursively, the paths to watch flat): folders by ``-R``
    and the observed folder recursively, the folder of each file."""
    deep: list[Path] = []
    flat: list[Path] = []
    if observed is not None:
        deep.append(observed.absolute())
    for path in inputs:
        if path.is_dir():
            (deep if recursive else flat).append(path.absolute())
        else:
            flat.append(path.absolute().parent)
            real = real_path(path).parent
            if real != path.absolute().parent:
                flat.append(real)
    deep = _outermost(deep)
    flat = sorted({p for p in flat if not any(p.is_relative_to(d) for d in deep)})
    return deep, flat


def _outermost(paths: Iterable[Path]) -> list[Path]:
    chosen: list[Path] = []
    for path in sorted(set(paths), key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(c) for c in chosen):
            chosen.append(path)
    return chosen


class _Session:
    """One run of the watch, holding the output folder's lock."""

    def __init__(
        self,
        options: WatchOptions,
        manifests: list[Path],
        fleets: list[Path],
        target: Target,
        stop: asyncio.Event,
        report: Report,
    ) -> None:
        self.options = options
        self.stop = stop
        self.report = report
        self.target = target
        self.out = options.out_dir
        # How the watcher spells paths in the output folder.
        self._out_prefixes = sorted(
            {str(self.out.absolute()) + os.sep, str(real_path(self.out)) + os.sep}
        )
        self.inputs = RouteInputs(
            manifests,
            fleets,
            options.observed_dir,
            recursive=options.recursive,
            exclude=self.out,
            division=options.division,
            report=report,
        )
        self.sync = RouteSync(target, division=options.division, report=report)
        deep, flat = _watch_roots([*manifests, *fleets], options.observed_dir, options.recursive)
        self.watcher = _Watcher(deep, flat, stop, report)
        # The output folder is watched once first written: the echoes of that first
        # write (a file per copy) would only be read and found as written.
        self.watching_output = False
        self.held: str | None = None  # why nothing is written now
        self.retry_at: float | None = None  # when a failed write is tried again
        self.first = True
        self.folder = target if isinstance(target, FolderTarget) else None
        self.observed: dict[str, dict[Hashable, Document]] | None = None

    def _observe(self) -> bool:
        """Read the observed state from the members (``options.observe``); whether it
        changed."""
        if self.options.observe is None:
            return False
        clusters = self.inputs.snapshot().labels
        found = self.options.observe(clusters)
        if self.observed is not None and _same_observed(self.observed, found):
            return False
        self.observed = found
        return True

    def _snapshot(self) -> InputState:
        snapshot = self.inputs.snapshot()
        if self.options.observe is not None:
            snapshot = replace(snapshot, observed=self.observed or {})
        if self.options.inputs_seen is not None:
            self.options.inputs_seen(snapshot)
        return snapshot

    async def run(self) -> None:
        try:
            await self.watcher.started()
            changed = await self._scan(None)
            changed |= await asyncio.to_thread(self._observe)
            self._step(changed, set(), started=True)
            await self.watcher.started()
            self.report(f"watching {self._inputs_text()}; writing to {self.out}")
            last_full = time.monotonic()
            while not self.stop.is_set():
                now = time.monotonic()
                timeout = RESCAN_S - (now - last_full)
                if self.retry_at is not None:
                    timeout = min(timeout, self.retry_at - now)
                crossing = self.sync.next_crossing
                if crossing is not None:
                    wait = (crossing - self.sync.clock()).total_seconds() + 0.001
                    timeout = min(timeout, wait)
                paths = await self.watcher.next(timeout)
                if self.stop.is_set():
                    break
                if paths is None:
                    full = time.monotonic() - last_full >= RESCAN_S
                    changed = await self._scan(None) if full else False
                    if full:
                        changed |= await asyncio.to_thread(self._observe)
                        last_full = time.monotonic()
                    self._step(changed, set())
                    continue
                outputs = self._output_keys(paths)
                inputs = [Path(p) for p in paths if not self._in_output(p)]
                changed = await self._scan(inputs) if inputs else False
                self._step(changed, outputs)
            self.report("stopped")
        finally:
            await self.watcher.close()

    def _inputs_text(self) -> str:
        o = self.options
        parts = [f"-f {','.join(o.filenames)}", f"--clusters {','.join(o.cluster_files)}"]
        if o.observed_dir is not None:
            parts.append(f"--observed {o.observed_dir}")
        return ", ".join(parts)

    async def _scan(self, paths: Iterable[Path] | None) -> bool:
        """Scan the inputs (``paths``: only those), then until nothing is left to
        settle; whether anything in force changed."""
        changed = self.inputs.scan(paths)
        while self.inputs.pending and not self.stop.is_set():
            await asyncio.sleep(SETTLE_S)
            changed |= self.inputs.scan(settling=True)
        return changed

    def _in_output(self, path: str) -> bool:
        return any(path.startswith(base) for base in self._out_prefixes)

    def _output_keys(self, paths: Iterable[str]) -> set[tuple[str, str]]:
        """The copies that edits in the output folder (among ``paths``, as the watcher
        gives them) may have touched."""
        keys: set[tuple[str, str]] = set()
        for path in paths:
            for base in self._out_prefixes:
                if path.startswith(base):
                    parts = path[len(base) :].split(os.sep)  # noqa: PTH206 (thousands)
                    break
            else:
                continue
            if any(not p or p.startswith(".") for p in parts):
                continue
            if len(parts) == 1:  # a cluster's folder
                keys |= self.sync.copies_of(parts[0])
            elif len(parts) == 2:
                keys.add((parts[0], parts[1]))
        # The folder reports this run's own writes too: only edits by others count.
        return self.folder.edited(keys) if keys and self.folder is not None else set()

    def _hold(self) -> str | None:
        """Why nothing may be written now (None: writing is fine)."""
        unknown = self.inputs.unknown
        if unknown:
            shown = ", ".join(str(p) for p in unknown[:3])
            more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
            return (
                f"{shown}{more} cannot be read and no good version was read before: "
                f"nothing is written to {self.out} until they can be"
            )
        return None

    def _step(self, changed: bool, outputs: set[tuple[str, str]], *, started: bool = False) -> None:
        """Take the changes of the inputs (and the copies to look at again), and write
        what they change."""
        if self.folder is not None:
            self.folder.check_held()  # raises once the locked folder is gone
        held = self._hold()
        snapshot = None
        if held is None and (changed or started or self.held is not None):
            snapshot = self._snapshot()
            if not snapshot.labels:
                # Routing to no cluster would remove every copy: route refuses it too.
                held = (
                    "no ManagedCluster found in the --clusters input; nothing is routed, "
                    f"and nothing in {self.out} is removed"
                )
        if held is not None:
            if held != self.held:
                self.report(held)
            self.held = held
            self.sync.recheck |= outputs  # looked at once writing resumes
            return
        if self.held is not None:
            self.report(f"the inputs can be used again: writing to {self.out}")
            self.held = None
        due = self.sync.next_crossing is not None and self.sync.next_crossing < self.sync.clock()
        if snapshot is not None or due:
            self.sync.update(snapshot if snapshot is not None else self._snapshot())
        self.sync.recheck |= outputs
        if self.sync.idle:
            return
        if self.retry_at is not None and time.monotonic() < self.retry_at and not changed:
            return
        try:
            outcomes = self.sync.flush()
        except InputErrors as err:
            if self.first:
                raise  # as route refuses: a file it did not write is in the way
            self._failed(err)
            return
        except FolderLostError:
            raise  # its lock is gone with it: never write on without one
        except ClusterplaceError as err:
            self._failed(err)
            return
        self.retry_at = None
        if not self.watching_output and self.folder is not None:
            self.watcher.add([self.out.absolute()], recursive=True)
            self.watching_output = True
        line = summary(outcomes, str(self.out))
        if line is not None:
            self.report(line)
        elif self.first:
            copies = sum(len(c) for c in self.sync.desired.values())
            self.report(f"{self.out}: up to date ({copies} copies)")
        self.first = False

    def _failed(self, err: ClusterplaceError) -> None:
        lines = str(err).splitlines() or [type(err).__name__]
        self.report("\n".join(f"error: {line}" for line in lines))
        self.report(f"nothing was written; trying again in {RESCAN_S:g} s or at the next change")
        self.retry_at = time.monotonic() + RESCAN_S
