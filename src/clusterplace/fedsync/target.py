"""Where routed copies go: a :class:`Target` holds each member cluster's copies.

The sync (:class:`~clusterplace.fedsync.engine.RouteSync`) decides what every cluster
should hold; a target carries it out and says what became of each copy. The first
target is a ``route`` output folder (:class:`~clusterplace.fedsync.folder.FolderTarget`:
one folder per cluster, written crash-safely); a member cluster's API server is the
next one, with the same protocol (create or update a copy, delete one, NotFound being
success).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["ACTIONS", "ClusterChanges", "Copy", "CopyOutcome", "Target"]

# What can become of a copy: written new, rewritten, already as desired, removed (or
# gone already), kept as it is (edited by hand since it was written), or refused (the
# target would not take it; the sync tries again later).
ACTIONS = ("add", "update", "unchanged", "remove", "keep", "refused")


@dataclass(frozen=True, eq=False)
class Copy:
    """One object as it goes to a cluster: ``name`` is its name among the cluster's
    copies (the file name, in a folder), ``manifest`` the object with the cluster's
    share of the replicas, ``text`` its YAML (what a folder holds; also what tells two
    copies apart). One Copy may go to many clusters."""

    obj: str  # Kind/namespace/name
    name: str
    manifest: Mapping[str, Any]
    text: str


@dataclass(frozen=True)
class CopyOutcome:
    """What became of one copy in one cluster (``action``: one of :data:`ACTIONS`);
    ``where`` is the copy as the target names it (a path), ``message`` why it was kept
    or refused, ``reason`` a word for it where the target has one (a member cluster's:
    ``conflict``, ``unreachable``, ``forbidden``, ``failed``, ``no-context``)."""

    action: str
    cluster: str
    name: str
    obj: str
    where: str
    message: str = ""
    reason: str = ""


@dataclass
class ClusterChanges:
    """A change set for one cluster: the copies to create or update (by name) and the
    copies to delete (name -> object)."""

    put: dict[str, Copy] = field(default_factory=dict)
    delete: dict[str, str] = field(default_factory=dict)


class Target(Protocol):
    """The member clusters' copies, as one place holds them.

    :meth:`converge` makes the target hold exactly ``desired`` (and removes the copies
    it wrote earlier that are not desired any more); :meth:`apply` carries out one
    change set. Both return an :class:`CopyOutcome` per copy looked at and raise
    :class:`~clusterplace.errors.ClusterplaceError` when nothing could be done (then
    :attr:`needs_converge` may say that only a converge can tell what the target
    holds). A copy the target would not take is an outcome ``refused``, not an error.
    """

    @property
    def where(self) -> str:
        """The target as a report names it."""
        ...

    @property
    def needs_converge(self) -> bool:
        """Whether the next call must be :meth:`converge` (at start, after a failure)."""
        ...

    def open(self) -> None:
        """Take hold of the target (a folder's lock); raises if another run holds it."""
        ...

    def close(self) -> None: ...

    def converge(self, desired: Mapping[str, Mapping[str, Copy]]) -> list[CopyOutcome]:
        """Make every cluster hold exactly ``desired[cluster]`` (name -> copy)."""
        ...

    def apply(self, changes: Mapping[str, ClusterChanges]) -> list[CopyOutcome]:
        """Carry out one change set (cluster -> its changes)."""
        ...
