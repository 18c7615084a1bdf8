"""Every String() form of defkit-placement.md section 2."""

from __future__ import annotations

import pytest

from clusterplace.defkit.placement import (
    All,
    Any,
    ClusterCondition,
    Eq,
    Exists,
    In,
    Label,
    LabelCondition,
    Ne,
    Not,
    NotExists,
    NotIn,
)

K = Label("k")
A1, B2 = Label("a").eq("1"), Label("b").eq("2")

STRING_CASES = [
    # Eq / Ne: only Values[0] is shown; no values is <empty>; an empty string is a value.
    (K.eq("v"), "k = v"),
    (LabelCondition("k", Eq, []), "k = <empty>"),
    (K.eq(""), "k = "),
    (LabelCondition("k", Eq, ["a", "b"]), "k = a"),
    (K.ne("v"), "k != v"),
    (LabelCondition("k", Ne, []), "k != <empty>"),
    (K.ne(""), "k != "),
    (LabelCondition("k", Ne, ["a", "b"]), "k != a"),
    # In / NotIn: values joined with ", ".
    (K.in_("a", "b"), "k in (a, b)"),
    (K.in_("a"), "k in (a)"),
    (K.in_(), "k in ()"),
    (LabelCondition("k", In, []), "k in ()"),
    (K.in_("a", ""), "k in (a, )"),
    (K.not_in("a", "b"), "k not in (a, b)"),
    (K.not_in("a"), "k not in (a)"),
    (K.not_in(), "k not in ()"),
    (LabelCondition("k", NotIn, []), "k not in ()"),
    # Exists / NotExists ignore values.
    (K.exists(), "k exists"),
    (LabelCondition("k", Exists, ["ignored"]), "k exists"),
    (K.not_exists(), "k not exists"),
    (LabelCondition("k", NotExists, ["ignored"]), "k not exists"),
    # Unknown operators: Go's "%s %s %v" (a []string prints as [a b]).
    (LabelCondition("env", "Equals", ["prod"]), "env Equals [prod]"),
    (LabelCondition("env", "Equals", ["a", "b"]), "env Equals [a b]"),
    (LabelCondition("env", "Equals", []), "env Equals []"),
    (LabelCondition("env", "eq", ["prod"]), "env eq [prod]"),
    (LabelCondition("env", "", ["prod"]), "env  [prod]"),
    # Combinators
    (All(), "all()"),
    (All(A1), "all(a = 1)"),
    (All(A1, B2), "all(a = 1 AND b = 2)"),
    (Any(), "any()"),
    (Any(A1), "any(a = 1)"),
    (Any(A1, B2), "any(a = 1 OR b = 2)"),
    (Not(None), "not(<nil>)"),
    (Not(A1), "not(a = 1)"),
    # Nesting
    (All(All(), Any()), "all(all() AND any())"),
    (Any(Not(None), Not(All())), "any(not(<nil>) OR not(all()))"),
    (Not(Not(A1)), "not(not(a = 1))"),
    (
        Not(All(Any(A1, Label("b").exists()), Not(K.not_in("x", "y")))),
        "not(all(any(a = 1 OR b exists) AND not(k not in (x, y))))",
    ),
    (
        Any(All(A1, B2), All(K.in_("x"), LabelCondition("env", "Equals", ["p", "q"]))),
        "any(all(a = 1 AND b = 2) OR all(k in (x) AND env Equals [p q]))",
    ),
]


@pytest.mark.parametrize(("condition", "text"), STRING_CASES, ids=[t for _, t in STRING_CASES])
def test_string_form(condition: ClusterCondition, text: str) -> None:
    assert str(condition) == text


# The builders always create exactly the values upstream's builders do.
BUILDER_CASES = [
    (K.eq("v"), "Eq", ("v",)),
    (K.ne("v"), "Ne", ("v",)),
    (K.in_("a", "b"), "In", ("a", "b")),
    (K.in_(), "In", ()),
    (K.not_in("a", "b"), "NotIn", ("a", "b")),
    (K.exists(), "Exists", ()),
    (K.not_exists(), "NotExists", ()),
]


@pytest.mark.parametrize(
    ("condition", "operator", "values"), BUILDER_CASES, ids=[str(c) for c, _, _ in BUILDER_CASES]
)
def test_builder(condition: LabelCondition, operator: str, values: tuple[str, ...]) -> None:
    assert (condition.key, condition.operator, tuple(condition.values)) == ("k", operator, values)
