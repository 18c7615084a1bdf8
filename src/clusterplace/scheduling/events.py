"""The events a hub records while binding decisions (events.k8s.io; regarding the Placement)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import add
from typing import Any

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = [
    "SCORE_MESSAGE_LIMIT",
    "Event",
    "ScoreNotes",
    "capped_message",
    "decision_event",
    "score_event",
    "score_message",
    "warning_update_event",
]

SCORE_MESSAGE_LIMIT = 1000


@dataclass(frozen=True)
class Event:
    type: str  # Normal | Warning
    reason: str
    action: str
    note: str
    related: str  # the PlacementDecision's name ("" for none)
    regarding_kind: str = "Placement"

    def to_dict(self, namespace: str, placement: str) -> dict[str, Any]:
        """The event's fields; ``placement`` names the object it regards (a Placement,
        or the kind :attr:`regarding_kind` says)."""
        return {
            "type": self.type,
            "reason": self.reason,
            "action": self.action,
            "note": self.note,
            "regarding": {"kind": self.regarding_kind, "namespace": namespace, "name": placement},
            "related": {"kind": "PlacementDecision", "namespace": namespace, "name": self.related},
        }


_ACTIONS = {
    "DecisionCreate": ("DecisionCreated", "created"),
    "DecisionUpdate": ("DecisionUpdated", "updated"),
    "DecisionDelete": ("DecisionDeleted", "deleted"),
}


def decision_event(reason: str, pd: str, placement: str, namespace: str) -> Event:
    """DecisionCreate / DecisionUpdate / DecisionDelete for one PlacementDecision."""
    action, verb = _ACTIONS[reason]
    note = f"Decision {pd} is {verb} with placement {placement} in namespace {namespace}"
    return Event("Normal", reason, action, note, pd)


def warning_update_event(
    pd: str, placement: str, namespace: str, message: str, plugin: str
) -> Event:
    """DecisionUpdate when the scheduling status is a Warning (e.g. expired scores)."""
    note = (
        f"Decision {pd} is updated with placement {placement} in namespace {namespace}: "
        f"{message} in plugin {plugin}"
    )
    return Event("Warning", "DecisionUpdate", "DecisionUpdated", note, pd)


def score_event(pd: str, message: str) -> Event:
    return Event("Normal", "ScoreUpdate", "ScoreUpdated", message, pd)


def score_message(totals: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
    """``name:score `` for every feasible cluster in name order, capped near 1000 characters.

    ``totals`` is a mapping, or (name, score) pairs already in name order.
    """
    pairs = sorted(totals.items()) if isinstance(totals, Mapping) else totals
    return capped_message([f"{name}:{score} " for name, score in pairs])


class ScoreNotes(SnapshotIndex):
    """ScoreUpdate notes over the snapshot's cluster names, by position.

    Both halves of each ``name:score `` entry are formatted once per run, the name's
    here and the score's on first use (scores repeat across placements): formatting
    them afresh for every placement was most of the cost of its note.
    """

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._prefixes = [f"{name}:" for name in snapshot.names]
        self._texts = _ScoreTexts()
        # Each entry takes at least the shortest prefix and "0 ", so no more than this
        # many can fit (and they cannot all fit): later clusters need not be looked at.
        shortest = min(map(len, self._prefixes), default=0) + 2
        self.most = SCORE_MESSAGE_LIMIT // shortest + 1

    def note(self, positions: Iterable[int], totals: Iterable[int]) -> str:
        """The note for clusters at ``positions`` (in name order) with these totals; only
        the first :attr:`most` can appear in it."""
        prefixes, texts = self._prefixes, self._texts
        return capped_message(
            list(map(add, map(prefixes.__getitem__, positions), map(texts.__getitem__, totals)))
        )

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """Notes read cluster names only, which a replacement keeps: nothing to do."""

    def on_score_changed(self, position: int, resource: str) -> None:
        """Notes are over total scores given to them: nothing to do."""


class _ScoreTexts(dict[int, str]):
    """``"<score> "`` by score, formatted on first use."""

    def __missing__(self, score: int) -> str:
        text = self[score] = f"{score} "
        return text


def capped_message(entries: Sequence[str]) -> str:
    """The entries joined, up to the first one that takes the text past the limit,
    which is replaced by ``......`` (upstream's cap on the ScoreUpdate note)."""
    # Running lengths grow strictly, so a binary search finds the cut.
    fit = bisect_right(list(accumulate(map(len, entries))), SCORE_MESSAGE_LIMIT)
    text = "".join(entries[:fit])
    return text if fit == len(entries) else text + "......"
