"""The ``route`` output directory: one folder per cluster, one file per object, and an
index of what clusterplace wrote so that later runs remove only their own copies."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from clusterplace import jsontext
from clusterplace.errors import InputError, InputErrors, Location
from clusterplace.federation import Routed
from clusterplace.outputs import FileTransaction, OutputError, open_output
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.safepath import resolve

__all__ = [
    "INDEX_NAME",
    "Change",
    "RouteCopy",
    "RoutePlan",
    "apply_plan",
    "index_text",
    "plan_copies",
    "plan_route_dir",
    "route_copies",
    "route_into",
]

INDEX_NAME = ".clusterplace-route.json"
INDEX_KIND = "RouteIndex"
INDEX_API_VERSION = "clusterplace.io/v1"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def object_ref(obj: Any) -> str:
    meta = obj.get("metadata") or {}
    parts = [str(obj.get("kind", "")), meta.get("namespace"), str(meta.get("name", ""))]
    return "/".join(p for p in parts if p)


@dataclass(frozen=True)
class Change:
    """One file's fate: add, update, unchanged, remove, or keep (ours but edited by hand)."""

    action: str
    cluster: str
    file: str
    obj: str

    @property
    def relpath(self) -> str:
        return f"{self.cluster}/{self.file}"


@dataclass
class RoutePlan:
    out_dir: Path
    changes: list[Change] = field(default_factory=list)
    contents: dict[str, str] = field(default_factory=dict)  # relpath -> text to write
    index: dict[str, dict[str, str]] = field(default_factory=dict)
    index_text: str | None = None  # the index as the folder holds it now

    def count(self, action: str) -> int:
        return sum(1 for c in self.changes if c.action == action)


def _inside(out_dir: Path, rel: str, checked: dict[str, bool] | None = None) -> bool:
    """``rel`` is ``<cluster>/<file>`` and stays inside ``out_dir`` (an index is input too):
    plain names, and a cluster folder that is no symlink leading elsewhere (``checked``
    remembers each folder's verdict: the file names themselves hold no separator)."""
    parts = rel.split("/")
    if len(parts) != 2 or any(p in ("", ".", "..") or "\\" in p for p in parts):
        return False
    cluster = parts[0]
    if checked is not None and cluster in checked:
        return checked[cluster]
    root = resolve(out_dir)
    verdict = resolve(root / cluster).parent == root
    if checked is not None:
        checked[cluster] = verdict
    return verdict


def _parse_index(out_dir: Path, text: str | None) -> dict[str, dict[str, str]]:
    path = out_dir / INDEX_NAME
    if text is None:
        return {}
    try:
        data = jsontext.loads(text)
        files = data["files"]
        if data.get("kind") != INDEX_KIND or not isinstance(files, dict):
            raise ValueError
        entries = {str(k): dict(v) for k, v in files.items()}
        if not all(_inside(out_dir, rel) for rel in entries):
            raise ValueError
        return entries
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(
            "is not a clusterplace route index; remove it or use another output directory",
            Location(file=str(path)),
        ) from None


def _read(path: Path) -> str | None:
    """A file's text, or None when there is no file."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise OutputError(f"{path}: cannot read: {reason}") from None


class RouteCopy(NamedTuple):
    """One object's text as written to one cluster's folder."""

    cluster: str
    file: str
    obj: str  # Kind/namespace/name
    text: str

    @property
    def relpath(self) -> str:
        return f"{self.cluster}/{self.file}"


def route_copies(routed: Sequence[Routed]) -> Iterator[RouteCopy]:
    """Every copy ``routed`` puts in a cluster's folder."""
    for item in routed:
        shared = dump_yaml_stream([dict(item.obj)]) if item.division is None else None
        ref = object_ref(item.obj)
        for cluster in item.clusters:
            # A divided workload's copies differ by spec.replicas; others are one text.
            text = (
                shared if shared is not None else dump_yaml_stream([dict(item.copy_for(cluster))])
            )
            yield RouteCopy(cluster, item.file_name, ref, text)


def _decide(
    path: Path, copy: RouteCopy, current: str | None, previous: dict[str, str] | None, force: bool
) -> tuple[str, dict[str, str]] | InputError:
    """What becomes of ``copy`` given the file's ``current`` text and its ``previous``
    index entry: (action, its index entry), or the conflict that refuses it."""
    entry = {"object": copy.obj, "sha256": _digest(copy.text)}
    if current is None:
        return "add", entry
    if current == copy.text:
        return "unchanged", entry
    if previous is None:
        if not force:
            return InputError(
                "exists but was not written by clusterplace route; it is never "
                "overwritten: move it away, or give --force to replace it",
                Location(file=str(path)),
            )
        return "update", entry
    if _digest(current) == previous.get("sha256") or force:
        return "update", entry
    return "keep", previous  # still ours, still edited: never a conflict later


def _decide_stale(current: str | None, previous: dict[str, str], force: bool) -> str | None:
    """What becomes of a copy written earlier that is no longer routed there: remove,
    keep (edited by hand since), or None (gone already)."""
    if current is None:
        return None
    if force or _digest(current) == previous.get("sha256"):
        return "remove"
    return "keep"


# Told what is being done, how many are done and of how many (None: not known).
Progress = Callable[[str, int, int | None], None]
_EVERY = 256  # copies between two progress reports


def _bad_cluster(out_dir: Path, cluster: str) -> InputError:
    return InputError(
        f"cluster name {cluster!r} cannot be used as a directory name",
        Location(file=str(out_dir)),
    )


def plan_route_dir(
    out_dir: Path,
    routed: Sequence[Routed],
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> RoutePlan:
    """What writing ``routed`` into ``out_dir`` would add, update, remove and keep.

    A copy edited by hand since clusterplace wrote it is kept (action ``keep``), whether
    its object is still routed there or not, and stays in the index so that it never
    blocks a later run; ``force`` overwrites or removes it instead. A file clusterplace
    did not write is never overwritten without ``force``: that raises
    :class:`InputError`.
    """
    return plan_copies(out_dir, route_copies(routed), force=force, progress=progress)


def plan_copies(
    out_dir: Path,
    copies: Iterable[RouteCopy],
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> RoutePlan:
    """:func:`plan_route_dir` for copies already rendered: ``copies`` are the whole
    folder's (every copy of one run), so those of the index not among them go.
    ``progress`` is told how many copies are planned, now and then."""
    plan = RoutePlan(out_dir, index_text=_read(out_dir / INDEX_NAME))
    previous = _parse_index(out_dir, plan.index_text)
    conflicts: list[InputError] = []
    checked: dict[str, bool] = {}
    for copy in copies:
        rel = copy.relpath
        path = out_dir / rel
        if not _inside(out_dir, rel, checked):
            conflicts.append(_bad_cluster(out_dir, copy.cluster))
            continue
        decided = _decide(path, copy, _read(path), previous.get(rel), force)
        if isinstance(decided, InputError):
            conflicts.append(decided)
            continue
        action, entry = decided
        plan.contents[rel] = copy.text
        plan.index[rel] = entry
        plan.changes.append(Change(action, copy.cluster, copy.file, copy.obj))
        if progress is not None and len(plan.changes) % _EVERY == 0:
            progress("planning copies", len(plan.changes), None)
    if conflicts:
        raise InputErrors(conflicts)
    for rel, entry in sorted(previous.items()):
        if rel in plan.index:
            continue
        cluster, _, name = rel.partition("/")
        stale = _decide_stale(_read(out_dir / rel), entry, force)
        if stale is None:
            continue
        plan.changes.append(Change(stale, cluster, name, entry.get("object", "")))
        if stale == "keep":
            plan.index[rel] = entry
    plan.changes.sort(key=lambda c: (c.cluster, c.file))
    return plan


def index_text(files: dict[str, dict[str, str]]) -> str:
    """The index file's text for the entries ``files`` (relpath -> entry)."""
    index = {"apiVersion": INDEX_API_VERSION, "kind": INDEX_KIND, "files": files}
    return json.dumps(index, indent=2, sort_keys=True) + "\n"


def apply_plan(plan: RoutePlan, tx: FileTransaction, progress: Progress | None = None) -> None:
    """Carry out ``plan`` in ``tx``: files, removals, then the index, all committed at
    once (a crash leaves either the old folder or, after the next run, the new one).
    ``progress`` is told how many changes are written, now and then."""
    total = len(plan.changes)
    for done, change in enumerate(plan.changes, 1):
        if progress is not None and done % _EVERY == 0:
            progress("writing copies", done, total)
        path = plan.out_dir / change.relpath
        if change.action in ("add", "update"):
            tx.write(path, plan.contents[change.relpath])
        elif change.action == "remove":
            tx.delete(path)
    text = index_text(plan.index)
    if plan.index_text != text:
        tx.write_last(plan.out_dir / INDEX_NAME, text)
    if progress is not None:
        progress("committing", total, total)
    tx.commit()


def route_into(
    out_dir: Path,
    routed: Sequence[Routed],
    *,
    force: bool = False,
    dry_run: bool = False,
    lock_timeout: float = 0.0,
    progress: Progress | None = None,
) -> RoutePlan:
    """Plan and (unless ``dry_run``) write ``routed`` into ``out_dir`` under the folder's
    lock, after finishing whatever an interrupted run left. A dry run takes no lock and
    writes nothing. ``progress(what, done, total)`` is told how far it is."""
    if dry_run:
        return plan_route_dir(out_dir, routed, force=force, progress=progress)
    with open_output(out_dir, lock_timeout) as tx:
        plan = plan_route_dir(out_dir, routed, force=force, progress=progress)
        apply_plan(plan, tx, progress)
        return plan
