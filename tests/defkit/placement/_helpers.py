"""Shared pieces of the defkit placement tests: reference semantics and strategies.

The reference evaluator is written from the operator table of defkit-placement.md
section 1, not from the code under test.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from hypothesis import strategies as st

from clusterplace.defkit.placement import (
    OPERATORS,
    All,
    AllCondition,
    Any,
    AnyCondition,
    ClusterCondition,
    LabelCondition,
    Not,
    NotCondition,
    PlacementConstraints,
)

KEYS = ("a", "b", "c")
VALUES = ("x", "y", "")
FRESH = "zz"  # a value no generated condition mentions


def cluster(**labels: str) -> dict[str, str]:
    """Labels from keyword arguments, ``_`` standing for ``-`` (``cluster_type=``)."""
    return {key.replace("_", "-"): value for key, value in labels.items()}


def reference_eval(condition: ClusterCondition | None, labels: Mapping[str, str] | None) -> bool:
    """Section 1: operator table, combinators, nil labels as empty."""
    labels = labels or {}
    if isinstance(condition, LabelCondition):
        present = condition.key in labels
        value, values = labels.get(condition.key), condition.values
        checks = {
            "Eq": lambda: bool(values) and present and value == values[0],
            "Ne": lambda: bool(values) and (not present or value != values[0]),
            "In": lambda: bool(values) and present and value in values,
            "NotIn": lambda: bool(values) and (not present or value not in values),
            "Exists": lambda: present,
            "NotExists": lambda: not present,
        }
        check = checks.get(condition.operator)
        return bool(check()) if check else False
    if isinstance(condition, AllCondition):
        return all(reference_eval(c, labels) for c in condition.conditions)
    if isinstance(condition, AnyCondition):
        return any(reference_eval(c, labels) for c in condition.conditions)
    if isinstance(condition, NotCondition):
        return condition.condition is None or not reference_eval(condition.condition, labels)
    raise TypeError(condition)


def leaves(condition: ClusterCondition | None) -> list[LabelCondition]:
    """Every label condition of a tree, also those under Not."""
    if isinstance(condition, LabelCondition):
        return [condition]
    if isinstance(condition, AllCondition | AnyCondition):
        return [leaf for inner in condition.conditions for leaf in leaves(inner)]
    if isinstance(condition, NotCondition):
        return leaves(condition.condition)
    return []


def all_label_sets(spec: PlacementConstraints) -> list[dict[str, str]]:
    """Every label set over the keys ``spec`` mentions: each key absent, one of the values
    the spec mentions, or a value it does not mention."""
    mentioned = [leaf for c in (*spec.run_on, *spec.not_run_on) for leaf in leaves(c)]
    keys = sorted({leaf.key for leaf in mentioned})
    values = {v for leaf in mentioned for v in leaf.values}
    fresh = FRESH
    while fresh in values:
        fresh += "z"
    choices = (None, *sorted(values), fresh)
    return [
        {k: v for k, v in zip(keys, combo, strict=True) if v is not None}
        for combo in itertools.product(choices, repeat=len(keys))
    ]


# --- Strategies --------------------------------------------------------------------------

keys = st.sampled_from(KEYS)
values = st.sampled_from(VALUES)

built_labels = st.one_of(
    st.builds(lambda k, v: LabelCondition(k, "Eq", [v]), keys, values),
    st.builds(lambda k, v: LabelCondition(k, "Ne", [v]), keys, values),
    st.builds(lambda k, vs: LabelCondition(k, "In", vs), keys, st.lists(values, max_size=3)),
    st.builds(lambda k, vs: LabelCondition(k, "NotIn", vs), keys, st.lists(values, max_size=3)),
    st.builds(lambda k: LabelCondition(k, "Exists"), keys),
    st.builds(lambda k: LabelCondition(k, "NotExists"), keys),
)
# Raw conditions: any operator (including invalid ones) with 0-3 values.
raw_labels = st.builds(
    LabelCondition,
    keys,
    st.sampled_from((*OPERATORS, "Equals", "")),
    st.lists(values, max_size=3),
)
label_conditions = st.one_of(built_labels, built_labels, raw_labels)


def conditions(depth: int = 3) -> st.SearchStrategy[ClusterCondition]:
    """Label/All/Any/Not trees of at most ``depth`` levels (a label is one level)."""
    if depth <= 1:
        return label_conditions
    inner = conditions(depth - 1)
    children = st.lists(inner, max_size=3)
    return st.one_of(
        label_conditions,
        children.map(lambda cs: All(*cs)),
        children.map(lambda cs: Any(*cs)),
        inner.map(Not),
        st.just(Not(None)),
    )


specs = st.builds(
    PlacementConstraints,
    st.lists(conditions(), max_size=3),
    st.lists(conditions(), max_size=3),
)
label_maps = st.one_of(
    st.none(),
    st.dictionaries(keys, st.sampled_from((*VALUES, FRESH)), max_size=len(KEYS)),
)
