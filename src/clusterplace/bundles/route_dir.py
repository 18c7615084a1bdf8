"""The ``route`` output directory: one folder per cluster, one file per object, and an
index of what clusterplace wrote so that later runs remove only their own copies."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

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


class _Rendered:
    """Each distinct copy text once: its UTF-8 bytes and digest. Copies of one object
    share their text (the same string), so a text is encoded and hashed once however
    many clusters get it."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[bytes, str]] = {}

    def __call__(self, text: str) -> tuple[bytes, str]:
        found = self._seen.get(text)
        if found is None:
            data = text.encode("utf-8")
            found = self._seen[text] = (data, hashlib.sha256(data).hexdigest())
        return found


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


def _plain_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name


def _inside(out_dir: Path, rel: str, checked: dict[str, bool] | None = None) -> bool:
    """``rel`` is ``<cluster>/<file>`` and stays inside ``out_dir`` (an index is input too):
    plain names, and a cluster folder that is no symlink leading elsewhere (``checked``
    remembers each folder's verdict: the file names themselves hold no separator)."""
    cluster, _, file = rel.partition("/")
    if not (_plain_name(cluster) and _plain_name(file)):
        return False
    if checked is not None and cluster in checked:
        return checked[cluster]
    root = resolve(out_dir)
    verdict = resolve(root / cluster).parent == root
    if checked is not None:
        checked[cluster] = verdict
    return verdict


def _inside_parts(out_dir: Path, cluster: str, file: str, checked: dict[str, bool]) -> bool:
    """:func:`_inside` for ``cluster/file`` given as its two parts (the cluster's
    verdict remembered in ``checked``)."""
    if not _plain_name(file):
        return False
    verdict = checked.get(cluster)
    if verdict is None:
        verdict = _inside(out_dir, f"{cluster}/x", checked)
    return verdict


def _parse_index(
    out_dir: Path, text: str | None, checked: dict[str, bool] | None = None
) -> dict[str, dict[str, str]]:
    path = out_dir / INDEX_NAME
    if text is None:
        return {}
    try:
        # Not jsontext.loads: its depth scan of an index of a million entries takes
        # seconds; the decoder's own recursion limit refuses a text nested too deep.
        data = json.loads(text)
        files = data["files"]
        if data.get("kind") != INDEX_KIND or not isinstance(files, dict):
            raise ValueError
        entries = {str(k): dict(v) for k, v in files.items()}
        checked = {} if checked is None else checked
        if not all(_inside(out_dir, rel, checked) for rel in entries):
            raise ValueError
        return entries
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
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


def _as_read(path: Path, raw: bytes | None) -> str | None:
    """``raw`` as :func:`_read` gives a file's text (newlines translated as text mode
    reads them), or its error."""
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise OutputError(f"{path}: cannot read: not UTF-8 text") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


class _Folder:
    """What the output folder holds, read as cheaply as it can be: each cluster's folder
    is listed once, so a copy not there yet costs no call, and a copy there is read with
    one open and read (no path objects)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._prefix = os.fspath(out_dir) + os.sep
        self._names: dict[str, frozenset[str] | None] = {}

    def _listed(self, cluster: str) -> frozenset[str] | None:
        """The names in ``cluster``'s folder; None when it cannot be listed (each file
        is then tried, and its own error reported)."""
        try:
            return self._names[cluster]
        except KeyError:
            pass
        names: frozenset[str] | None
        try:
            names = frozenset(os.listdir(self._prefix + cluster))  # noqa: PTH208 (names only)
        except FileNotFoundError:
            names = frozenset()
        except (OSError, ValueError):
            names = None
        self._names[cluster] = names
        return names

    def read(self, cluster: str, file: str) -> bytes | None:
        """The bytes of ``cluster/file``, or None when there is no such file."""
        names = self._listed(cluster)
        if names is not None and file not in names:
            return None
        path = f"{self._prefix}{cluster}{os.sep}{file}"
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise OutputError(f"{path}: cannot read: {err.strerror}") from None
        try:
            chunks: list[bytes] = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
        except OSError as err:
            raise OutputError(f"{path}: cannot read: {err.strerror}") from None
        finally:
            os.close(fd)
        return b"".join(chunks)


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
        ref = object_ref(item.obj)
        if item.division is None:  # one text for every cluster
            text = dump_yaml_stream([dict(item.obj)])
            for cluster in item.clusters:
                yield RouteCopy(cluster, item.file_name, ref, text)
            continue
        # A divided workload's copies differ by spec.replicas only: one text per count.
        texts: dict[int, str] = {}
        for cluster in item.clusters:
            replicas = item.division.replicas(cluster)
            if replicas not in texts:
                texts[replicas] = dump_yaml_stream([dict(item.copy_for(cluster))])
            yield RouteCopy(cluster, item.file_name, ref, texts[replicas])


def _decide(
    path: Path,
    copy: RouteCopy,
    current: str | None,
    previous: dict[str, str] | None,
    force: bool,
    digest: str | None = None,
) -> tuple[str, dict[str, str]] | InputError:
    """What becomes of ``copy`` given the file's ``current`` text and its ``previous``
    index entry: (action, its index entry), or the conflict that refuses it.
    ``digest`` is the copy's, if known."""
    entry = {"object": copy.obj, "sha256": digest or _digest(copy.text)}
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
    checked: dict[str, bool] = {}
    previous = _parse_index(out_dir, plan.index_text, checked)
    conflicts: list[InputError] = []
    folder = _Folder(out_dir)
    rendered = _Rendered()
    contents, index, changes = plan.contents, plan.index, plan.changes
    for copy in copies:
        cluster, file, text = copy.cluster, copy.file, copy.text
        rel = f"{cluster}/{file}"
        if not _inside_parts(out_dir, cluster, file, checked):
            conflicts.append(_bad_cluster(out_dir, cluster))
            continue
        data, digest = rendered(text)
        raw = folder.read(cluster, file)
        if raw is None:
            action, entry = "add", {"object": copy.obj, "sha256": digest}
        elif raw == data:  # the common case of a re-run: the very bytes it would write
            action, entry = "unchanged", {"object": copy.obj, "sha256": digest}
        else:
            path = out_dir / rel
            decided = _decide(path, copy, _as_read(path, raw), previous.get(rel), force, digest)
            if isinstance(decided, InputError):
                conflicts.append(decided)
                continue
            action, entry = decided
        contents[rel] = text
        index[rel] = entry
        changes.append(Change(action, cluster, file, copy.obj))
        if progress is not None and len(changes) % _EVERY == 0:
            progress("planning copies", len(changes), None)
    if conflicts:
        raise InputErrors(conflicts)
    for rel, entry in sorted(previous.items()):
        if rel in plan.index:
            continue
        cluster, _, name = rel.partition("/")
        path = out_dir / rel
        stale = _decide_stale(_as_read(path, folder.read(cluster, name)), entry, force)
        if stale is None:
            continue
        plan.changes.append(Change(stale, cluster, name, entry.get("object", "")))
        if stale == "keep":
            plan.index[rel] = entry
    plan.changes.sort(key=lambda c: (c.cluster, c.file))
    return plan


_quote = json.encoder.encode_basestring_ascii  # a JSON string, as json.dumps writes it


def index_entry_text(rel: str, entry: dict[str, str]) -> str:
    """One entry of the index's text, as :func:`index_text` writes it inside ``files``."""
    if len(entry) == 2:
        obj, digest = entry.get("object"), entry.get("sha256")
        if type(obj) is str and type(digest) is str:  # what every run writes
            return (
                f'    {_quote(rel)}: {{\n      "object": {_quote(obj)},\n'
                f'      "sha256": {_quote(digest)}\n    }}'
            )
    body = json.dumps(entry, indent=2, sort_keys=True).replace("\n", "\n    ")
    return f"    {_quote(rel)}: {body}"


def index_text(files: dict[str, dict[str, str]]) -> str:
    """The index file's text for the entries ``files`` (relpath -> entry): what
    ``json.dumps(index, indent=2, sort_keys=True)`` gives, written entry by entry (the
    indented encoder is pure Python, and slow on hundreds of thousands of entries)."""
    if not files:
        index = {"apiVersion": INDEX_API_VERSION, "kind": INDEX_KIND, "files": files}
        return json.dumps(index, indent=2, sort_keys=True) + "\n"
    body = ",\n".join([index_entry_text(rel, files[rel]) for rel in sorted(files)])
    return (
        f'{{\n  "apiVersion": {_quote(INDEX_API_VERSION)},\n  "files": {{\n{body}\n  }},\n'
        f'  "kind": {_quote(INDEX_KIND)}\n}}\n'
    )


def apply_plan(plan: RoutePlan, tx: FileTransaction, progress: Progress | None = None) -> None:
    """Carry out ``plan`` in ``tx``: files, removals, then the index, all committed at
    once (a crash leaves either the old folder or, after the next run, the new one).
    ``progress`` is told how many changes are written, now and then."""
    total = len(plan.changes)
    rendered = _Rendered()

    def files() -> Iterator[tuple[str, bytes]]:
        for done, change in enumerate(plan.changes, 1):
            if progress is not None and done % _EVERY == 0:
                progress("writing copies", done, total)
            if change.action in ("add", "update"):
                rel = f"{change.cluster}/{change.file}"
                yield rel, rendered(plan.contents[rel])[0]

    tx.write_many(files())
    for change in plan.changes:
        if change.action == "remove":
            tx.delete(plan.out_dir / change.relpath)
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
