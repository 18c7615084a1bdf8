"""OCM's rollout handler as a pure function: which clusters of a placement's decisions
get the workload next, which have timed out, and which left the placement.

``plan_rollout`` is upstream's ``RolloutHandler.GetRolloutCluster`` (open-cluster-management
sdk-go, ``pkg/apis/cluster/v1alpha1/rollout.go``) over the groups that
``PlacementDecisionClustersTracker`` (``pkg/apis/cluster/v1beta1/placement.go``) builds from
the decisions, step for step: the same lists in the same order, the same deadlines and
soak times to the nanosecond, the same failure arithmetic. ``statuses`` plays the part of
the statuses upstream's caller collects with its status function; a cluster without one
is a cluster with no workload yet, which the handler adds as ``ToApply``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from clusterplace.delivery.gostd import (
    MAX_INT64,
    MIN_INT64,
    GoSyntaxError,
    atoi,
    datetime_to_ns,
    ns_to_datetime,
    ns_to_timedelta,
    parse_rfc3339,
    sort_slice,
)
from clusterplace.delivery.groups import (
    ClusterGroups,
    DecisionTracker,
    GroupKey,
    all_clusters,
    cluster_to_group_key,
    ordered_keys,
)
from clusterplace.delivery.strategy import (
    ALL,
    MAX_DURATION,
    PROGRESSIVE,
    IntOrString,
    MandatoryGroup,
    RolloutStrategyError,
    Strategy,
    StrategySection,
    calculate_rollout_size,
    decode_strategy,
    parse_rollout_size,
    parse_timeout,
)
from clusterplace.errors import ClusterplaceError

__all__ = [
    "ClusterRolloutStatus",
    "RolloutInputError",
    "RolloutResult",
    "RolloutStatus",
    "RolloutStop",
    "StopRule",
    "plan_rollout",
]


class RolloutInputError(ClusterplaceError, ValueError):
    """Decisions, statuses or a time that cannot be read."""


class RolloutStatus(enum.StrEnum):
    """A cluster's rollout status, spelled as upstream spells its constants."""

    TO_APPLY = "ToApply"  # the workload is not applied yet
    PROGRESSING = "Progressing"  # applied, not yet successful
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    TIME_OUT = "TimeOut"  # Progressing or Failed past the progress deadline
    SKIP = "Skip"  # leave this cluster out of the rollout


_IN_FLIGHT_FAILED = (RolloutStatus.TIME_OUT, RolloutStatus.FAILED)


class StopRule(enum.StrEnum):
    """The rule that ended the handler's walk over the clusters, so that the clusters
    after that point wait (the walk's own steps, named; upstream does not name them)."""

    WINDOW_FULL = "WindowFull"  # Progressive: the in-flight window reached its size
    FAILURE_BUDGET = "MaxFailureBreach"  # failures passed the budget: nothing new starts
    GROUP_IN_FLIGHT = "GroupInFlight"  # per group: a group walked still has clusters in flight
    MANDATORY_FIRST = "MandatoryFirst"  # mandatory groups configured, something in flight


@dataclass(frozen=True)
class RolloutStop:
    """Where and why the walk stopped. ``holders``: the clusters in flight (or timed out,
    for ``MandatoryFirst``) that keep the rest back; ``group``: the group the walk
    stopped at (per group, mandatory groups; None for a window); ``limit``: the window's
    size or the failure budget, over ``total`` clusters; ``failed``: the failures the
    budget counted (``MaxFailureBreach``); ``mandatory``: whether the walk stopped inside
    the mandatory groups."""

    rule: StopRule
    holders: tuple[str, ...] = ()
    group: GroupKey | None = None
    limit: int | None = None
    total: int | None = None
    failed: tuple[str, ...] = ()
    mandatory: bool = False


@dataclass(frozen=True)
class ClusterRolloutStatus:
    """One cluster in a rollout result: its group, its status, the time that status
    began (if known) and when the rollout should look at it again (the end of its soak,
    or its progress deadline; None when there is none)."""

    cluster_name: str
    group_name: str = ""
    group_index: int = 0
    status: RolloutStatus = RolloutStatus.TO_APPLY
    last_transition_time: datetime | None = None
    recheck_time: datetime | None = None


@dataclass(frozen=True)
class RolloutResult:
    """What to do next. ``to_rollout``: clusters to apply (``ToApply``) or still in
    flight (Progressing, Failed within the deadline, Succeeded within ``minSuccessTime``);
    ``timed_out``: clusters past the progress deadline, now ``TimeOut``; ``removed``:
    statuses of clusters no longer in the decisions; ``max_failure_breach``: failures
    passed ``maxFailures``, so no new cluster was added; ``recheck_after``: the soonest
    future recheck time among ``to_rollout``, from ``now``."""

    to_rollout: list[ClusterRolloutStatus]
    timed_out: list[ClusterRolloutStatus]
    removed: list[ClusterRolloutStatus]
    max_failure_breach: bool = False
    recheck_after: timedelta | None = None
    stop: RolloutStop | None = None
    unreached: tuple[str, ...] = ()  # decided clusters in no group the handler walks
    mandatory_groups: tuple[GroupKey, ...] = ()  # the mandatory decision groups found


# --- the algorithm, over nanosecond times ----------------------------------------------


@dataclass(frozen=True)
class _Entry:
    """Upstream's ClusterRolloutStatus with times in nanoseconds since the epoch."""

    name: str
    key: GroupKey
    status: RolloutStatus
    transition: int | None = None
    recheck: int | None = None


@dataclass
class _Result:
    to_rollout: list[_Entry]
    timed_out: list[_Entry]
    breach: bool
    recheck_after: int | None
    removed: list[_Entry] | None = None
    stop: RolloutStop | None = None


def _recheck_time(start: int | None, duration: int, now: int) -> int | None:
    """Upstream's ``calculateRecheckTime``: ``start + duration`` (``now`` when there is no
    start); None when the duration is the "no deadline" value."""
    if duration == MAX_DURATION:
        return None
    return (now if start is None else start) + duration


def _determine(
    entry: _Entry,
    min_success: int,
    timeout: int,
    now: int,
    to_rollout: list[_Entry],
    timed_out: list[_Entry],
) -> _Entry:
    """Upstream's ``determineRolloutStatus``; returns the entry as it rewrote it."""
    status = entry.status
    if status == RolloutStatus.TO_APPLY:
        to_rollout.append(entry)
    elif status == RolloutStatus.SUCCEEDED:
        soaked = _recheck_time(entry.transition, min_success, now)
        if soaked is not None and now < soaked:
            entry = replace(entry, recheck=soaked)
            to_rollout.append(entry)
    elif status in (RolloutStatus.TIME_OUT, RolloutStatus.SKIP):
        pass
    else:
        deadline = _recheck_time(entry.transition, timeout, now)
        entry = replace(entry, recheck=deadline)
        if deadline is None or now < deadline:
            to_rollout.append(entry)
        else:
            entry = replace(entry, status=RolloutStatus.TIME_OUT)
            timed_out.append(entry)
    return entry


def _min_recheck_after(entries: Sequence[_Entry], now: int) -> int | None:
    """Upstream's ``minRecheckAfter``: the least positive ``recheck - now``."""
    soonest: int | None = None
    for entry in entries:
        if entry.recheck is not None:
            wait = min(max(entry.recheck - now, MIN_INT64), MAX_INT64)  # Go's Time.Sub
            if wait > 0 and (soonest is None or soonest > wait):
                soonest = wait
    return soonest


def _by_name(entries: list[_Entry]) -> list[_Entry]:
    """The entries ordered by cluster name as Go's ``sort.Slice`` orders them."""
    ordered = list(entries)
    if len(ordered) <= 12 or len({entry.name for entry in ordered}) == len(ordered):
        ordered.sort(key=lambda entry: entry.name)  # the same order Go's sort gives
    else:
        sort_slice(ordered, lambda a, b: a.name < b.name)
    return ordered


def _progressive_per_cluster(
    groups: ClusterGroups,
    rollout_size: int,
    max_failures: int,
    min_success: int,
    timeout: int,
    existing: list[_Entry],
    now: int,
) -> _Result:
    """Upstream's ``progressivePerCluster``: a window of ``rollout_size`` clusters in
    flight; new clusters join in name order while failures stay within the budget."""
    to_rollout: list[_Entry] = []
    timed_out: list[_Entry] = []
    seen: set[str] = set()
    failed: list[str] = []
    breach = False
    total = len(all_clusters(groups))

    def stopped() -> RolloutStop:
        if breach:
            return RolloutStop(
                StopRule.FAILURE_BUDGET, limit=max_failures, total=total, failed=tuple(failed)
            )
        holders = tuple(entry.name for entry in to_rollout)
        return RolloutStop(StopRule.WINDOW_FULL, holders, limit=rollout_size, total=total)

    for entry in _by_name(existing):
        if not entry.name:
            continue
        seen.add(entry.name)
        if not breach or entry.status != RolloutStatus.TO_APPLY:
            entry = _determine(entry, min_success, timeout, now, to_rollout, timed_out)
        if entry.status in _IN_FLIGHT_FAILED:
            failed.append(entry.name)
            breach = len(failed) > max_failures
        if len(to_rollout) >= rollout_size:
            recheck = _min_recheck_after(to_rollout, now)
            return _Result(to_rollout, timed_out, breach, recheck, stop=stopped())
    if breach:
        recheck = _min_recheck_after(to_rollout, now)
        return _Result(to_rollout, timed_out, breach, recheck, stop=stopped())
    group_of = cluster_to_group_key(groups)
    stop = None
    for cluster in sorted(all_clusters(groups)):
        if cluster in seen:
            continue
        if len(to_rollout) >= rollout_size:
            stop = stopped()  # a cluster is left waiting
            break
        to_rollout.append(_Entry(cluster, group_of[cluster], RolloutStatus.TO_APPLY))
    return _Result(to_rollout, timed_out, False, _min_recheck_after(to_rollout, now), stop=stop)


def _progressive_per_group(
    groups: ClusterGroups,
    max_failures: IntOrString,
    min_success: int,
    timeout: int,
    existing: list[_Entry],
    now: int,
) -> _Result:
    """Upstream's ``progressivePerGroup``: every in-flight cluster, then whole groups by
    ascending index until one still has work or breaks its failure budget."""
    to_rollout: list[_Entry] = []
    timed_out: list[_Entry] = []
    recorded: dict[str, RolloutStatus] = {}
    for entry in existing:
        if not entry.name:
            continue
        if entry.status != RolloutStatus.TO_APPLY:
            entry = _determine(entry, min_success, timeout, now, to_rollout, timed_out)
            recorded[entry.name] = entry.status
    total_failures = 0
    breach = False
    stop = None
    keys = ordered_keys(groups)
    for position, key in enumerate(keys):
        group_failures: list[str] = []
        members = groups[key]
        budget = calculate_rollout_size(max_failures, len(members), 0)
        for cluster in sorted(members):
            status = recorded.get(cluster)
            if status is not None:
                if status in _IN_FLIGHT_FAILED:
                    group_failures.append(cluster)
                    breach = len(group_failures) > budget
                continue
            to_rollout.append(_Entry(cluster, key, RolloutStatus.TO_APPLY))
        total_failures += len(group_failures)
        if len(to_rollout) - total_failures > 0 or breach:
            if breach:
                stop = RolloutStop(
                    StopRule.FAILURE_BUDGET,
                    group=key,
                    limit=budget,
                    total=len(members),
                    failed=tuple(group_failures),
                )
            elif position + 1 < len(keys):  # later groups wait
                holders = tuple(entry.name for entry in to_rollout)
                stop = RolloutStop(StopRule.GROUP_IN_FLIGHT, holders, group=key)
            break
    return _Result(to_rollout, timed_out, breach, _min_recheck_after(to_rollout, now), stop=stop)


def _split_removed(groups: ClusterGroups, existing: list[_Entry]) -> tuple[list[_Entry], ...]:
    """Upstream's ``getRemovedClusters``: statuses of decided clusters, and the rest."""
    decided = all_clusters(groups)
    current = [entry for entry in existing if entry.name in decided]
    removed = [entry for entry in existing if entry.name not in decided]
    return current, removed


def _mandatory_keys(groups: Sequence[MandatoryGroup]) -> list[GroupKey]:
    """Upstream's ``decisionGroupsToGroupKeys``: a name wins over an index."""
    return [
        GroupKey(group.group_name, 0) if group.group_name else GroupKey("", group.group_index)
        for group in groups
    ]


def _wrap(err: RolloutStrategyError, what: str) -> RolloutStrategyError:
    return RolloutStrategyError(f"failed to parse the provided {what}: {err}")


def _run(strategy: Strategy, tracker: DecisionTracker, existing: list[_Entry], now: int) -> _Result:
    if strategy.type == ALL:
        section = strategy.all or StrategySection()
        timeout = parse_timeout(section.progress_deadline)
        groups = tracker.existing_besides()
        total = len(all_clusters(groups))
        current, removed = _split_removed(groups, existing)
        result = _progressive_per_cluster(groups, total, total, 0, timeout, current, now)
        result.removed = removed
        return result

    progressive = strategy.type == PROGRESSIVE
    section = (
        strategy.progressive if progressive else strategy.progressive_per_group
    ) or StrategySection()
    timeout = parse_timeout(section.progress_deadline)
    if not progressive:
        try:
            parse_rollout_size(section.max_failures)
        except RolloutStrategyError as err:
            raise _wrap(err, "maxFailures") from None
    groups = tracker.existing_besides()
    current, removed = _split_removed(groups, existing)
    max_failures = 0
    if progressive:
        try:
            max_failures = calculate_rollout_size(
                section.max_failures, len(all_clusters(groups)), 0
            )
        except RolloutStrategyError as err:
            raise _wrap(err, "maxFailures") from None

    keys = _mandatory_keys(section.mandatory_decision_groups)
    mandatory = tracker.existing(keys)
    if mandatory:
        result = _progressive_per_group(
            mandatory, IntOrString(0), section.min_success_time, timeout, current, now
        )
        if result.to_rollout or result.timed_out:
            result.removed = removed
            if result.stop is not None and result.stop.rule == StopRule.FAILURE_BUDGET:
                result.stop = replace(result.stop, mandatory=True)
            else:
                holders = [entry.name for entry in result.to_rollout + result.timed_out]
                result.stop = RolloutStop(
                    StopRule.MANDATORY_FIRST,
                    tuple(holders),
                    group=result.stop.group if result.stop else None,
                    mandatory=True,
                )
            return result

    rest = tracker.existing_besides(keys)
    if progressive:
        total = len(all_clusters(rest))
        try:
            size = calculate_rollout_size(section.max_concurrency, total, total)
        except RolloutStrategyError as err:
            raise _wrap(err, "maxConcurrency") from None
        result = _progressive_per_cluster(
            rest, size, max_failures, section.min_success_time, timeout, current, now
        )
        if result.stop is not None and result.stop.rule == StopRule.FAILURE_BUDGET:
            # the budget is a share of every cluster, mandatory groups included
            result.stop = replace(result.stop, total=len(all_clusters(groups)))
    else:
        result = _progressive_per_group(
            rest, section.max_failures, section.min_success_time, timeout, current, now
        )
    result.removed = removed
    return result


# --- reading the inputs ------------------------------------------------------------------

_INT32 = (-(1 << 31), (1 << 31) - 1)


def _text(value: object, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RolloutInputError(f"{where}: expected a string, got {type(value).__name__}")
    return value


def _decision_index(value: object, where: str) -> int:
    """A decision's group index; read as upstream reads the index label (strconv.Atoi,
    then a conversion to int32 that wraps)."""
    if value is None:
        return 0
    if isinstance(value, str):
        try:
            number = atoi(value)
        except GoSyntaxError as err:
            raise RolloutInputError(f"{where}: incorrect group index: {err}") from None
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise RolloutInputError(f"{where}: expected an integer, got {type(value).__name__}")
    return (number + (1 << 31)) % (1 << 32) - (1 << 31)


def _status_index(value: object, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise RolloutInputError(f"{where}: expected an integer, got {type(value).__name__}")
    if not _INT32[0] <= value <= _INT32[1]:
        raise RolloutInputError(f"{where}: {value} does not fit an int32")
    return value


def _read_groups(decisions: Iterable[Mapping[str, Any]]) -> DecisionTracker:
    groups: dict[GroupKey, set[str]] = {}
    for position, decision in enumerate(decisions):
        where = f"decisions[{position}]"
        if not isinstance(decision, Mapping):
            raise RolloutInputError(f"{where}: expected a mapping")
        key = GroupKey(
            _text(decision.get("groupName"), f"{where}.groupName"),
            _decision_index(decision.get("groupIndex"), f"{where}.groupIndex"),
        )
        members = groups.setdefault(key, set())
        clusters = decision.get("clusters") or ()
        if isinstance(clusters, str | bytes) or not isinstance(clusters, Iterable):
            raise RolloutInputError(f"{where}.clusters: expected a list")
        for number, cluster in enumerate(clusters):
            at = f"{where}.clusters[{number}]"
            if isinstance(cluster, Mapping):
                cluster = cluster.get("clusterName")
            if not isinstance(cluster, str):
                raise RolloutInputError(f"{at}: expected a cluster name")
            members.add(cluster)
    return DecisionTracker(groups)


def _time(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise RolloutInputError(f"{where}: a datetime needs a time zone")
        return datetime_to_ns(value)
    if not isinstance(value, str):
        raise RolloutInputError(f"{where}: expected an RFC 3339 time, got {type(value).__name__}")
    try:
        return parse_rfc3339(value)
    except GoSyntaxError as err:
        raise RolloutInputError(f"{where}: {err}") from None


def _read_statuses(statuses: Iterable[Mapping[str, Any]]) -> list[_Entry]:
    entries = []
    for position, item in enumerate(statuses):
        where = f"statuses[{position}]"
        if not isinstance(item, Mapping):
            raise RolloutInputError(f"{where}: expected a mapping")
        name = item.get("clusterName")
        if not isinstance(name, str):
            raise RolloutInputError(f"{where}.clusterName: expected a string")
        try:
            status = RolloutStatus(str(item.get("status")))
        except ValueError:
            spellings = ", ".join(member.value for member in RolloutStatus)
            raise RolloutInputError(
                f"{where}.status: {item.get('status')!r} is not one of {spellings}"
            ) from None
        key = GroupKey(
            _text(item.get("groupName"), f"{where}.groupName"),
            _status_index(item.get("groupIndex"), f"{where}.groupIndex"),
        )
        transition = _time(item.get("lastTransitionTime"), f"{where}.lastTransitionTime")
        entries.append(_Entry(name, key, status, transition))
    return entries


def _report_time(ns: int | None) -> datetime | None:
    if ns is None:
        return None
    try:
        return ns_to_datetime(ns)
    except OverflowError:
        raise RolloutInputError(
            "a recheck time falls past the year 9999, where a datetime cannot report it"
        ) from None


def _report(entries: Iterable[_Entry]) -> list[ClusterRolloutStatus]:
    return [
        ClusterRolloutStatus(
            cluster_name=entry.name,
            group_name=entry.key.group_name,
            group_index=entry.key.group_index,
            status=entry.status,
            last_transition_time=_report_time(entry.transition),
            recheck_time=_report_time(entry.recheck),
        )
        for entry in entries
    ]


def plan_rollout(
    strategy: Mapping[str, Any] | None,
    decisions: Iterable[Mapping[str, Any]],
    statuses: Iterable[Mapping[str, Any]],
    now: datetime,
) -> RolloutResult:
    """The next step of a rollout, exactly as OCM's rollout handler computes it.

    ``strategy`` is a ``RolloutStrategy`` in its JSON form (``{"type": "Progressive",
    "progressive": {"maxConcurrency": 2, ...}}``; a missing type is ``All``).
    ``decisions`` are the placement's PlacementDecisions as ``{"name", "groupName",
    "groupIndex", "clusters": [name or {"clusterName": name}, ...]}``. ``statuses`` are
    the clusters that already have the workload: ``{"clusterName", "status",
    "lastTransitionTime"}`` (status spelled ``ToApply``, ``Progressing``, ``Succeeded``,
    ``Failed``, ``TimeOut`` or ``Skip``; the time RFC 3339 or None) with optional
    ``groupName`` and ``groupIndex``, which the result repeats for that cluster. ``now``
    is an aware datetime.

    Raises :class:`~clusterplace.delivery.RolloutStrategyError` for a strategy upstream
    refuses, and :class:`RolloutInputError` for decisions, statuses or a time that cannot
    be read.
    """
    decoded = decode_strategy(strategy)
    tracker = _read_groups(decisions)
    existing = _read_statuses(statuses)
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise RolloutInputError("now: expected an aware datetime")
    now_ns = datetime_to_ns(now)
    result = _run(decoded, tracker, existing, now_ns)
    walked = all_clusters(tracker.existing_besides())
    mandatory: dict[GroupKey, frozenset[str]] = {}
    if decoded.type != ALL:
        section = (
            decoded.progressive if decoded.type == PROGRESSIVE else decoded.progressive_per_group
        ) or StrategySection()
        mandatory = tracker.existing(_mandatory_keys(section.mandatory_decision_groups))
        walked |= all_clusters(mandatory)
    unreached = sorted(all_clusters(tracker.groups) - walked)
    return RolloutResult(
        to_rollout=_report(result.to_rollout),
        timed_out=_report(result.timed_out),
        removed=_report(result.removed or ()),
        max_failure_breach=result.breach,
        recheck_after=None
        if result.recheck_after is None
        else ns_to_timedelta(result.recheck_after),
        stop=result.stop,
        unreached=tuple(unreached),
        mandatory_groups=tuple(ordered_keys(mandatory)),
    )
