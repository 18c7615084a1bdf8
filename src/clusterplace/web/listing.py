"""The Placements list: every placement's name, satisfied or not and status, sorted
once by namespace and name in natural order and kept until the fleet changes, so a
page of 100 out of thousands filters the list and builds only its own rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clusterplace.scheduling import PlacementResult
from clusterplace.web.fates import group_label
from clusterplace.web.order import natural_key, ref_key

if TYPE_CHECKING:
    from clusterplace.web.state import Explorer

__all__ = [
    "SHOW_PLACEMENTS",
    "Listed",
    "Listing",
    "PlacementFilter",
    "page_of",
    "placement_row",
    "placement_rows",
    "placement_status",
]

SHOW_PLACEMENTS = ("all", "satisfied", "unsatisfied")


def placement_status(result: PlacementResult) -> str:
    """What the Status column says: why it was skipped, its error, or its status code."""
    return result.skipped or result.error or result.status.code.value


@dataclass(frozen=True)
class Listed:
    """One placement as the list filters it; ``position`` is its result's place in
    the run."""

    namespace: str
    name: str
    text: str  # "namespace/name", lower case: what the search looks in
    satisfied: bool
    status: str
    position: int


@dataclass(frozen=True)
class PlacementFilter:
    """Which placements to list: a case-insensitive search in ``namespace/name``,
    ``show`` all, satisfied or unsatisfied ones, and a status (empty: any)."""

    search: str = ""
    show: str = "all"
    status: str = ""

    @property
    def active(self) -> bool:
        return bool(self.search.strip() or self.show != "all" or self.status)

    def keeps(self, entry: Listed) -> bool:
        if self.show != "all" and entry.satisfied != (self.show == "satisfied"):
            return False
        if self.status and entry.status != self.status:
            return False
        wanted = self.search.strip().lower()
        return not wanted or wanted in entry.text


@dataclass(frozen=True)
class Listing:
    """Every placement of a run, in natural order of namespace and name, and each
    status with how many placements have it (most first)."""

    entries: tuple[Listed, ...]
    statuses: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, results: list[PlacementResult]) -> Listing:
        entries = [_listed(result, position) for position, result in enumerate(results)]
        entries.sort(key=lambda e: ref_key(e.namespace, e.name))
        return cls._counted(entries)

    @classmethod
    def _counted(cls, entries: list[Listed]) -> Listing:
        counts = Counter(e.status for e in entries)
        statuses = sorted(counts.items(), key=lambda item: (-item[1], natural_key(item[0])))
        return cls(tuple(entries), tuple(statuses))

    def updated(self, results: list[PlacementResult], positions: Iterable[int]) -> Listing:
        """This listing with the results at ``positions`` read again: the run's
        placements are the same, in the same places; only those were scheduled again
        (a change followed by the run), so nothing needs sorting again."""
        wanted = set(positions)
        if not wanted:
            return self
        entries = list(self.entries)
        for at, entry in enumerate(entries):
            if entry.position in wanted:
                entries[at] = _listed(results[entry.position], entry.position)
        return self._counted(entries)

    def kept(self, chosen: PlacementFilter) -> list[Listed]:
        """The entries ``chosen`` keeps, in order."""
        if not chosen.active:
            return list(self.entries)
        return [e for e in self.entries if chosen.keeps(e)]

    def holds(self, results: list[PlacementResult]) -> bool:
        """Whether the entries still point at ``results`` (the same placements in the
        same places)."""
        if len(results) != len(self.entries):
            return False
        return all(
            (r := results[e.position].placement).namespace == e.namespace and r.name == e.name
            for e in self.entries[:1] + self.entries[-1:]
        )


def _listed(result: PlacementResult, position: int) -> Listed:
    placement = result.placement
    namespace, name = placement.namespace, placement.name
    return Listed(
        namespace,
        name,
        f"{namespace}/{name}".lower(),
        result.satisfied,
        placement_status(result),
        position,
    )


def placement_row(result: PlacementResult) -> dict[str, Any]:
    """One placement as the list shows it."""
    placement = result.placement
    selected = (
        len(result.outcome.selected)
        if result.outcome is not None
        else sum(len(pd.cluster_names) for pd in result.decisions)
    )
    return {
        "namespace": placement.namespace,
        "name": placement.name,
        "satisfied": result.satisfied,
        "selected": selected,
        "wanted": placement.spec.number_of_clusters,
        "groups": [
            {
                "name": g.name,
                "index": g.index,
                "label": group_label(g.index, g.name or ""),
                "clusters": len(g.clusters),
            }
            for g in result.groups
        ],
        "status": placement_status(result),
    }


def page_of(state: Explorer, entries: list[Listed]) -> list[dict[str, Any]]:
    """The rows of ``entries`` (a page), read from the run's results."""
    results = state.run.result.placements
    return [placement_row(results[e.position]) for e in entries]


def placement_rows(state: Explorer) -> list[dict[str, Any]]:
    """Every placement as the list shows it, in natural order."""
    with state.lock:
        return page_of(state, list(state.listing().entries))
