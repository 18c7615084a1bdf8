"""The heatmap's data: placements (rows, a page at a time) × clusters (columns), each
cell a cluster's total score; or, grouped by a label, × the label's values, each cell
what the clusters of that value add up to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clusterplace.api import ManagedCluster
from clusterplace.scheduling import PlacementResult
from clusterplace.web.order import natural_key, naturally

__all__ = ["heatmap_data", "label_keys"]


def label_keys(clusters: Mapping[str, ManagedCluster]) -> list[dict[str, Any]]:
    """Every label key of the fleet's clusters with how many values it takes."""
    values: dict[str, set[str]] = {}
    for cluster in clusters.values():
        for key, value in cluster.labels.items():
            values.setdefault(key, set()).add(value)
    return [{"key": k, "values": len(v)} for k, v in sorted(values.items())]


def _selected(result: PlacementResult) -> list[str]:
    """The clusters the placement selected: its decisions' (read from the outcome when
    there is one: the same names, without building the PlacementDecisions)."""
    if result.outcome is not None:
        return result.outcome.selected
    return [n for pd in result.decisions for n in pd.cluster_names]


def _totals(result: PlacementResult) -> Mapping[str, int]:
    return result.outcome.totals if result.outcome is not None else {}


def heatmap_data(
    clusters: Mapping[str, ManagedCluster],
    placements: Sequence[PlacementResult],
    offset: int,
    limit: int,
    group_by: str = "",
) -> dict[str, Any]:
    """Rows ``offset:offset+limit`` of the heatmap: ``placements`` in the order given,
    clusters in natural order. Per row, by cluster: ``cells`` ``[column, total]`` of the
    feasible clusters and the ``selected`` columns. Grouped by the label ``group_by``:
    per row ``groups`` ``[group, feasible, selected, mean total, best total]`` of the
    groups with a feasible cluster. ``range`` is the lowest and highest total of the
    rows given (None when no cluster is feasible)."""
    names = naturally(clusters)
    column = {n: i for i, n in enumerate(names)}
    page = placements[offset : offset + limit]
    lo: int | None = None
    hi: int | None = None
    for result in page:
        for total in _totals(result).values():
            lo = total if lo is None or total < lo else lo
            hi = total if hi is None or total > hi else hi
    answer: dict[str, Any] = {
        "clusters": names,
        "offset": offset,
        "total": len(placements),
        "range": None if lo is None or hi is None else [lo, hi],
        "labelKeys": label_keys(clusters),
        "groupBy": group_by or None,
    }
    if not group_by:
        column_of = column.get
        answer["rows"] = [
            {
                "placement": f"{r.placement.namespace}/{r.placement.name}",
                "cells": [[c, t] for n, t in _totals(r).items() if (c := column_of(n)) is not None],
                "selected": [c for n in _selected(r) if (c := column_of(n)) is not None],
            }
            for r in page
        ]
        return answer
    values = sorted(
        {c.labels.get(group_by) for c in clusters.values()},
        key=lambda v: (v is None, natural_key(v or "")),
    )
    index = {v: i for i, v in enumerate(values)}
    group_of = {n: index[c.labels.get(group_by)] for n, c in clusters.items()}
    sizes = [0] * len(values)
    for g in group_of.values():
        sizes[g] += 1
    answer["groups"] = [
        {
            "value": v,
            "label": f"{group_by}={v}" if v is not None else f"{group_by} not set",
            "clusters": sizes[i],
        }
        for i, v in enumerate(values)
    ]
    rows = []
    for result in page:
        feasible = [0] * len(values)
        chosen = [0] * len(values)
        sums = [0] * len(values)
        best: list[int | None] = [None] * len(values)
        for name, total in _totals(result).items():
            at = group_of.get(name)
            if at is None:
                continue
            feasible[at] += 1
            sums[at] += total
            top = best[at]
            best[at] = total if top is None or total > top else top
        for name in _selected(result):
            at = group_of.get(name)
            if at is not None:
                chosen[at] += 1
        rows.append(
            {
                "placement": f"{result.placement.namespace}/{result.placement.name}",
                "groups": [
                    [g, feasible[g], chosen[g], round(sums[g] / feasible[g], 1), best[g]]
                    for g in range(len(values))
                    if feasible[g]
                ],
            }
        )
    answer["rows"] = rows
    return answer
