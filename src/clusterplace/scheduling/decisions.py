"""Decision groups and PlacementDecision pages (upstream ``scheduling_controller.go``).

Groups: ``decisionGroups`` selectors first (first match wins, spec order), then the
rest in one group named ""; each group cut into chunks of ``clustersPerDecisionGroup``.
Pages: at most 100 decisions per PlacementDecision, named ``<placement>-decision-<k>``
with k counting from 1 across all groups.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from clusterplace.api import ManagedCluster, Placement, PlacementDecision
from clusterplace.api.placement import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    PLACEMENT_LABEL,
    ClusterDecision,
)
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import SelectorError, from_label_selector, from_requirements
from clusterplace.labels.validation import (
    FieldError,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)

__all__ = [
    "PAGE_SIZE",
    "DecisionPages",
    "GroupError",
    "GroupResult",
    "build_decisions",
    "decision_errors",
    "make_groups",
]

PAGE_SIZE = 100


class GroupError(ClusterplaceError, ValueError):
    """The group strategy cannot be applied; the placement is Misconfigured."""


@dataclass(frozen=True)
class GroupResult:
    index: int
    name: str
    clusters: tuple[str, ...]
    decision_names: tuple[str, ...] = ()


def group_length(placement: Placement, selected: int) -> int:
    """``clustersPerDecisionGroup`` for ``selected`` clusters; raises GroupError."""
    strategy = placement.spec.decision_strategy
    group = strategy.group_strategy if strategy else None
    value: int | str = group.clusters_per_decision_group if group else "100%"
    if isinstance(value, str):
        try:
            if not value.endswith("%"):
                raise ValueError
            percent = float(value[:-1])
        except ValueError:
            raise GroupError(f"{value} invalid type: string is not a percentage") from None
        length = math.ceil(percent / 100 * selected)
    else:
        length = value
    return selected if length <= 0 or length > selected else length


def _chunks(names: Sequence[str], size: int) -> list[tuple[str, ...]]:
    if not names:
        return []
    return [tuple(names[i : i + size]) for i in range(0, len(names), size)]


Groups = list[tuple[str, tuple[str, ...]]]


def make_groups(
    placement: Placement,
    selected: Sequence[str],
    clusters: Mapping[str, ManagedCluster],
    claims_of: dict[str, dict[str, str]],
    scores: Mapping[str, int] | None = None,
) -> tuple[Groups, str | None]:
    """(group name, sorted cluster names) per decision group in index order, and the
    misconfiguration found, if any. ``selected`` are cluster names; ``clusters`` holds
    their objects, whose labels decision-group selectors match.

    As upstream: an invalid ``clustersPerDecisionGroup`` yields no groups at all; an
    invalid selector in ``decisionGroups[i]`` keeps the groups built before it. With
    ``scores`` (``sortBy: Score``) each group is ordered by score, then name.
    """

    strategy = placement.spec.decision_strategy
    group_strategy = strategy.group_strategy if strategy else None
    if group_strategy is None and scores is None:
        # The common case: one unnamed group of every selected cluster, in name order.
        return [("", tuple(sorted(selected)))], None

    def order(names: Iterable[str]) -> list[str]:
        if scores is None:
            return sorted(names)
        return sorted(names, key=lambda n: (-scores.get(n, 0), n))

    try:
        length = group_length(placement, len(selected))
    except GroupError as err:
        return [], str(err)
    remaining = {name: clusters[name] for name in selected}
    groups: Groups = []
    for spec in (group_strategy.decision_groups if group_strategy else None) or []:
        selector = spec.group_cluster_selector
        try:
            labels = from_label_selector(selector.label_selector or {})
            claims = from_requirements(
                (selector.claim_selector.match_expressions or []) if selector.claim_selector else []
            )
        except SelectorError as err:
            return groups, str(err)
        members = order(
            name
            for name, cluster in remaining.items()
            if labels.matches(cluster.labels) and claims.matches(claims_of.get(name, {}))
        )
        for name in members:
            del remaining[name]
        groups.extend((spec.group_name, chunk) for chunk in _chunks(members, length))
    groups.extend(("", chunk) for chunk in _chunks(order(remaining), length))
    if not groups:
        groups.append(("", ()))
    return groups, None


@lru_cache(maxsize=1 << 16)
def _unscored(cluster: str) -> ClusterDecision:
    """The decision entry of ``cluster`` without a score. Entries are results, never
    changed once built, so one object per cluster serves every placement; pydantic takes
    a model as it is, so validating a PlacementDecision does not repeat for them."""
    return ClusterDecision(cluster_name=cluster, reason="")


def build_decisions(
    placement: Placement,
    groups: Sequence[tuple[str, tuple[str, ...]]],
    scores: Mapping[str, int] | None = None,
) -> tuple[list[GroupResult], list[PlacementDecision]]:
    """Group statuses and the PlacementDecision objects that carry them.

    Decisions are sorted by cluster name, as upstream; with ``scores`` (``sortBy:
    Score``) they keep the groups' score order and carry each cluster's score.
    """
    pages = DecisionPages(placement, groups, scores)
    return pages.groups, pages()


class DecisionPages:
    """A placement's decision groups and its PlacementDecision pages, planned: the
    groups, the pages' names, labels and clusters are known at once, and the
    PlacementDecision objects are built on the first call (then kept), so a run that
    only counts decisions (the store, Balance) does not build them."""

    __slots__ = ("_built", "_plan", "clusters", "groups", "labels", "names", "namespace")

    def __init__(
        self,
        placement: Placement,
        groups: Sequence[tuple[str, tuple[str, ...]]],
        scores: Mapping[str, int] | None = None,
    ) -> None:
        self.namespace = placement.namespace
        # Every page: its name, its labels, its clusters in PD order.
        self.names: list[str] = []
        self.labels: list[dict[str, str]] = []
        self.clusters: list[str] = []  # every page's clusters, in order
        self.groups: list[GroupResult] = []
        plan: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        if len(groups) == 1 and len(groups[0][1]) <= PAGE_SIZE:
            # The common case, one group on one page: the loop below, unrolled.
            name, clusters = groups[0]
            placement_name = placement.name
            pd_name = f"{placement_name}-decision-1"
            labels = {
                PLACEMENT_LABEL: placement_name,
                DECISION_GROUP_NAME_LABEL: name,
                DECISION_GROUP_INDEX_LABEL: "0",
            }
            ordered = tuple(sorted(clusters)) if scores is None else tuple(clusters)
            self.names.append(pd_name)
            self.labels.append(labels)
            self.clusters.extend(ordered)
            plan.append((pd_name, labels, ordered))
            self.groups.append(GroupResult(0, name, clusters, (pd_name,)))
            groups = ()
        for index, (name, clusters) in enumerate(groups):
            names: list[str] = []
            pages = (
                [clusters]
                if len(clusters) <= PAGE_SIZE
                else [clusters[i : i + PAGE_SIZE] for i in range(0, len(clusters), PAGE_SIZE)]
            )
            for page in pages:
                pd_name = f"{placement.name}-decision-{len(self.names) + 1}"
                names.append(pd_name)
                labels = {
                    PLACEMENT_LABEL: placement.name,
                    DECISION_GROUP_NAME_LABEL: name,
                    DECISION_GROUP_INDEX_LABEL: str(index),
                }
                ordered = tuple(sorted(page)) if scores is None else tuple(page)
                self.names.append(pd_name)
                self.labels.append(labels)
                self.clusters.extend(ordered)
                plan.append((pd_name, labels, ordered))
            self.groups.append(GroupResult(index, name, clusters, tuple(names)))
        self._plan: (
            tuple[
                Placement,
                list[tuple[str, dict[str, str], tuple[str, ...]]],
                Mapping[str, int] | None,
            ]
            | None
        ) = (placement, plan, scores)
        self._built: list[PlacementDecision] | None = None

    def shape(self) -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
        """(name, labels, (cluster, reason) of each entry) of every page, in order, as
        the built objects would give them."""
        if self._built is not None or self._plan is None:
            return [
                (pd.name, pd.labels, [(d.cluster_name, d.reason) for d in pd.status.decisions])
                for pd in self()
            ]
        return [(name, labels, [(c, "") for c in page]) for name, labels, page in self._plan[1]]

    def unbuilt(self) -> list[tuple[str, dict[str, str], list[ClusterDecision]]] | None:
        """(name, labels, entries) of every page, the entries the very objects the built
        pages will hold, without building the pages; None once they are built, or when
        they carry scores (``sortBy: Score``)."""
        if self._plan is None or self._plan[2] is not None:
            return None
        pages = self._plan[1]
        return [(name, labels, [_unscored(c) for c in page]) for name, labels, page in pages]

    def __call__(self) -> list[PlacementDecision]:
        if self._built is None:
            assert self._plan is not None
            self._built = _build(*self._plan)
            self._plan = None
        return self._built


def _build(
    placement: Placement,
    plan: list[tuple[str, dict[str, str], tuple[str, ...]]],
    scores: Mapping[str, int] | None,
) -> list[PlacementDecision]:
    # Upstream's controller reference; an API server refuses an empty uid, so without the
    # Placement's uid (offline input rarely has one) there is no owner reference at all.
    owners = (
        [
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "Placement",
                "name": placement.name,
                "uid": placement.metadata.uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        if placement.metadata.uid
        else None
    )
    decisions: list[PlacementDecision] = []
    for pd_name, labels, page in plan:
        entries: list[ClusterDecision] | list[dict[str, object]]
        if scores is None:
            entries = [_unscored(c) for c in page]
        else:
            entries = [{"clusterName": c, "reason": "", "score": scores.get(c, 0)} for c in page]
        # One validation of the whole object in pydantic's core is several times
        # faster than building the nested models one by one from Python.
        decisions.append(
            PlacementDecision.model_validate(
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                    "kind": "PlacementDecision",
                    "metadata": {
                        "name": pd_name,
                        "namespace": placement.namespace,
                        "labels": dict(labels),
                        "ownerReferences": owners,
                    },
                    "status": {"decisions": entries},
                }
            )
        )
    return decisions


def decision_errors(pd: PlacementDecision) -> list[tuple[str, FieldError]]:
    """Why the API server would refuse to store ``pd``, as it validates every object's
    metadata: its name a DNS-1123 subdomain (at most 253 characters), each label key
    and value valid (a value at most 63 characters). A placement's name becomes a
    label value and the start of its decisions' names, a decision group's name a label
    value: a long one gives decisions that cannot exist. Each problem with the label
    key it concerns ("" for the name)."""
    found = [
        ("", FieldError.invalid("metadata.name", pd.name, why))
        for why in dns1123_subdomain_errors(pd.name)
    ]
    for key, value in pd.labels.items():
        found += [
            (key, FieldError.invalid("metadata.labels", key, why)) for why in _label_key_errors(key)
        ]
        found += [
            (key, FieldError.invalid("metadata.labels", value, why))
            for why in _label_value_errors(value)
        ]
    return found


# Decisions share their label keys and most values (group names and indexes): each
# distinct one is checked once. The answers are tuples, so no caller can change them.
@lru_cache(maxsize=4096)
def _label_key_errors(key: str) -> tuple[str, ...]:
    return tuple(label_key_errors(key))


@lru_cache(maxsize=4096)
def _label_value_errors(value: str) -> tuple[str, ...]:
    return tuple(label_value_errors(value))
