"""The Predicate filter: a cluster passes when any predicate's label selector AND claim
selector AND every CEL expression match. No predicates: everything passes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clusterplace.api import ManagedCluster
from clusterplace.api.placement import ClusterPredicate
from clusterplace.labels import Selector, SelectorError, from_label_selector, from_requirements
from clusterplace.scheduling.filters.cel import CelCompileError, CelProgram, compile_all
from clusterplace.scheduling.framework import Context, FilterResult, Status

__all__ = ["PredicateFilter"]

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


class PredicateFilter:
    name = NAME

    def filter(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> FilterResult:
        predicates = ctx.placement.spec.predicates or []
        if not clusters or not predicates:
            return FilterResult(list(clusters))
        try:
            compiled = [_compile(p) for p in predicates]
        except (SelectorError, CelCompileError) as err:
            return FilterResult([], Status.misconfigured(NAME, str(err)))
        snapshot = ctx.snapshot
        kept: list[ManagedCluster] = []
        rejected: dict[str, str] = {}
        for cluster in clusters:
            claims = snapshot.claims(cluster)
            reasons: list[str] = []
            for index, predicate in enumerate(compiled):
                failed = _first_failure(predicate, cluster, claims, snapshot.unstructured, ctx)
                if failed is None:
                    kept.append(cluster)
                    break
                reasons.append(f"predicates[{index}]: {failed}")
            else:
                rejected[cluster.name] = "; ".join(reasons)
        return FilterResult(kept, rejected=rejected)


def _first_failure(
    predicate: _Compiled,
    cluster: ManagedCluster,
    claims: dict[str, str],
    unstructured: Any,
    ctx: Context,
) -> str | None:
    """Why the predicate does not match the cluster, or None when it does."""
    labels = cluster.labels
    if not predicate.labels.matches(labels):
        req = next(r for r in predicate.labels if not r.matches(labels))
        return f"label requirement {req} not met (labels: {_show(labels, req.key)})"
    if not predicate.claims.matches(claims):
        req = next(r for r in predicate.claims if not r.matches(claims))
        return f"claim requirement {req} not met (claims: {_show(claims, req.key)})"
    if predicate.cel:
        obj = unstructured(cluster)
        for program in predicate.cel:
            if not program.matches(obj, lambda res: ctx.snapshot.cel_scores(cluster.name, res)):
                return f"CEL expression {program.source!r} is not true"
    return None


def _show(values: dict[str, str], key: str) -> str:
    return f"{key}={values[key]}" if key in values else f"{key} absent"
