"""What ``route --watch`` reads, watched: the manifests (``-f``), the fleet
(``--clusters``) and the observed state (``--observed``), each a set of
:class:`~clusterplace.watch.WatchedFolder` s.

Every file is checked on its own when it is read, as ``route`` checks its input: YAML,
identities, duplicates in the file, and for manifests the ClusterSelector annotation,
``spec.replicas`` and the preferences annotation's type (the checks
:func:`~clusterplace.federation.route_and_divide` makes, which do not depend on the
clusters). A file that fails them is an invalid edit: it is reported with its file and
line, and its last good version stays in force. So the objects in force always route
and divide without an error.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeAlias

from clusterplace.api import ManagedCluster
from clusterplace.codecs import Document, Source, decode, read_documents
from clusterplace.codecs.loader import describe, require_unique_identities
from clusterplace.codecs.routing import route_documents
from clusterplace.errors import InputError, InputErrors
from clusterplace.federation import check_observed, is_workload, object_file_name
from clusterplace.federation.observed import ObservedError
from clusterplace.labels import Labels
from clusterplace.watch import Change, WatchedFolder

__all__ = [
    "DocumentFolder",
    "FleetFolder",
    "InputState",
    "ObservedFolder",
    "RouteInputs",
]

Report = Callable[[str], None]


class DocumentFolder(WatchedFolder[Document, Change[Document]]):
    """Manifests to route, any kinds, each by its file name in a cluster's folder (which
    is its identity: kind and API group, namespace, name)."""

    def __init__(
        self,
        root: Path,
        *,
        recursive: bool = False,
        exclude: Path | None = None,
        report: Report = lambda _: None,
        division: str = "upstream",
    ) -> None:
        super().__init__(root, recursive=recursive, exclude=exclude, report=report)
        self.division = division

    def change(self, old: Document | None, new: Document | None) -> Change[Document]:
        return (old, new)

    def describe(self, entry: Document) -> str:
        return describe(entry.data)

    def parse(self, path: Path, text: str, *, quiet: bool = False) -> dict[Hashable, Document]:
        documents = read_documents([Source(str(path), text)])
        require_unique_identities(documents)
        # Routed to no cluster: what is checked does not depend on the clusters.
        _, warnings = route_documents(
            documents, {}, None, now=datetime.now(UTC), division=self.division
        )
        if not quiet:
            for warning in warnings:
                self.report(f"warning: {warning}")
        return {object_file_name(d.data): d for d in documents}


class FleetFolder(WatchedFolder[ManagedCluster, Change[ManagedCluster]]):
    """Fleet files: their ManagedClusters by name (the other kinds of a fleet are
    checked, as ``route`` checks them, and left aside)."""

    def change(
        self, old: ManagedCluster | None, new: ManagedCluster | None
    ) -> Change[ManagedCluster]:
        return (old, new)

    def describe(self, entry: ManagedCluster) -> str:
        return entry.ref

    def parse(
        self, path: Path, text: str, *, quiet: bool = False
    ) -> dict[Hashable, ManagedCluster]:
        loaded = decode(read_documents([Source(str(path), text)]))
        if not quiet:
            for doc in loaded.unknown:
                kind, api_version = doc.data.get("kind"), doc.data.get("apiVersion")
                self.report(
                    f"warning: {doc.location()}: skipped: this command does not read "
                    f"{api_version} {kind}"
                )
        table: dict[Hashable, ManagedCluster] = {}
        for obj in loaded.objects:
            if not isinstance(obj, ManagedCluster):
                continue
            if obj.name in table:
                found = loaded.document_of(obj)
                raise InputError(
                    f"{obj.ref} is defined twice in this file",
                    found.location() if found is not None else None,
                )
            table[obj.name] = obj
        return table


ObservedKey: TypeAlias = tuple[str, str, str, str, str]  # cluster, group, kind, ns, name


class ObservedFolder(WatchedFolder[Document, Change[Document]]):
    """``--observed DIR``: one folder per cluster, read recursively; each object by
    (cluster, API group, kind, namespace, name)."""

    def __init__(self, root: Path, *, report: Report = lambda _: None) -> None:
        super().__init__(root, recursive=True, report=report)

    def change(self, old: Document | None, new: Document | None) -> Change[Document]:
        return (old, new)

    def describe(self, entry: Document) -> str:
        return describe(entry.data)

    def cluster_of(self, path: Path) -> str | None:
        relative = self._relative(path)
        return relative.parts[0] if relative is not None and len(relative.parts) > 1 else None

    def parse(self, path: Path, text: str, *, quiet: bool = False) -> dict[Hashable, Document]:
        cluster = self.cluster_of(path)
        if cluster is None:
            if not quiet:
                self.report(f"warning: {path}: not a cluster folder; ignored")
            return {}
        documents = read_documents([Source(str(path), text)])
        problems: list[InputError] = []
        table: dict[Hashable, Document] = {}
        for doc in documents:
            try:
                check_observed(doc.data)
            except ObservedError as err:
                problems.extend(InputError(msg, doc.location(p)) for p, msg in err.problems)
                continue
            meta = doc.data["metadata"]
            kind = str(doc.data.get("kind", ""))
            group = str(doc.data.get("apiVersion", "")).rpartition("/")[0]
            namespace = str(meta.get("namespace") or "default")
            key: ObservedKey = (cluster, group, kind, namespace, str(meta["name"]))
            if key in table and is_workload(doc.data):
                problems.append(
                    InputError(
                        f"{describe(doc.data)} is observed twice in cluster {cluster!r} "
                        f"(also at {table[key].location()})",
                        doc.location(),
                    )
                )
                continue
            table[key] = doc
        if problems:
            raise InputErrors(problems)
        return table


@dataclass(frozen=True)
class InputState:
    """The inputs in force at one moment: the manifests by file name, every cluster's
    labels, and (with ``--observed``) the objects observed in each cluster folder."""

    objects: dict[str, Document]
    labels: dict[str, Labels]
    observed: dict[str, dict[Hashable, Document]] | None


class RouteInputs:
    """Every input of ``route --watch``: the ``-f`` paths, the ``--clusters`` paths and
    the ``--observed`` folder, as watched folders. ``exclude`` (the output folder) is
    never read as input."""

    def __init__(
        self,
        manifests: Sequence[Path],
        fleets: Sequence[Path],
        observed: Path | None,
        *,
        recursive: bool = False,
        exclude: Path | None = None,
        division: str = "upstream",
        report: Report = lambda _: None,
    ) -> None:
        self.report = report
        self.manifests = [
            DocumentFolder(
                p, recursive=recursive, exclude=exclude, report=report, division=division
            )
            for p in manifests
        ]
        self.fleets = [
            FleetFolder(p, recursive=recursive, exclude=exclude, report=report) for p in fleets
        ]
        self.observed = ObservedFolder(observed, report=report) if observed is not None else None
        self._twice: set[tuple[Hashable, Path]] = set()  # defined under two -f paths

    @property
    def folders(self) -> list[WatchedFolder[Any, Any]]:
        found: list[WatchedFolder[Any, Any]] = [*self.manifests, *self.fleets]
        if self.observed is not None:
            found.append(self.observed)
        return found

    @property
    def unknown(self) -> list[Path]:
        """The files and folders whose contents are unknown (unreadable, and no good
        version read before): while there are any, nothing may be written."""
        return sorted(p for folder in self.folders for p in folder.unreadable)

    @property
    def pending(self) -> bool:
        return any(folder.pending for folder in self.folders)

    def scan(self, paths: Iterable[Path] | None = None, *, settling: bool = False) -> bool:
        """Scan every folder (``paths``: only those files, in the folders they are
        under; ``settling``: only the files each folder left to read later); whether
        anything in force changed."""
        changed = False
        chosen = None if paths is None else list(paths)
        for folder in self.folders:
            if settling:
                if not folder.pending:
                    continue
                mine: list[Path] | None = sorted(folder.pending)
            elif chosen is None:
                mine = None
            else:
                mine = [p for p in chosen if folder.owns(p)]
                if not mine:
                    continue
            try:
                changed |= bool(folder.scan(paths=mine))
            except Exception as err:  # never stops the watch: the next scan tries again
                self.report(
                    f"{folder.root}: the scan failed ({type(err).__name__}: {err}); retrying"
                )
                folder.pending = set()
        return changed

    def snapshot(self) -> InputState:
        """The inputs in force now; an object (or cluster) defined under two paths is
        taken from the first, and reported once."""
        objects: dict[str, Document] = {}
        for folder in self.manifests:
            self._merge(folder, objects)
        clusters: dict[str, ManagedCluster] = {}
        for fleet in self.fleets:
            self._merge(fleet, clusters)
        labels: dict[str, Labels] = {name: c.labels for name, c in clusters.items()}
        observed: dict[str, dict[Hashable, Document]] | None = None
        if self.observed is not None:
            observed = {}
            for key, doc in self.observed.entries().items():
                assert isinstance(key, tuple)
                observed.setdefault(str(key[0]), {})[key] = doc
        return InputState(objects, labels, observed)

    def _merge(self, folder: WatchedFolder[Any, Any], into: dict[Any, Any]) -> None:
        for key, entry in folder.entries().items():
            if key not in into:
                into[key] = entry
                continue
            if (key, folder.root) not in self._twice:
                self._twice.add((key, folder.root))
                self.report(
                    f"{folder.root}: {folder.describe(entry)} is defined twice (also under "
                    "an earlier path); the first one is in force"
                )
