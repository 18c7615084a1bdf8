"""Schedule every Placement of a fleet, as a hub's placement controller would.

Placements are scheduled one at a time in (namespace, name) order; each sees the
PlacementDecisions of the input as updated by the placements before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial

from clusterplace.api import Fleet, KubeObject, Placement, PlacementDecision
from clusterplace.api.base import set_condition
from clusterplace.api.placement import DISABLE_SCHEDULING_ANNOTATION, PlacementStatus
from clusterplace.collector import collector_paused
from clusterplace.scheduling.candidates import SetSelectorError
from clusterplace.scheduling.conditions import (
    misconfigured_condition,
    satisfied_condition,
)
from clusterplace.scheduling.decisions import (
    DecisionPages,
    GroupResult,
    make_groups,
)
from clusterplace.scheduling.events import (
    Event,
    decision_event,
    score_event,
    warning_update_event,
)
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.pipeline import Outcome, run_pipeline
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.snapshot import DecisionStore, Snapshot

__all__ = ["PlacementResult", "ScheduleResult", "schedule", "schedule_one"]


_PROGRESS_EVERY = 64  # placements between two progress reports


def schedule(
    source: Fleet | Iterable[KubeObject],
    now: datetime | None = None,
    *,
    progress: Callable[[int], None] | None = None,
) -> ScheduleResult:
    """Schedule every Placement in ``source`` (a :class:`Fleet` or typed objects).

    ``now`` (default: the current time) drives tolerationSeconds, score expiry and
    requeue times. Nothing in ``source`` is modified. ``progress`` is told how many
    placements are done, now and then (for a progress bar).
    """
    fleet = source if isinstance(source, Fleet) else Fleet.of(source)
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # a naive time is UTC, as timestamps in input are
    with collector_paused():
        snapshot = Snapshot(fleet)
        results = []
        for key in sorted(fleet.placements):
            result = schedule_one(snapshot, fleet.placements[key], moment)
            if result.outcome is not None:  # it was scheduled: later placements see it
                record_decisions(snapshot.decisions, key, result)
            results.append(result)
            if progress is not None and len(results) % _PROGRESS_EVERY == 0:
                progress(len(results))
    return ScheduleResult(results, snapshot)


def record_decisions(store: DecisionStore, key: tuple[str, str], result: PlacementResult) -> None:
    """Put the result's decisions in place of the placement's in ``store``: counted by
    cluster at once, the objects built only when someone reads them."""
    source = result.decision_source
    if isinstance(source, DecisionPages):
        store.replace_planned(key[0], key[1], source.names, source.clusters, source)
    else:
        store.replace(*key, result.decisions)


def _events(
    placement: Placement,
    old: list[PlacementDecision],
    pages: Callable[[], list[PlacementDecision]],
    status: Status,
    outcome: Outcome,
) -> list[Event]:
    """The sync's events (built when the result's events are first read: everything
    they depend on is final when the placement has been scheduled)."""
    new = pages()
    ns, name = placement.namespace, placement.name
    before = {pd.name: pd for pd in old}
    events: list[Event] = []
    message: str | None = None  # the ScoreUpdate note, built once if needed
    for pd in new:
        previous = before.get(pd.name)
        if previous is None:
            events.append(decision_event("DecisionCreate", pd.name, name, ns))
            # A real API server drops status on create; it is then patched if not empty.
            changed = bool(pd.status.decisions)
        else:
            changed = previous.status.decisions != pd.status.decisions
        if not changed:
            continue
        if status.code == Code.WARNING:
            events.append(warning_update_event(pd.name, name, ns, status.message, status.plugin))
        else:
            events.append(decision_event("DecisionUpdate", pd.name, name, ns))
        if len(outcome.feasible_positions):
            if message is None:
                message = outcome.score_message()
            events.append(score_event(pd.name, message))
    events.extend(decision_event("DecisionDelete", pd, name, ns) for pd in _deleted(old, new))
    return events


def _deleted(old: list[PlacementDecision], new: Iterable[PlacementDecision | str]) -> list[str]:
    """Names of ``old`` decisions that ``new`` (decisions or their names) does not keep."""
    kept = {pd if isinstance(pd, str) else pd.name for pd in new}
    return [pd.name for pd in old if pd.name not in kept]


class NewStatus:
    """The status a sync gives its placement and the placement with it, each built when
    first asked for (a settling loop compares the status alone)."""

    __slots__ = ("_args", "_status")

    def __init__(
        self,
        placement: Placement,
        selected: int,
        groups: tuple[GroupResult, ...],
        status: Status,
        outcome: Outcome,
        now: datetime,
    ) -> None:
        self._args = (placement, selected, groups, status, outcome, now)
        self._status: PlacementStatus | None = None

    def status(self) -> PlacementStatus:
        if self._status is None:
            self._status = _new_status(*self._args)
        return self._status

    def __call__(self) -> Placement:
        return self._args[0].model_copy(update={"status": self.status()})


def _new_status(
    placement: Placement,
    selected: int,
    groups: tuple[GroupResult, ...],
    status: Status,
    outcome: Outcome,
    now: datetime,
) -> PlacementStatus:
    """The status this sync gives ``placement`` (built when the result's placement or
    status is first read)."""
    conditions = list((placement.status.conditions if placement.status else None) or [])
    conditions = set_condition(conditions, misconfigured_condition(status, now))
    conditions = set_condition(conditions, satisfied_condition(placement, outcome, status, now))
    # One validation in pydantic's core is faster than model_construct from Python; the
    # conditions are models already, which it takes as they are.
    built = PlacementStatus.model_validate(
        {
            "numberOfSelectedClusters": selected,
            "decisionGroups": [
                {
                    "decisionGroupIndex": g.index,
                    "decisionGroupName": g.name,
                    "decisions": list(g.decision_names),
                    "clusterCount": len(g.clusters),
                }
                for g in groups
            ],
            "conditions": conditions,
        }
    )
    return built


def schedule_one(snapshot: Snapshot, placement: Placement, now: datetime) -> PlacementResult:
    """Schedule one placement against the snapshot's decisions; the store is not changed
    (the caller records the new decisions, so a replay can evaluate any step)."""
    store = snapshot.decisions
    old = store.owned(placement.namespace, placement.name)
    # Upstream does no work for a placement being deleted or with scheduling disabled.
    if placement.metadata.deletion_timestamp is not None:
        return PlacementResult(placement, old, skipped="the placement is being deleted")
    if placement.annotations.get(DISABLE_SCHEDULING_ANNOTATION) == "true":
        return PlacementResult(placement, old, skipped="scheduling is disabled by annotation")
    try:
        outcome = run_pipeline(snapshot, placement, now)
    except SetSelectorError as err:
        return PlacementResult(placement, old, error=str(err))
    status = outcome.status  # the pipeline selects nothing when it stops on an error
    selected = outcome.selected
    clusters = snapshot.clusters
    strategy = placement.spec.decision_strategy
    grouped = bool(strategy and strategy.group_strategy and strategy.group_strategy.decision_groups)
    # Claims matter only to decision-group selectors.
    claims = {n: snapshot.claims(clusters[n]) for n in selected} if grouped else {}
    by_score = outcome.totals if placement.spec.sort_by == "Score" else None
    built, group_error = make_groups(placement, selected, clusters, claims, by_score)
    pages = DecisionPages(placement, built, by_score)
    groups = pages.groups
    if group_error is not None:
        # Upstream lets a group-generation error override the scheduler's status.
        status = Status.misconfigured("", group_error)
    deleted = _deleted(old, pages.names) if old else []
    events = partial(_events, placement, old, pages, status, outcome)
    updated = NewStatus(placement, len(selected), tuple(groups), status, outcome, now)
    requeue = None if outcome.requeue_at is None else outcome.requeue_at - now
    return PlacementResult(updated, pages, deleted, events, outcome, groups, status, requeue)
