"""The plugin framework: statuses, and the filter and prioritizer interfaces.

Shaped after OCM's ``pkg/placement/plugins``: a filter narrows a cluster list, a
prioritizer scores it, and each reports a :class:`Status`. Adding a plugin means
adding one module that implements one of these protocols and registering it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from clusterplace.api import ManagedCluster, Placement

if TYPE_CHECKING:
    from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "Code",
    "Context",
    "Filter",
    "FilterResult",
    "Prioritizer",
    "ScoreResult",
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
class FilterResult:
    clusters: list[ManagedCluster]
    status: Status = field(default_factory=Status.success)
    # Why each removed cluster was removed (for explanations), by cluster name.
    rejected: dict[str, str] = field(default_factory=dict)
    # Remarks on kept clusters worth explaining (e.g. a toleration that will expire).
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class ScoreResult:
    scores: dict[str, int]
    status: Status = field(default_factory=Status.success)


class Filter(Protocol):
    name: str

    def filter(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> FilterResult: ...


class Prioritizer(Protocol):
    name: str

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult: ...
