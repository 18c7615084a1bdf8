"""A placement's page of cluster fates: every cluster's ``explain -o wide`` line, with
its decision group, filtered as ``explain placement`` filters (``--stage``,
``--selected``/``--rejected``, the clusters named) and shown a page at a time."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clusterplace.api import ManagedCluster
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.explain import ClusterExplanation
from clusterplace.web.order import natural_key

__all__ = [
    "PAGE_SIZE",
    "SHOW",
    "STAGES",
    "FateFilter",
    "FateRow",
    "Paging",
    "cutoff_text",
    "group_label",
    "group_labels",
    "missing_scores",
    "page_rows",
    "paging",
    "ranked",
    "stage_counts",
]

PAGE_SIZE = 100  # clusters on one page of a placement (and of the fleet)
# The stages ``explain placement --stage`` takes, in the order a cluster meets them.
STAGES = (
    "ClusterSet",
    "Terminating",
    "Predicate",
    "TaintToleration",
    "Spread",
    "Scheduling",
    "Selection",
)
SHOW = ("all", "selected", "rejected")


def group_label(index: int, name: str = "") -> str:
    """A decision group as the CLI writes it: ``0`` when unnamed, ``0:canary`` when named."""
    return f"{index}:{name}" if name else str(index)


def group_labels(result: PlacementResult) -> dict[str, tuple[int, str]]:
    """The decision group (index, name) of each cluster the placement selected."""
    return {c: (g.index, g.name or "") for g in result.groups for c in g.clusters}


def ranked(items: Sequence[ClusterExplanation]) -> list[ClusterExplanation]:
    """Ranked clusters first, in rank order; then the rest by name (``cluster2`` before
    ``cluster10``)."""
    return sorted(items, key=lambda i: (i.rank is None, i.rank or 0, natural_key(i.cluster)))


def stage_counts(items: Sequence[ClusterExplanation]) -> list[tuple[str, int]]:
    """Each stage that decided a cluster, with how many it decided (known stages first,
    in pipeline order)."""
    counts = Counter(i.stage for i in items)
    known = [(s, counts[s]) for s in STAGES if counts[s]]
    return known + sorted((s, n) for s, n in counts.items() if s not in STAGES)


@dataclass(frozen=True)
class FateFilter:
    """Which clusters to show: a stage (empty: any), ``show`` all, selected or rejected,
    and a case-insensitive search in the cluster's name."""

    stage: str = ""
    show: str = "all"
    search: str = ""

    @property
    def active(self) -> bool:
        return bool(self.stage or self.show != "all" or self.search.strip())

    def keeps(self, item: ClusterExplanation) -> bool:
        if self.stage and item.stage != self.stage:
            return False
        if self.show == "selected" and not item.selected:
            return False
        if self.show == "rejected" and item.selected:
            return False
        wanted = self.search.strip().lower()
        return not wanted or wanted in item.cluster.lower()


@dataclass(frozen=True)
class FateRow:
    """One cluster on the page: its explanation, its decision group's label (``""``
    when not selected), whether the cut-off line goes above it, and the prioritizers
    that gave it no score (:func:`missing_scores`)."""

    item: ClusterExplanation
    group: str
    cutoff_above: bool
    missing: tuple[tuple[str, str], ...] = ()  # (prioritizer, why it gave no score)


def cutoff_text(number_of_clusters: int | None) -> str:
    """What the line between the selected clusters and the rest says."""
    if number_of_clusters is None:
        return "cut-off: all clusters wanted (numberOfClusters is not set)"
    return f"cut-off: numberOfClusters {number_of_clusters}"


def page_rows(
    shown: Sequence[ClusterExplanation],
    groups: dict[str, tuple[int, str]],
    start: int,
    stop: int,
    clusters: Mapping[str, ManagedCluster] | None = None,
) -> list[FateRow]:
    """Rows ``start:stop`` of ``shown`` (ranked, filtered): the cut-off line above the
    first cluster shown that is not selected right after one that is; with the fleet's
    ``clusters``, why a prioritizer gave a cluster no score."""
    rows = []
    for i in range(start, min(stop, len(shown))):
        item = shown[i]
        cutoff = i > 0 and shown[i - 1].selected and not item.selected
        group = groups.get(item.cluster) if item.selected else None
        cluster = clusters.get(item.cluster) if clusters is not None else None
        missing = tuple(missing_scores(item, cluster))
        rows.append(FateRow(item, group_label(*group) if group else "", cutoff, missing))
    return rows


# The built-in prioritizers that score only some clusters, and the resource each reads.
RESOURCE_PRIORITIZERS = {"ResourceAllocatableCPU": "cpu", "ResourceAllocatableMemory": "memory"}


def missing_scores(
    item: ClusterExplanation, cluster: ManagedCluster | None
) -> list[tuple[str, str]]:
    """The resource prioritizers of a scored cluster that gave it no score, each with
    why; the total counts them as 0. Upstream's ResourceAllocatableCPU/Memory score only
    the clusters whose status reports both allocatable and capacity for the resource:
    the others get no entry in its scores, so they add nothing to the total (the other
    prioritizers score every feasible cluster)."""
    if item.rank is None:
        return []
    out = []
    for prioritizer in item.weights:
        resource = RESOURCE_PRIORITIZERS.get(prioritizer)
        if resource is not None and prioritizer not in item.scores:
            out.append((prioritizer, _no_score_reason(prioritizer, resource, cluster)))
    return out


def _no_score_reason(prioritizer: str, resource: str, cluster: ManagedCluster | None) -> str:
    status = cluster.status if cluster is not None else None
    lacking = [
        what
        for what, amounts in (
            ("allocatable", status.allocatable if status else None),
            ("capacity", status.capacity if status else None),
        )
        if not amounts or resource not in amounts
    ]
    what = " or ".join(lacking) if lacking else "allocatable and capacity"
    return (
        f"the cluster reports no {what} {resource} in its status, so it counts 0 "
        f"({prioritizer} scores only clusters that report both)"
    )


@dataclass(frozen=True)
class Paging:
    """Page ``number`` (from 1) of ``count``: items ``start:stop`` of ``total``."""

    number: int
    count: int
    start: int
    stop: int
    total: int

    def numbers(self) -> list[int | None]:
        """The page numbers to link: the first, the last, and two either side of this
        one; None where pages are left out."""
        wanted = {1, self.count, *range(self.number - 2, self.number + 3)}
        shown = sorted(n for n in wanted if 1 <= n <= self.count)
        out: list[int | None] = []
        for n in shown:
            if out and n - (out[-1] or 0) > 1:
                out.append(None)
            out.append(n)
        return out


def paging(total: int, page: int, size: int = PAGE_SIZE) -> Paging:
    """Which items page ``page`` shows (a page past the end shows the last)."""
    count = max(1, math.ceil(total / size))
    number = min(max(1, page), count)
    start = (number - 1) * size
    return Paging(number, count, start, min(total, start + size), total)
