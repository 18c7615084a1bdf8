"""The events a hub records while binding decisions (events.k8s.io; regarding the Placement)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SCORE_MESSAGE_LIMIT",
    "Event",
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
    related: str  # the PlacementDecision's name

    def to_dict(self, namespace: str, placement: str) -> dict[str, Any]:
        return {
            "type": self.type,
            "reason": self.reason,
            "action": self.action,
            "note": self.note,
            "regarding": {"kind": "Placement", "namespace": namespace, "name": placement},
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
    entries = []
    length = 0
    for name, score in pairs:
        entry = f"{name}:{score} "
        length += len(entry)
        if length > SCORE_MESSAGE_LIMIT:
            entries.append("......")
            break
        entries.append(entry)
    return "".join(entries)
