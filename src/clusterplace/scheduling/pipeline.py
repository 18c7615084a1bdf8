"""One placement's scheduling: candidates → filters → prioritizers → selection.

Upstream ``controllers/scheduling/schedule.go``. The work is done on arrays of cluster
positions; the :class:`Outcome` keeps them and derives per-cluster views (totals, raw
scores, rejection reasons) only when asked, for explanations and events.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, lru_cache

import numpy as np

from clusterplace.api import ManagedCluster, Placement
from clusterplace.api.placement import PlacementSpec
from clusterplace.scheduling.candidates import (
    Candidates,
    SetSelectorError,
    candidates_key,
    find_candidates,
)
from clusterplace.scheduling.events import ScoreNotes
from clusterplace.scheduling.filters.chain import FILTERS, Step, run_filters
from clusterplace.scheduling.framework import (
    Code,
    Context,
    FilterPlugin,
    PrioritizerPlugin,
    Scored,
    Status,
)
from clusterplace.scheduling.prioritizers.policy import (
    SPREAD,
    Policies,
    Weighted,
    policy_key,
    spread_constraints,
)
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex
from clusterplace.scheduling.spread import spread_select

__all__ = ["FILTERS", "Outcome", "SharedPrefixes", "run_pipeline"]

_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass
class Outcome:
    """Everything one scheduling pass decided and why."""

    status: Status
    candidates: Candidates
    context: Context | None = None
    # (filter, its input positions, the positions it kept), in the order the filters ran.
    filter_steps: list[tuple[FilterPlugin, np.ndarray, np.ndarray]] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    # prioritizer name -> (positions, raw scores, which got a score; None: all did)
    raw_scores: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = field(
        default_factory=dict
    )
    feasible_positions: np.ndarray = field(default_factory=lambda: _EMPTY)
    # Set when spread selection fixed the order; otherwise derived from the totals.
    ranked_override: np.ndarray | None = None
    selected: list[str] = field(default_factory=list)
    unscheduled: int = 0
    requeue_at: datetime | None = None
    # Spread selection's own scores and exclusions (beyond upstream), by cluster name.
    spread_scores: dict[str, int] = field(default_factory=dict)
    spread_blocked: dict[str, str] = field(default_factory=dict)
    # Reasons and notes are worked out from the clusters when first asked for, and kept
    # with the snapshot's generation then: a cluster replaced since needs them again.
    _rejected: tuple[int, dict[str, tuple[str, str]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _notes: tuple[int, dict[str, str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def _names(self, positions: np.ndarray) -> list[str]:
        return self.context.snapshot.names_of(positions) if self.context else []

    @property
    def feasible(self) -> list[str]:
        return self._names(self.feasible_positions)

    @property
    def total_scores(self) -> np.ndarray:
        """Total score of every feasible cluster, aligned with ``feasible_positions``.

        Worked out from the raw scores and weights each time it is asked for, not
        kept: a run keeps every placement's outcome, and a copy of the totals for each
        was most of a large run's memory growth (and its page faults).
        """
        if not len(self.feasible_positions):
            return _EMPTY
        weighted = [
            values if self.weights[name] == 1 else _times(values, self.weights[name])
            for name, (_, values, _) in self.raw_scores.items()
        ]
        return _sum(weighted, len(self.feasible_positions))

    @cached_property
    def totals(self) -> dict[str, int]:
        """Total score of every feasible cluster (upstream's scoreSum), by name."""
        return dict(zip(self.feasible, self.total_scores.tolist(), strict=True))

    @cached_property
    def ranked_positions(self) -> np.ndarray:
        """Feasible positions by score descending, then name (positions follow names)."""
        if self.ranked_override is not None:
            return self.ranked_override
        return _top(self.feasible_positions, self.total_scores, None)

    @property
    def ranked(self) -> list[str]:
        return self._names(self.ranked_positions)

    @cached_property
    def scores(self) -> dict[str, dict[str, int]]:
        """Raw scores per prioritizer and cluster (clusters it did not score are absent)."""
        out: dict[str, dict[str, int]] = {}
        for name, (positions, values, present) in self.raw_scores.items():
            given = present.tolist() if present is not None else [True] * len(positions)
            out[name] = {
                n: v
                for n, v, has in zip(self._names(positions), values.tolist(), given, strict=True)
                if has
            }
        if self.spread_scores:
            out[SPREAD] = dict(self.spread_scores)
        return out

    @property
    def filter_records(self) -> list[tuple[str, list[str]]]:
        return [(f.name, self._names(kept)) for f, _, kept in self.filter_steps]

    @property
    def rejected(self) -> dict[str, tuple[str, str]]:
        """cluster -> (filter, reason) for every cluster a filter removed."""
        if self.context is None:
            return {}
        generation = self.context.snapshot.generation
        if self._rejected is None or self._rejected[0] != generation:
            self._rejected = (generation, self._explain_rejected(self.context))
        return self._rejected[1]

    def _explain_rejected(self, context: Context) -> dict[str, tuple[str, str]]:
        out: dict[str, tuple[str, str]] = {}
        snapshot = context.snapshot
        for plugin, given, kept in self.filter_steps:
            for position in np.setdiff1d(given, kept).tolist():
                cluster = snapshot.cluster_list[position]
                out[cluster.name] = (plugin.name, plugin.explain(context, cluster) or "")
        return out

    @property
    def notes(self) -> dict[str, str]:
        """Remarks on feasible clusters (e.g. until when their taints are tolerated)."""
        if self.context is None:
            return {}
        generation = self.context.snapshot.generation
        if self._notes is None or self._notes[0] != generation:
            self._notes = (generation, self._explain_notes(self.context))
        return self._notes[1]

    def _explain_notes(self, context: Context) -> dict[str, str]:
        out: dict[str, str] = {}
        snapshot = context.snapshot
        for plugin, _, kept in self.filter_steps:
            for position in kept.tolist():
                note = plugin.note(context, snapshot.cluster_list[position])
                if note:
                    out[snapshot.names[position]] = note
        return out

    def score_message(self) -> str:
        """ScoreUpdate's note for this run (feasible positions are already in name order)."""
        if self.context is None:
            return ""
        snapshot = self.context.snapshot
        notes = snapshot.index_of(ScoreNotes)
        most = notes.most
        return notes.note(
            self.feasible_positions[:most].tolist(), self.total_scores[:most].tolist()
        )


def _top(
    positions: np.ndarray, totals: np.ndarray, wanted: int | None, key: _Key | None = None
) -> np.ndarray:
    """The first ``wanted`` positions by score descending, then name: without sorting the
    whole list when few are wanted (ties at the cut are all kept, then ordered).

    Positions are ascending (they follow names), so a stable sort by score alone
    leaves ties in name order. With ``key`` (scores are known to be small enough),
    score and position are one integer, ``position - total * stride``, whose smallest
    ``wanted`` values are the answer: a partition and a sort of ``wanted`` numbers,
    with no separate handling of ties.
    """
    if wanted is None or wanted >= len(positions):
        return positions[np.argsort(-totals, kind="stable")]
    if wanted <= 0:
        return positions[:0]
    if key is not None:
        combined = positions - totals * key.stride
        combined.partition(wanted - 1)
        top = combined[:wanted]
        top.sort()
        chosen: np.ndarray = top & key.mask
        return chosen
    negated = -totals
    cut = negated.copy()
    cut.partition(wanted - 1)
    contenders = np.flatnonzero(negated <= cut[wanted - 1])
    order = negated[contenders].argsort(kind="stable")
    return positions[contenders[order[:wanted]]]


@dataclass(frozen=True)
class _Key:
    """How score and position make one int64 key: ``position - total * stride``, with
    every position below ``stride`` (a power of two, so ``key & mask`` is the
    position) and every total small enough that no key overflows."""

    stride: int
    mask: int

    @classmethod
    def fitting(cls, clusters: int, limit: int | None) -> _Key | None:
        """The key for positions below ``clusters`` and totals within ``±limit`` (None:
        unknown, or too large for 64 bits)."""
        return None if limit is None else _fitting(clusters, limit)


@lru_cache(maxsize=256)
def _fitting(clusters: int, limit: int) -> _Key | None:
    """:meth:`_Key.fitting` of a known limit (placements of a run share a few)."""
    stride = 1 << max(clusters - 1, 1).bit_length()
    return _Key(stride, stride - 1) if (limit + 1) * stride < 1 << 62 else None


def _sum(arrays: list[np.ndarray], size: int) -> np.ndarray:
    """The element-wise sum of ``arrays`` of ``size`` scores, as a new int64 array.

    Few, whole-array operations: each numpy call costs more than its arithmetic here.
    """
    if not arrays:
        return np.zeros(size, dtype=np.int64)
    if len(arrays) == 1:
        return arrays[0].astype(np.int64)  # a copy: scores may be shared by placements
    total: np.ndarray = np.add(arrays[0], arrays[1], dtype=np.int64)
    for array in arrays[2:]:
        total += array
    return total


def _times(scores: np.ndarray, weight: int) -> np.ndarray:
    """``weight * scores`` in 64 bits (scores may be stored in fewer)."""
    weighted: np.ndarray = np.multiply(scores, weight, dtype=np.int64)
    return weighted


def _merge(current: Status, new: Status) -> Status:
    # A Warning does not stop scheduling; upstream keeps the last one (no merging).
    return new if new.code == Code.WARNING else current


def run_pipeline(snapshot: Snapshot, placement: Placement, now: datetime) -> Outcome:
    """Schedule ``placement`` against ``snapshot`` (which it does not modify)."""
    ctx = Context(placement, snapshot, now)
    shared = _shared_run(ctx)
    if shared is not None:
        return shared
    return _full_run(ctx)


def _full_run(ctx: Context) -> Outcome:
    """Every step of the pipeline for this placement alone."""
    placement, snapshot = ctx.placement, ctx.snapshot
    candidates = find_candidates(snapshot, placement)
    outcome = Outcome(Status.success(), candidates, ctx)

    positions = candidates.positions
    outcome.filter_steps, outcome.status = run_filters(ctx, positions)
    if not outcome.status.ok:
        return outcome
    if outcome.filter_steps:
        positions = outcome.filter_steps[-1][2]

    prioritizers, spread_weight, status = snapshot.index_of(Policies).prioritizers(placement)
    if not status.ok:
        outcome.status = status
        return outcome
    weighted_scores: list[np.ndarray] = []
    limit: int | None = 0  # no total is larger in absolute value (None: not known)
    for weighted in prioritizers:
        prioritizer = weighted.prioritizer
        scored = prioritizer.score_positions(ctx, positions)
        if scored.status is not _SUCCESS:
            if not scored.status.ok:
                outcome.status = scored.status
                return outcome
            outcome.status = _merge(outcome.status, scored.status)
        name = prioritizer.name
        outcome.weights[name] = outcome.weights.get(name, 0) + weighted.weight
        outcome.raw_scores[name] = (positions, scored.scores, scored.present)
        # Clusters without a score hold 0 in ``scores``, so they add nothing.
        weight = weighted.weight
        weighted_scores.append(scored.scores if weight == 1 else _times(scored.scores, weight))
        limit = (
            None if limit is None or scored.limit is None else limit + abs(weight) * scored.limit
        )
    totals = _sum(weighted_scores, len(positions))
    outcome.feasible_positions = positions

    wanted = placement.spec.number_of_clusters
    if wanted is not None and wanted < 0:
        outcome.status = Status.misconfigured(
            "", f"numberOfClusters must not be negative, got {wanted}"
        )
        outcome.feasible_positions = _EMPTY
        return outcome
    constraints = spread_constraints(placement)
    if constraints:
        clusters = snapshot.clusters_of(positions)
        claims = {c.name: snapshot.claims(c) for c in clusters}
        spread = spread_select(clusters, claims, constraints, outcome.totals, spread_weight, wanted)
        outcome.selected = spread.selected
        outcome.spread_scores = spread.scores
        outcome.weights[SPREAD] = spread_weight
        outcome.spread_blocked = spread.blocked
        picked = np.array([snapshot.index[n] for n in spread.selected], dtype=np.int64)
        rest = outcome.ranked_positions[~np.isin(outcome.ranked_positions, picked)]
        outcome.ranked_override = np.concatenate([picked, rest])
    else:
        key = _Key.fitting(len(snapshot.names), limit)
        outcome.selected = snapshot.names_of(_top(positions, totals, wanted, key))
    if wanted is not None:
        outcome.unscheduled = wanted - len(outcome.selected)
    # Any plugin may ask to run again at a time (TaintToleration: a toleration expiring);
    # plugins that keep the base class's answer (never) are not asked.
    plugins: tuple[FilterPlugin | PrioritizerPlugin, ...] = (
        *_REQUEUING_FILTERS,
        *_requeuing(prioritizers),
    )
    times = [at for plugin in plugins if (at := plugin.requeue_at(ctx)) is not None]
    outcome.requeue_at = min(times, default=None)
    return outcome


_REQUEUING_FILTERS = tuple(f for f in FILTERS if type(f).requeue_at is not FilterPlugin.requeue_at)
_SUCCESS = Status.success()


# -- placements of one kind share what does not depend on the placement itself ---------


@dataclass(frozen=True)
class _Prefix:
    """What every placement of one kind (same candidate list, predicates, tolerations
    and prioritizer policy, scheduled at the same time) works out alike, when none of
    it reads the placement's own decisions (no candidate is tainted): the filter chain,
    the scores of the prioritizers that are not per placement, their weighted sum, and
    the static part of the selection key. Everything in it is read-only."""

    candidates: Candidates
    steps: tuple[Step, ...]
    positions: np.ndarray  # feasible, ascending
    # Every prioritizer in policy order with its weight and, when shared, its scores.
    entries: tuple[tuple[PrioritizerPlugin, int, Scored | None], ...]
    static: np.ndarray  # the weighted sum of the shared scores (int64)
    static_limit: int | None  # a bound of the shared scores' weighted sum (None: unknown)
    prioritizers: list[Weighted]
    # The filters and prioritizers that may ask to run again at a time.
    requeuing: tuple[FilterPlugin | PrioritizerPlugin, ...]
    # ``positions - static * stride`` by stride, made when first needed.
    bases: dict[int, np.ndarray] = field(default_factory=dict, compare=False)

    def base(self, stride: int) -> np.ndarray:
        found = self.bases.get(stride)
        if found is None:
            found = self.positions - self.static * stride
            found.flags.writeable = False
            self.bases[stride] = found
        return found


_PREFIXES_KEPT = 4096  # kinds of placement remembered at one time
_KINDS_KEPT = 1 << 16  # placement specs whose kind is remembered


class SharedPrefixes(SnapshotIndex):
    """:class:`_Prefix` by kind of placement, for one time at once (a run schedules
    every placement at the same time; a controller's next sync, at another time, starts
    afresh). Any change to a cluster or a score drops them all."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._now: datetime | None = None
        self._found: dict[Hashable, _Prefix | None] = {}
        self._kinds: dict[tuple[int, str], tuple[PlacementSpec, Hashable | None]] = {}

    def kind(self, placement: Placement) -> Hashable | None:
        """What the shared part reads of ``placement`` (None: it cannot share)."""
        spec = placement.spec
        namespace = placement.namespace
        # By the spec object (kept, so its identity is not reused) and namespace: a sync
        # after a status update has a new placement object with the same spec.
        asked = self._kinds.get((id(spec), namespace))
        if asked is not None and asked[0] is spec:
            return asked[1]
        kind: Hashable | None = None
        spread = spec.spread_policy
        if spread is None or not spread.spread_constraints:
            # Candidates, filters (predicates and tolerations; repr shows every field)
            # and the prioritizer policy.
            kind = (
                candidates_key(placement),
                repr((spec.predicates, spec.tolerations)),
                policy_key(placement),
            )
        if len(self._kinds) >= _KINDS_KEPT:
            self._kinds.clear()
        self._kinds[(id(spec), namespace)] = (spec, kind)
        return kind

    def get(self, kind: Hashable, ctx: Context) -> _Prefix | None:
        if ctx.now != self._now or len(self._found) >= _PREFIXES_KEPT:
            self._found.clear()
            self._now = ctx.now
        try:
            return self._found[kind]
        except KeyError:
            found = self._found[kind] = _prefix(ctx)
            return found

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        self._found.clear()

    def on_score_changed(self, position: int, resource: str) -> None:
        self._found.clear()


def _prefix(ctx: Context) -> _Prefix | None:
    """The shared part of ``ctx.placement``'s run, or None when its kind cannot share
    (a candidate is tainted, so TaintToleration reads the placement's own decisions; the
    policy, a filter or a shared prioritizer does not succeed plainly)."""
    snapshot = ctx.snapshot
    prioritizers, _, policy_status = snapshot.index_of(Policies).prioritizers(ctx.placement)
    if not policy_status.ok:
        return None
    try:
        candidates = find_candidates(snapshot, ctx.placement)
    except SetSelectorError:
        return None
    positions = candidates.positions
    if snapshot.any_tainted and snapshot.tainted[positions].any():
        return None
    steps: list[Step] = []
    for plugin in FILTERS:
        result = plugin.filter_positions(ctx, positions)
        if result.status.code != Code.SUCCESS:
            return None
        steps.append((plugin, positions, result.positions))
        positions = result.positions
    entries: list[tuple[PrioritizerPlugin, int, Scored | None]] = []
    weighted: list[np.ndarray] = []
    limit: int | None = 0
    for entry in prioritizers:
        prioritizer, weight = entry.prioritizer, entry.weight
        if prioritizer.per_placement:
            entries.append((prioritizer, weight, None))
            continue
        scored = prioritizer.score_positions(ctx, positions)
        if not scored.status.ok:
            return None
        entries.append((prioritizer, weight, scored))
        weighted.append(scored.scores if weight == 1 else _times(scored.scores, weight))
        limit = (
            None if limit is None or scored.limit is None else limit + abs(weight) * scored.limit
        )
    static = _sum(weighted, len(positions))
    static.flags.writeable = False
    for _, given, kept in steps:
        given.flags.writeable = False
        kept.flags.writeable = False
    requeuing: tuple[FilterPlugin | PrioritizerPlugin, ...] = (
        *_REQUEUING_FILTERS,
        *_requeuing(prioritizers),
    )
    return _Prefix(
        candidates, tuple(steps), positions, tuple(entries), static, limit, prioritizers, requeuing
    )


def _shared_run(ctx: Context) -> Outcome | None:
    """The run of ``ctx.placement`` from its kind's shared part: only the prioritizers
    that are per placement (Balance, Steady) score it, and the selection subtracts their
    scores from the shared key. None when it cannot share (the full run then gives
    the same answer with every step of its own)."""
    placement, snapshot = ctx.placement, ctx.snapshot
    wanted = placement.spec.number_of_clusters
    if wanted is not None and wanted < 0:
        return None
    prefixes = snapshot.index_of(SharedPrefixes)
    kind = prefixes.kind(placement)
    if kind is None:
        return None
    prefix = prefixes.get(kind, ctx)
    if prefix is None:
        return None
    positions = prefix.positions
    status = _SUCCESS
    weights: dict[str, int] = {}
    raw: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    own: list[np.ndarray] = []  # the per-placement weighted scores
    limit = prefix.static_limit
    for prioritizer, weight, scored in prefix.entries:
        if scored is None:
            scored = prioritizer.score_positions(ctx, positions)
            if scored.status is not _SUCCESS:
                if not scored.status.ok:
                    return None
                status = _merge(status, scored.status)
            own.append(scored.scores if weight == 1 else _times(scored.scores, weight))
            limit = (
                None
                if limit is None or scored.limit is None
                else limit + abs(weight) * scored.limit
            )
        elif scored.status is not _SUCCESS:
            status = _merge(status, scored.status)
        name = prioritizer.name
        weights[name] = weights.get(name, 0) + weight
        raw[name] = (positions, scored.scores, scored.present)
    outcome = Outcome(
        status,
        prefix.candidates,
        ctx,
        list(prefix.steps),
        weights,
        raw,
        positions,
    )
    names = snapshot.names
    key = _Key.fitting(len(names), limit)
    if key is None or wanted is None or wanted <= 0 or wanted >= len(positions):
        totals = _sum([prefix.static, *own], len(positions))
        outcome.selected = snapshot.names_of(_top(positions, totals, wanted, key))
    else:
        chosen = _top_keyed(prefix.base(key.stride), own, wanted, key)
        outcome.selected = [names[position] for position in chosen]
    if wanted is not None:
        outcome.unscheduled = wanted - len(outcome.selected)
    times = [at for plugin in prefix.requeuing if (at := plugin.requeue_at(ctx)) is not None]
    outcome.requeue_at = min(times) if times else None
    return outcome


def _requeuing(prioritizers: list[Weighted]) -> list[PrioritizerPlugin]:
    """The prioritizers that may ask to run again (those not keeping the base class's
    answer, never)."""
    return [
        w.prioritizer
        for w in prioritizers
        if type(w.prioritizer).requeue_at is not PrioritizerPlugin.requeue_at
    ]


def _top_keyed(base: np.ndarray, own: list[np.ndarray], wanted: int, key: _Key) -> list[int]:
    """:func:`_top` with ``key`` of ``0 < wanted < len(base)`` positions (as a list), from
    the shared ``base`` (``positions - static * stride``) and the per-placement weighted
    scores: ``base - sum(own) * stride`` is the same combined key."""
    if not own:
        combined = base.copy()
    else:
        # (A cast and an in-place product cost less than a product that casts.)
        combined = own[0].astype(np.int64) if len(own) == 1 else _sum(own, len(base))
        combined *= key.stride
        np.subtract(base, combined, out=combined)
    combined.partition(wanted - 1)
    top = combined[:wanted]
    top.sort()
    mask = key.mask
    return [value & mask for value in top.tolist()]
