"""What-if: apply edits to a scheduled fleet, say per placement what moved, undo them.

The work is done by :class:`IncrementalSchedule`: an edit to a cluster schedules again
only the placements it reaches, so a what-if on a large fleet costs milliseconds; an
edit to a placement or a binding schedules everything again (exact by construction).
The run is left as it was found: every edit is undone before :func:`what_if` returns.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from clusterplace.api import Fleet
from clusterplace.mergepatch import merge_patch
from clusterplace.scheduling.edits import Edit, EditedObject, apply_edits
from clusterplace.scheduling.incremental import ChangeReport, IncrementalSchedule
from clusterplace.scheduling.results import PlacementResult

__all__ = [
    "GroupMove",
    "PlacementDiff",
    "ScoreMove",
    "WhatIf",
    "applied",
    "what_if",
    "what_if_fleet",
]


@dataclass(frozen=True)
class ScoreMove:
    """A cluster's total score for one placement, before and after (None: not feasible)."""

    cluster: str
    before: int | None
    after: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "before": self.before, "after": self.after}


Group = tuple[int, str]  # a decision group: (index, name; "" when unnamed)


@dataclass(frozen=True)
class GroupMove:
    """A cluster whose decision group the edits changed (None: not selected)."""

    cluster: str
    before: Group | None
    after: Group | None

    def to_dict(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "before": _group(self.before), "after": _group(self.after)}


def _group(group: Group | None) -> dict[str, Any] | None:
    if group is None:
        return None
    index, name = group
    return {"index": index, "name": name} if name else {"index": index}


@dataclass(frozen=True)
class PlacementDiff:
    """What the edits did to one placement's decisions: the clusters gained and lost,
    the totals that moved, and every cluster whose decision group changed (the gained
    and lost ones included)."""

    namespace: str
    name: str
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    scores: tuple[ScoreMove, ...]
    selected_before: int
    selected_after: int
    groups: tuple[GroupMove, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "placement": self.ref,
            "gained": list(self.gained),
            "lost": list(self.lost),
            "selectedBefore": self.selected_before,
            "selectedAfter": self.selected_after,
            "scores": [s.to_dict() for s in self.scores],
            "groups": [g.to_dict() for g in self.groups],
        }


@dataclass(frozen=True)
class WhatIf:
    """Every placement whose decisions or scores the edits move, in run order."""

    edits: tuple[Edit, ...]
    diffs: tuple[PlacementDiff, ...]
    changes: tuple[EditedObject, ...] = field(repr=False)
    rescheduled: int
    full: bool
    seconds: float

    def patches(self) -> list[dict[str, Any]]:
        """The edits as JSON merge patches (RFC 7386), one per object: a new object
        whole, a removed one as its identity with ``deleted: true``."""
        out = []
        for change in self.changes:
            if change.after is None:
                assert change.before is not None
                out.append({**_identity(change.before.to_dict()), "deleted": True})
                continue
            after = change.after.to_dict()
            if change.before is None:
                out.append(after)
                continue
            patch = merge_patch(change.before.to_dict(), after)
            body = _identity(after)
            body["metadata"].update(patch.pop("metadata", {}))
            out.append({**body, **patch})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "edits": [e.to_dict() for e in self.edits],
            "placements": [d.to_dict() for d in self.diffs],
            "rescheduled": self.rescheduled,
            "full": self.full,
            "seconds": round(self.seconds, 6),
        }


def _identity(body: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in body["metadata"].items() if k in ("name", "namespace")}
    return {"apiVersion": body["apiVersion"], "kind": body["kind"], "metadata": metadata}


@contextlib.contextmanager
def applied(
    run: IncrementalSchedule, edits: Sequence[Edit]
) -> Iterator[tuple[list[EditedObject], list[ChangeReport]]]:
    """Apply ``edits`` to ``run`` for the ``with`` block, then undo them (the run's result
    is then again what it was: IncrementalSchedule is exact after every change)."""
    changes = apply_edits(run.fleet, edits)
    done: list[EditedObject] = []
    reports: list[ChangeReport] = []
    try:
        for change in changes:
            if change.after is None:
                assert change.before is not None
                reports.append(run.delete(change.before))
            else:
                reports.append(run.apply(change.after))
            done.append(change)
        yield changes, reports
    finally:
        for change in reversed(done):
            if change.before is None:
                assert change.after is not None
                run.delete(change.after)
            else:
                run.apply(change.before)


def what_if(run: IncrementalSchedule, edits: Sequence[Edit]) -> WhatIf:
    """The per-placement diff ``edits`` make to ``run``'s result (``run`` is unchanged)."""
    start = time.perf_counter()
    # Results are replaced on a change, never mutated, so a shallow copy keeps the old ones.
    before = list(run.result.placements)
    with applied(run, edits) as (changes, reports):
        full = any(r.full for r in reports)
        now = run.result.placements
        if full:
            diffs, rescheduled = _full_diffs(before, now)
        else:
            # The run's order is unchanged, so a placement's old and new result share a
            # step: only the rescheduled steps are looked at (keying all 5,000 results by
            # name cost as much as the rescheduling itself on S3).
            steps = sorted(
                {j for r in reports for k in r.rescheduled if (j := run.step_of(k)) is not None}
            )
            diffs = [
                diff
                for j in steps
                if now[j] is not before[j] and (diff := _diff(before[j], now[j])) is not None
            ]
            rescheduled = len(steps)
    return WhatIf(
        tuple(edits),
        tuple(diffs),
        tuple(changes),
        rescheduled,
        full,
        time.perf_counter() - start,
    )


def _full_diffs(
    before: list[PlacementResult], now: list[PlacementResult]
) -> tuple[list[PlacementDiff], int]:
    """After a full reschedule (placements may have come or gone): every placement of
    the old run, matched by name, in the old run's order."""
    current = {_key(r): r for r in now}
    diffs = []
    for old in before:
        after = current.get(_key(old))
        if after is None or after is old:
            continue
        diff = _diff(old, after)
        if diff is not None:
            diffs.append(diff)
    return diffs, len(before)


def what_if_fleet(fleet: Fleet, edits: Sequence[Edit], now: datetime | None = None) -> WhatIf:
    """:func:`what_if` on a fleet not yet scheduled (schedules it first)."""
    return what_if(IncrementalSchedule(fleet, now=now), edits)


def _key(result: PlacementResult) -> tuple[str, str]:
    return result.placement.namespace, result.placement.name


def _selected(result: PlacementResult) -> list[str]:
    return [n for pd in result.decisions for n in pd.cluster_names]


def _totals(result: PlacementResult) -> dict[str, int]:
    return dict(result.outcome.totals) if result.outcome is not None else {}


def _groups(result: PlacementResult) -> dict[str, Group]:
    return {c: (g.index, g.name) for g in result.groups for c in g.clusters}


def _diff(old: PlacementResult, new: PlacementResult) -> PlacementDiff | None:
    was, now = _selected(old), _selected(new)
    gained = tuple(sorted(set(now) - set(was)))
    lost = tuple(sorted(set(was) - set(now)))
    before, after = _totals(old), _totals(new)
    moves = tuple(
        ScoreMove(name, before.get(name), after.get(name))
        for name in sorted(before.keys() | after.keys())
        if before.get(name) != after.get(name)
    )
    groups_before, groups_after = _groups(old), _groups(new)
    regrouped = tuple(
        GroupMove(name, groups_before.get(name), groups_after.get(name))
        for name in sorted(groups_before.keys() | groups_after.keys())
        if groups_before.get(name) != groups_after.get(name)
    )
    if not gained and not lost and not moves and not regrouped:
        return None
    ns, name = _key(new)
    return PlacementDiff(ns, name, gained, lost, moves, len(was), len(now), regrouped)
