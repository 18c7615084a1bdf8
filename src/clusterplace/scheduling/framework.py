"""The plugin framework: statuses, and the filter and prioritizer interfaces.

Shaped after OCM's ``pkg/placement/plugins``: a filter narrows a cluster list, a
prioritizer scores it, and each reports a :class:`Status`. Plugins work on cluster
positions in the snapshot (numpy arrays, ascending = name order) so a placement over
a large fleet costs array operations, not a Python loop per cluster; the list-based
``filter``/``score`` methods of :class:`FilterPlugin`/:class:`PrioritizerPlugin` are
the same plugins for callers that hold cluster objects. Adding a plugin means adding
one module with one such class and registering it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from clusterplace.api import ManagedCluster, Placement

# What plugins read (their ``reads`` sets), re-exported for plugin authors.
from clusterplace.scheduling.reads import (
    ADDON_SCORES,
    CLAIMS,
    CLUSTER,
    DECISIONS,
    LABELS,
    RESOURCES,
    TAINTS,
)

if TYPE_CHECKING:
    from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "ADDON_SCORES",
    "CLAIMS",
    "CLUSTER",
    "DECISIONS",
    "LABELS",
    "RESOURCES",
    "TAINTS",
    "Code",
    "Context",
    "FilterPlugin",
    "FilterResult",
    "Filtered",
    "PrioritizerPlugin",
    "ScoreResult",
    "Scored",
    "Status",
]


class Code(Enum):
    SUCCESS = "Success"
    WARNING = "Warning"
    ERROR = "Error"
    MISCONFIGURED = "Misconfigured"


@dataclass(frozen=True)
class Status:
    """A plugin's verdict: a code, the plugin's name, and reasons."""

    code: Code = Code.SUCCESS
    plugin: str = ""
    reasons: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def ok(self) -> bool:
        return self.code in (Code.SUCCESS, Code.WARNING)

    @classmethod
    def success(cls) -> Status:
        return _SUCCESS

    @classmethod
    def misconfigured(cls, plugin: str, *reasons: str) -> Status:
        return cls(Code.MISCONFIGURED, plugin, reasons)

    @classmethod
    def warning(cls, plugin: str, *reasons: str) -> Status:
        return cls(Code.WARNING, plugin, reasons)


_SUCCESS = Status()


@dataclass(frozen=True)
class Context:
    """What a plugin may look at: the placement, the fleet snapshot, and the time."""

    placement: Placement
    snapshot: Snapshot
    now: datetime


@dataclass
class Filtered:
    """A filter's output: the kept positions (ascending) and its status."""

    positions: np.ndarray
    status: Status = field(default_factory=Status.success)


@dataclass
class Scored:
    """A prioritizer's output, aligned with its input positions. ``present`` marks the
    clusters that got a score (None: all did); the others count 0."""

    scores: np.ndarray
    present: np.ndarray | None = None
    status: Status = field(default_factory=Status.success)
    # No score is larger than this in absolute value (None: not known). Selection
    # uses it to know that one combined sort key cannot overflow.
    limit: int | None = None


@dataclass
class FilterResult:
    clusters: list[ManagedCluster]
    status: Status = field(default_factory=Status.success)
    rejected: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class ScoreResult:
    scores: dict[str, int]
    status: Status = field(default_factory=Status.success)


class FilterPlugin(ABC):
    """Base of filters: implement ``filter_positions`` and ``explain``; ``note`` and
    ``requeue_at`` optionally; declare what the filter ``reads``."""

    name: str = ""
    reads: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def filter_positions(self, ctx: Context, positions: np.ndarray) -> Filtered:
        """Those of ``positions`` (ascending) the filter keeps, and its status."""

    @abstractmethod
    def explain(self, ctx: Context, cluster: ManagedCluster) -> str | None:
        """Why this filter removes ``cluster`` (None when it keeps it)."""

    def reads_for(self, placement: Placement) -> frozenset[str]:
        """What the filter reads for ``placement`` (at most ``reads``)."""
        return self.reads

    def requeue_at(self, ctx: Context) -> datetime | None:
        """When the placement must be scheduled again although nothing changed (e.g. a
        toleration runs out); None: never."""
        return None

    def note(self, ctx: Context, cluster: ManagedCluster) -> str | None:
        """A remark on a kept cluster worth explaining (e.g. a toleration that expires)."""
        return None

    def filter(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> FilterResult:
        """The same filter over cluster objects, with a reason for each removed one."""
        snapshot = ctx.snapshot
        result = self.filter_positions(ctx, snapshot.positions(clusters))
        if not result.status.ok:
            return FilterResult([], result.status)
        kept = set(snapshot.names_of(result.positions))
        rejected = {c.name: self.explain(ctx, c) or "" for c in clusters if c.name not in kept}
        notes = {c.name: note for c in clusters if c.name in kept and (note := self.note(ctx, c))}
        return FilterResult([c for c in clusters if c.name in kept], result.status, rejected, notes)


class PrioritizerPlugin(ABC):
    """Base of prioritizers: implement ``score_positions``; ``requeue_at`` optionally; declare
    what the prioritizer ``reads``."""

    name: str = ""
    reads: ClassVar[frozenset[str]] = frozenset()
    # False: the scores depend only on the positions scored, the snapshot and the time,
    # never on which placement asks (AddOn, ResourceAllocatable*), so placements over
    # the same positions at the same time may share them.
    per_placement: ClassVar[bool] = True

    @abstractmethod
    def score_positions(self, ctx: Context, positions: np.ndarray) -> Scored:
        """A score for each of ``positions`` (aligned), and the status."""

    def requeue_at(self, ctx: Context) -> datetime | None:
        """When the placement must be scheduled again although nothing changed."""
        return None

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        """The same prioritizer over cluster objects: scores by cluster name."""
        snapshot = ctx.snapshot
        positions = snapshot.positions(clusters)
        result = self.score_positions(ctx, positions)
        present = (
            result.present if result.present is not None else np.ones(len(positions), dtype=bool)
        )
        scores = {
            name: int(value)
            for name, value, has in zip(
                snapshot.names_of(positions), result.scores.tolist(), present.tolist(), strict=True
            )
            if has
        }
        return ScoreResult(scores, result.status)
