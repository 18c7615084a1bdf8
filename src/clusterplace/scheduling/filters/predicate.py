"""The Predicate filter: a cluster passes when any predicate's label selector AND claim
selector AND every CEL expression match. No predicates: everything passes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clusterplace.api import ManagedCluster, Placement
from clusterplace.api.placement import ClusterPredicate
from clusterplace.labels import Selector, SelectorError, from_label_selector, from_requirements
from clusterplace.scheduling.columns import LabelColumns
from clusterplace.scheduling.filters.cel import CelCompileError, CelProgram, Meter, compile_all
from clusterplace.scheduling.framework import (
    ADDON_SCORES,
    CLAIMS,
    CLUSTER,
    LABELS,
    Context,
    Filtered,
    FilterPlugin,
    Status,
)
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["CompiledPredicates", "PredicateFilter"]

NAME = "Predicate"


@dataclass(frozen=True)
class _Compiled:
    labels: Selector
    claims: Selector
    cel: list[CelProgram]


def _compile(predicate: ClusterPredicate) -> _Compiled:
    selector = predicate.required_cluster_selector
    if selector is None:
        return _Compiled(Selector.everything(), Selector.everything(), [])
    label_selector = selector.label_selector
    # An absent labelSelector is an empty one here (upstream converts a value, not a pointer).
    labels = from_label_selector(label_selector if label_selector is not None else {})
    claims = from_requirements(
        (selector.claim_selector.match_expressions or []) if selector.claim_selector else []
    )
    expressions = (selector.cel_selector.cel_expressions or []) if selector.cel_selector else []
    return _Compiled(labels, claims, compile_all(expressions))


class CompiledPredicates(SnapshotIndex):
    """Each placement's predicates, compiled once per snapshot (a placement is filtered
    again when explained, or when an incremental run reschedules it)."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._compiled: dict[tuple[str, str], tuple[Placement, list[_Compiled]]] = {}

    def of(self, placement: Placement) -> list[_Compiled]:
        key = (placement.namespace, placement.name)
        found = self._compiled.get(key)
        if found is not None and found[0] is placement:
            return found[1]
        compiled = [_compile(p) for p in placement.spec.predicates or []]
        self._compiled[key] = (placement, compiled)
        return compiled

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """Compiled predicates depend on the placement alone: nothing to do."""

    def on_score_changed(self, position: int, resource: str) -> None:
        """Compiled predicates depend on the placement alone: nothing to do."""


def _compile_all(ctx: Context) -> list[_Compiled]:
    return ctx.snapshot.index_of(CompiledPredicates).of(ctx.placement)


def _first_failure(predicate: _Compiled, cluster: ManagedCluster, ctx: Context) -> str | None:
    """Why the predicate does not match the cluster, or None when it does."""
    labels = cluster.labels
    if not predicate.labels.matches(labels):
        req = next(r for r in predicate.labels if not r.matches(labels))
        return f"label requirement {req} not met (labels: {_show(labels, req.key)})"
    claims = ctx.snapshot.claims(cluster)
    if not predicate.claims.matches(claims):
        req = next(r for r in predicate.claims if not r.matches(claims))
        return f"claim requirement {req} not met (claims: {_show(claims, req.key)})"
    return _cel_failure(predicate, cluster, ctx) if predicate.cel else None


def _cel_failure(predicate: _Compiled, cluster: ManagedCluster, ctx: Context) -> str | None:
    """Why the predicate's CEL expressions do not all match the cluster, or None."""
    obj = ctx.snapshot.unstructured(cluster)
    meter = Meter()  # one runtime budget for all of the cluster's expressions
    for program in predicate.cel:
        failed = program.evaluate(
            obj, lambda res: ctx.snapshot.cel_scores(cluster.name, res), meter
        )
        if failed is not None:
            return f"CEL expression {program.source!r} {failed}"
    return None


def _show(values: dict[str, str], key: str) -> str:
    return f"{key}={values[key]}" if key in values else f"{key} absent"


_SELECTORS_ONLY = frozenset({LABELS, CLAIMS})


def has_cel(placement: Placement) -> bool:
    """Whether a predicate has CEL expressions (they can read any part of a cluster and
    its add-on scores)."""
    for predicate in placement.spec.predicates or []:
        selector = predicate.required_cluster_selector
        cel = selector.cel_selector if selector is not None else None
        if cel is not None and cel.cel_expressions:
            return True
    return False


# From this many clusters on, selectors are answered by the label columns (a few array
# operations per requirement) rather than one ``matches`` call per cluster; below it,
# as when an incremental run judges one changed cluster, the calls are cheaper.
COLUMNS_FROM = 32


def _keep_each(ctx: Context, compiled: list[_Compiled], positions: np.ndarray) -> np.ndarray:
    """Which clusters at ``positions`` some predicate matches, cluster by cluster."""
    snapshot = ctx.snapshot
    listing = snapshot.cluster_list
    keep = np.zeros(len(positions), dtype=bool)
    for n, position in enumerate(positions.tolist()):
        cluster = listing[position]
        labels = cluster.labels
        for predicate in compiled:
            if not predicate.labels.matches(labels):
                continue
            if not predicate.claims.is_empty() and not predicate.claims.matches(
                snapshot.claims(cluster)
            ):
                continue
            if predicate.cel and _cel_failure(predicate, cluster, ctx) is not None:
                continue
            keep[n] = True
            break
    return keep


def _keep_by_columns(ctx: Context, compiled: list[_Compiled], positions: np.ndarray) -> np.ndarray:
    """The same verdicts as :func:`_keep_each`, predicate by predicate over all clusters:
    selectors through the label columns; CEL, cluster by cluster, only where the
    cluster loop would evaluate it (selectors match, no earlier predicate matched)."""
    columns = ctx.snapshot.index_of(LabelColumns)
    listing = ctx.snapshot.cluster_list
    keep = np.zeros(len(positions), dtype=bool)
    for predicate in compiled:
        match = columns.select("labels", predicate.labels, positions)
        if not predicate.claims.is_empty():
            match &= columns.select("claims", predicate.claims, positions)
        if not predicate.cel:
            keep |= match
            continue
        for n in np.flatnonzero(match & ~keep).tolist():
            if _cel_failure(predicate, listing[int(positions[n])], ctx) is None:
                keep[n] = True
    return keep


class PredicateFilter(FilterPlugin):
    reads = frozenset({LABELS, CLAIMS, CLUSTER, ADDON_SCORES})  # CEL reads anything

    def reads_for(self, placement: Placement) -> frozenset[str]:
        return self.reads if has_cel(placement) else _SELECTORS_ONLY

    name = NAME

    def filter_positions(self, ctx: Context, positions: np.ndarray) -> Filtered:
        if not len(positions) or not ctx.placement.spec.predicates:
            return Filtered(positions)
        try:
            compiled = _compile_all(ctx)
        except (SelectorError, CelCompileError) as err:
            return Filtered(positions[:0], Status.misconfigured(NAME, str(err)))
        if len(positions) < COLUMNS_FROM:
            return Filtered(positions[_keep_each(ctx, compiled, positions)])
        return Filtered(positions[_keep_by_columns(ctx, compiled, positions)])

    def explain(self, ctx: Context, cluster: ManagedCluster) -> str | None:
        try:
            compiled = _compile_all(ctx)
        except (SelectorError, CelCompileError):
            return None
        reasons = []
        for index, predicate in enumerate(compiled):
            failed = _first_failure(predicate, cluster, ctx)
            if failed is None:
                return None
            reasons.append(f"predicates[{index}]: {failed}")
        return "; ".join(reasons) if reasons else None
