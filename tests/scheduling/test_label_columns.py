"""The label columns give exactly the verdicts of ``Selector.matches``.

Random fleets of more clusters than ``COLUMNS_FROM`` (so the predicate filter takes the
column path), random selectors over labels and claims with every operator, and random
cluster replacements (new values, removed keys) after the columns were built.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace import labels
from clusterplace.api import Fleet, Placement
from clusterplace.labels import Selector
from clusterplace.scheduling.candidates import find_candidates
from clusterplace.scheduling.columns import LabelColumns, claim_value
from clusterplace.scheduling.filters.predicate import (
    COLUMNS_FROM,
    PredicateFilter,
    _compile_all,
    _keep_by_columns,
    _keep_each,
)
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import NOW, cluster, world

KEYS = ["a", "b", "example.com/c"]
VALUES = ["x", "y", "1", "01", "10", "7"]
label_sets = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)
requirement_texts = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(KEYS), st.sampled_from(VALUES[:3])),
    st.builds(lambda k, v: f"{k}!={v}", st.sampled_from(KEYS), st.sampled_from(VALUES[:3])),
    st.builds(
        lambda k, vs: f"{k} in ({','.join(vs)})",
        st.sampled_from(KEYS),
        st.lists(st.sampled_from(VALUES[:3]), min_size=1, max_size=3),
    ),
    st.builds(
        lambda k, vs: f"{k} notin ({','.join(vs)})",
        st.sampled_from(KEYS),
        st.lists(st.sampled_from(VALUES[:3]), min_size=1, max_size=3),
    ),
    st.builds(lambda k: k, st.sampled_from(KEYS)),
    st.builds(lambda k: f"!{k}", st.sampled_from(KEYS)),
    st.builds(lambda k, n: f"{k}>{n}", st.sampled_from(KEYS), st.integers(0, 12)),
    st.builds(lambda k, n: f"{k}<{n}", st.sampled_from(KEYS), st.integers(0, 12)),
)
selectors = st.lists(requirement_texts, max_size=3).map(lambda parts: labels.parse(",".join(parts)))
# What a placement's label and claim selectors can say (no Gt/Lt in a LabelSelector).
placement_selectors = selectors.filter(
    lambda s: all(r.operator.value not in ("gt", "lt") for r in s.requirements)
)
fleets = st.lists(st.tuples(label_sets, label_sets), min_size=COLUMNS_FROM, max_size=60)
# (cluster index, new labels, new claims, being deleted), after the columns were built.
replacements = st.lists(
    st.tuples(st.integers(0, 59), label_sets, label_sets, st.booleans()), max_size=5
)
Change = tuple[int, dict[str, str], dict[str, str], bool]


def _as_expressions(selector: Selector) -> list[dict[str, Any]]:
    """``selector`` as matchExpressions (a placement's labelSelector/claimSelector)."""
    operators = {"in": "In", "=": "In", "notin": "NotIn", "!=": "NotIn"}
    operators |= {"exists": "Exists", "!": "DoesNotExist", "gt": "Gt", "lt": "Lt"}
    return [
        {"key": r.key, "operator": operators[r.operator.value], "values": list(r.values)}
        for r in selector.requirements
    ]


CEL = 'managedCluster.metadata.labels["a"] == "x"'
predicates = st.lists(
    st.builds(
        lambda on_labels, on_claims, cel: {
            "requiredClusterSelector": {
                "labelSelector": {"matchExpressions": _as_expressions(on_labels)},
                "claimSelector": {"matchExpressions": _as_expressions(on_claims)},
                **({"celSelector": {"celExpressions": [CEL]}} if cel else {}),
            }
        },
        placement_selectors,
        placement_selectors,
        st.booleans(),
    ),
    min_size=1,
    max_size=3,
)


def _snapshot(
    members: list[tuple[dict[str, str], dict[str, str]]], spec: list[dict[str, Any]] | None
) -> tuple[Snapshot, Placement]:
    clusters = [cluster(f"c{i:02d}", labels=lab, claims=cl) for i, (lab, cl) in enumerate(members)]
    fleet = Fleet.of(world(*clusters, predicates=spec))
    return Snapshot(fleet), next(iter(fleet.placements.values()))


def _replace(snapshot: Snapshot, change: Change) -> None:
    index, new_labels, new_claims, deleting = change
    name = snapshot.names[index % len(snapshot.names)]
    snapshot.replace_cluster(cluster(name, labels=new_labels, claims=new_claims, deleting=deleting))


@settings(max_examples=150)
@given(fleets, selectors, selectors, replacements)
def test_columns_agree_with_matches(
    members: list[tuple[dict[str, str], dict[str, str]]],
    on_labels: Selector,
    on_claims: Selector,
    changes: list[Change],
) -> None:
    snapshot, _ = _snapshot(members, None)
    columns = snapshot.index_of(LabelColumns)
    everyone = np.arange(len(members))

    def check() -> None:
        listing = snapshot.cluster_list
        got = columns.select("labels", on_labels, everyone).tolist()
        assert got == [on_labels.matches(c.labels) for c in listing]
        got = columns.select("claims", on_claims, everyone).tolist()
        assert got == [on_claims.matches(c.claims) for c in listing]
        assert [claim_value(c, "b") for c in listing] == [c.claims.get("b") for c in listing]
        assert columns.deleting().tolist() == [c.terminating for c in listing]

    check()
    for change in changes:
        _replace(snapshot, change)
        check()


@settings(max_examples=150)
@given(fleets, predicates, replacements)
def test_predicate_filter_by_columns_agrees_with_the_cluster_loop(
    members: list[tuple[dict[str, str], dict[str, str]]],
    spec: list[dict[str, Any]],
    changes: list[Change],
) -> None:
    snapshot, placement = _snapshot(members, spec)
    ctx = Context(placement, snapshot, NOW)
    compiled = _compile_all(ctx)
    candidates = find_candidates(snapshot, placement)

    def check() -> None:
        positions = candidates.positions
        by_columns = _keep_by_columns(ctx, compiled, positions)
        assert by_columns.tolist() == _keep_each(ctx, compiled, positions).tolist()
        filtered = PredicateFilter().filter_positions(ctx, positions).positions
        assert filtered.tolist() == positions[by_columns].tolist()

    check()
    for change in changes:
        _replace(snapshot, change)
        candidates = find_candidates(snapshot, placement)
        check()
