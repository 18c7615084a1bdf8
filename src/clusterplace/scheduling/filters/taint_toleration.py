"""The TaintToleration filter: a cluster passes only if every taint is tolerated.

PreferNoSelect taints are always tolerated; NoSelectIfNew taints are tolerated for
clusters this placement already selected; otherwise the first matching, unexpired
toleration wins. ``tolerationSeconds`` counts from the taint's ``timeAdded`` (for
every effect, as upstream's code does), strictly: expired at exactly that instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from clusterplace.api import ManagedCluster, Taint
from clusterplace.api.base import format_time
from clusterplace.api.placement import Toleration
from clusterplace.scheduling.framework import (
    DECISIONS,
    TAINTS,
    Context,
    Filtered,
    FilterPlugin,
    Status,
)

__all__ = ["TaintTolerationFilter", "tolerates"]

NAME = "TaintToleration"
_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


def _validate(tolerations: Sequence[Toleration]) -> str | None:
    for toleration in tolerations:
        operator = toleration.operator
        if not toleration.key and operator != "Exists":
            return "If the key is empty, operator must be Exists."
        if operator == "Exists" and toleration.value:
            return "If the operator is Exists, the value should be empty."
    return None


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Whether ``toleration`` matches ``taint`` (expiry aside)."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return (toleration.value or "") == taint.value
    return toleration.operator == "Exists"


def expiry(toleration: Toleration, taint: Taint) -> datetime | None:
    """When the toleration stops tolerating this taint (None: never)."""
    if toleration.toleration_seconds is None:
        return None
    added = taint.time_added or _ZERO_TIME
    try:
        return added + timedelta(seconds=toleration.toleration_seconds)
    except OverflowError:
        return datetime.max.replace(tzinfo=UTC) if toleration.toleration_seconds > 0 else _ZERO_TIME


def _taint_text(taint: Taint) -> str:
    return (
        f"{taint.key}={taint.value}:{taint.effect}"
        if taint.value
        else f"{taint.key}:{taint.effect}"
    )


class TaintTolerationFilter(FilterPlugin):
    reads = frozenset({TAINTS, DECISIONS})  # NoSelectIfNew and expiry: own decisions
    name = NAME

    def filter_positions(self, ctx: Context, positions: np.ndarray) -> Filtered:
        if not len(positions):
            return Filtered(positions)
        tolerations = ctx.placement.spec.tolerations or []
        invalid = _validate(tolerations)
        if invalid:
            return Filtered(positions[:0], Status.misconfigured(NAME, invalid))
        if not ctx.snapshot.any_tainted:
            return Filtered(positions)
        tainted = ctx.snapshot.tainted[positions]
        if not tainted.any():
            return Filtered(positions)
        placement = ctx.placement
        existing = ctx.snapshot.decisions.own_clusters(placement.namespace, placement.name)
        keep = np.ones(len(positions), dtype=bool)
        listing = ctx.snapshot.cluster_list
        for n in np.flatnonzero(tainted).tolist():
            reason, _ = self._check(listing[int(positions[n])], tolerations, existing, ctx.now)
            keep[n] = reason is None
        return Filtered(positions[keep])

    def _verdict(self, ctx: Context, cluster: ManagedCluster) -> tuple[str | None, datetime | None]:
        placement = ctx.placement
        existing = ctx.snapshot.decisions.own_clusters(placement.namespace, placement.name)
        return self._check(cluster, placement.spec.tolerations or [], existing, ctx.now)

    def explain(self, ctx: Context, cluster: ManagedCluster) -> str | None:
        return self._verdict(ctx, cluster)[0]

    def note(self, ctx: Context, cluster: ManagedCluster) -> str | None:
        reason, until = self._verdict(ctx, cluster)
        if reason is None and until is not None:
            return f"taints tolerated until {format_time(until)}"
        return None

    def requeue_at(self, ctx: Context) -> datetime | None:
        """When a toleration of a cluster this placement already selected runs out.

        Upstream looks at every cluster of the placement's current decisions (candidates
        or not) and takes the earliest expiry among those still tolerated.
        """
        placement = ctx.placement
        tolerations = placement.spec.tolerations or []
        if not tolerations:
            return None
        existing = ctx.snapshot.decisions.own_clusters(placement.namespace, placement.name)
        earliest: datetime | None = None
        for name in sorted(existing):
            cluster = ctx.snapshot.clusters.get(name)
            if cluster is None:
                continue
            reason, until = self._check(cluster, tolerations, existing, ctx.now)
            if reason is None and until is not None:
                earliest = until if earliest is None else min(earliest, until)
        return earliest

    @staticmethod
    def _check(
        cluster: ManagedCluster,
        tolerations: Sequence[Toleration],
        existing: set[str],
        now: datetime,
    ) -> tuple[str | None, datetime | None]:
        """(why the cluster is rejected or None, the earliest toleration expiry used)."""
        earliest: datetime | None = None
        for taint in cluster.taints:
            if taint.effect == "PreferNoSelect":
                continue
            if taint.effect == "NoSelectIfNew" and cluster.name in existing:
                continue
            tolerated = False
            expired_at: datetime | None = None
            for toleration in tolerations:
                if not tolerates(toleration, taint):
                    continue
                until = expiry(toleration, taint)
                if until is not None and not now < until:
                    expired_at = until if expired_at is None else max(expired_at, until)
                    continue
                tolerated = True
                if until is not None:
                    earliest = until if earliest is None else min(earliest, until)
                break
            if not tolerated:
                why = f"taint {_taint_text(taint)} is not tolerated"
                if expired_at is not None:
                    why += f" (its toleration expired at {format_time(expired_at)})"
                return why, None
        return None, earliest
