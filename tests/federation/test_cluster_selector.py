"""The Federation ClusterSelector annotation (docs/semantics.md, "Federation ClusterSelector")."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.federation import (
    ANNOTATION,
    OPERATOR_ALIASES,
    parse_cluster_selector,
    send_to_cluster,
)
from clusterplace.labels import Selector, SelectorError
from tests.support.builders import annotate, req

EUROPE_PROD = {"location": "europe", "environment": "prod", "version": "15"}
EUROPE_TEST = {"location": "europe", "environment": "test"}


def send(labels: dict[str, str], *requirements: dict[str, Any]) -> bool:
    return send_to_cluster(labels, annotate(*requirements))


def selector_error(value: str) -> SelectorError:
    with pytest.raises(SelectorError) as info:
        parse_cluster_selector(value)
    return info.value


# --- upstream clusterselector_test.go ------------------------------------------------------

UPSTREAM = [
    (EUROPE_PROD, [req("location", "in", "europe")], True),
    (EUROPE_PROD, [req("location", "in", "europe"), req("environment", "==", "prod")], True),
    (EUROPE_PROD, [req("location", "in", "europe"), req("environment", "==", "test")], False),
    (EUROPE_PROD, [req("location", "!=", "usa"), req("environment", "in", "prod")], True),
    (EUROPE_PROD, [req("version", ">", "14")], True),
    (EUROPE_PROD, [req("version", ">", "15")], False),
    (EUROPE_TEST, [req("location", "!=", "usa"), req("environment", "==", "test")], True),
    (EUROPE_TEST, [req("location", "in", "europe"), req("environment", "==", "prod")], False),
]


@pytest.mark.parametrize(("labels", "requirements", "expected"), UPSTREAM)
def test_upstream_cases(labels: dict[str, str], requirements: list[Any], expected: bool) -> None:
    assert send(labels, *requirements) is expected


def test_upstream_unparsable_annotation_is_an_error() -> None:
    with pytest.raises(SelectorError, match="invalid JSON"):
        send_to_cluster(EUROPE_PROD, {ANNOTATION: '[{"not able to parse",}]'})


# --- no requirement ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "annotations",
    [None, {}, {"other": "x"}, {ANNOTATION: "[]"}, {ANNOTATION: "null"}, {ANNOTATION: " [ ] "}],
    ids=["none", "empty", "other-annotation", "empty-list", "null", "spaced-list"],
)
@pytest.mark.parametrize("labels", [{}, EUROPE_PROD], ids=["no-labels", "labels"])
def test_no_requirements_selects_every_cluster(
    labels: dict[str, str], annotations: dict[str, str] | None
) -> None:
    assert send_to_cluster(labels, annotations) is True


@pytest.mark.parametrize("value", ["[]", "null"])
def test_empty_annotation_parses_to_the_empty_selector(value: str) -> None:
    selector = parse_cluster_selector(value)
    assert isinstance(selector, Selector)
    assert selector.is_empty()


# --- operator aliases ----------------------------------------------------------------------

LabelSets = list[dict[str, str]]
# (aliases, values, label sets that match, label sets that do not)
OPERATOR_CASES: list[tuple[tuple[str, ...], tuple[str, ...], LabelSets, LabelSets]] = [
    (("In", "in"), ("a", "b"), [{"k": "a"}, {"k": "b"}], [{"k": "c"}, {}]),
    (("=", "=="), ("a",), [{"k": "a"}], [{"k": "b"}, {}]),
    (("NotIn", "notin"), ("a", "b"), [{"k": "c"}, {}], [{"k": "a"}, {"k": "b"}]),
    (("!=",), ("a",), [{"k": "b"}, {}], [{"k": "a"}]),
    (("Exists", "exists"), (), [{"k": ""}, {"k": "x"}], [{}, {"other": "k"}]),
    (("DoesNotExist", "!"), (), [{}, {"other": "k"}], [{"k": ""}]),
    (("Gt", "gt", ">"), ("5",), [{"k": "6"}, {"k": "+10"}], [{"k": "5"}, {"k": "x"}, {}]),
    (("Lt", "lt", "<"), ("5",), [{"k": "4"}, {"k": "-10"}], [{"k": "5"}, {"k": "4.5"}, {}]),
]
ALIASES = {alias: case[1:] for case in OPERATOR_CASES for alias in case[0]}


def test_alias_table_is_exactly_upstreams() -> None:
    assert set(OPERATOR_ALIASES) == set(ALIASES)


MATCH_CASES = [
    pytest.param(alias, values, labels, expected, id=f"{alias}-{labels}-{expected}")
    for alias, (values, good, bad) in ALIASES.items()
    for expected, label_sets in ((True, good), (False, bad))
    for labels in label_sets
]


@pytest.mark.parametrize(("alias", "values", "labels", "expected"), MATCH_CASES)
def test_operator_alias_matching(
    alias: str, values: tuple[str, ...], labels: dict[str, str], expected: bool
) -> None:
    assert send(labels, req("k", alias, *values)) is expected


def test_field_names_match_case_insensitively_like_encoding_json() -> None:
    value = json.dumps([{"Key": "version", "OPERATOR": "Gt", "Values": ["14"], "extra": 1}])
    assert send_to_cluster(EUROPE_PROD, {ANNOTATION: value}) is True


# --- errors --------------------------------------------------------------------------------

ERRORS = [
    ("not json", ["invalid JSON"]),
    ("[", ["invalid JSON"]),
    ('{"key": "a"}', ["must be a JSON array"]),
    ('"in"', ["must be a JSON array"]),
    ("[1]", ["requirement [0]", "must be an object"]),
    (json.dumps([req("a", "Equals", "x")]), ["requirement [0]", "'Equals' is not recognized"]),
    (
        json.dumps([req("a", "in", "x"), req("b", "IN", "y")]),
        ["requirement [1]", "'IN' is not recognized", "valid operators: In, in"],
    ),
    (json.dumps([req("a", "", "x")]), ["requirement [0]", "operator '' is not recognized"]),
    (json.dumps([req("a b", "in", "x")]), ["requirement [0]", 'Invalid value: "a b"']),
    (json.dumps([req("", "exists")]), ["requirement [0]", "key"]),
    (json.dumps([req("a", "in", "x y")]), ["requirement [0]", 'Invalid value: "x y"']),
    (json.dumps([req("a", "in", "x" * 64)]), ["requirement [0]", "63"]),
    (json.dumps([req("a", "Gt", "x")]), ["requirement [0]", "the value must be an integer"]),
    (json.dumps([req("a", "lt", "1.5")]), ["the value must be an integer"]),
    (json.dumps([req("a", "gt", "1", "2")]), ["exactly one value is required"]),
    (json.dumps([req("a", "lt", "-1")]), ['Invalid value: "-1": a valid label must be']),
    (json.dumps([req("a", "in")]), ["values set can't be empty"]),
    (
        json.dumps([req("a", "=", "x", "y")]),
        ["exact-match compatibility requires one single value"],
    ),
    (json.dumps([req("a", "exists", "x")]), ["values set must be empty"]),
    ('[{"key": "a", "operator": "in", "values": "x"}]', ["values must be a list of strings"]),
    ('[{"key": "a", "operator": "in", "values": [1]}]', ["values must be a list of strings"]),
    ('[{"key": 1, "operator": "exists"}]', ["key must be a string"]),
    ('[{"key": "a", "operator": ["in"]}]', ["operator must be a string"]),
]


@pytest.mark.parametrize(("value", "fragments"), ERRORS)
def test_invalid_annotations(value: str, fragments: list[str]) -> None:
    err = selector_error(value)
    assert isinstance(err, ValueError)
    for fragment in fragments:
        assert fragment in str(err)


@pytest.mark.parametrize(("value", "fragments"), ERRORS[:6])
def test_invalid_annotation_sends_nowhere_by_raising(value: str, fragments: list[str]) -> None:
    with pytest.raises(SelectorError):
        send_to_cluster({}, {ANNOTATION: value})


def test_error_names_the_offending_requirement() -> None:
    bad = req("tier", "Equals", "gold")
    message = str(selector_error(json.dumps([req("a", "exists"), bad])))
    assert message.startswith("requirement [1] ")
    assert json.dumps(bad, separators=(",", ":")) in message


# --- property: agreement with a reference evaluation -----------------------------------------

KEYS = ["env", "tier", "example.com/zone"]
VALUES = ["prod", "dev", "1", "2", "10", "x.y", "007"]  # valid label values
LABEL_VALUES = [*VALUES, "-3", "+4", ""]  # cluster labels are not validated here
CATEGORY = {
    alias: category
    for category, aliases in {
        "in": ("In", "in", "=", "=="),
        "notin": ("NotIn", "notin", "!="),
        "exists": ("Exists", "exists"),
        "absent": ("DoesNotExist", "!"),
        "gt": ("Gt", "gt", ">"),
        "lt": ("Lt", "lt", "<"),
    }.items()
    for alias in aliases
}
SINGLE = {"=", "==", "!="}


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None


def reference(labels: dict[str, str], requirements: list[dict[str, Any]]) -> bool:
    """Upstream matching, written out plainly."""
    for r in requirements:
        value, values = labels.get(r["key"]), r["values"]
        category = CATEGORY[r["operator"]]
        if category in ("gt", "lt"):
            number = None if value is None else _int(value)
            bound = int(values[0])
            ok = number is not None and (number > bound if category == "gt" else number < bound)
        else:
            ok = {
                "in": value is not None and value in values,
                "notin": value is None or value not in values,
                "exists": value is not None,
                "absent": value is None,
            }[category]
        if not ok:
            return False
    return True


@st.composite
def requirements(draw: st.DrawFn) -> dict[str, Any]:
    alias = draw(st.sampled_from(sorted(CATEGORY)))
    category = CATEGORY[alias]
    if category in ("exists", "absent"):
        values: list[str] = []
    elif category in ("gt", "lt"):
        # Non-negative: upstream also validates Gt/Lt values as label values, and a
        # label value cannot start with "-" (see ERRORS).
        values = [str(draw(st.integers(0, 12)))]
    elif alias in SINGLE:
        values = [draw(st.sampled_from(VALUES))]
    else:
        values = draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=3))
    return req(draw(st.sampled_from(KEYS)), alias, *values)


@settings(max_examples=300, deadline=None)
@given(
    labels=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(LABEL_VALUES)),
    reqs=st.lists(requirements(), max_size=4),
)
def test_send_to_cluster_agrees_with_reference(
    labels: dict[str, str], reqs: list[dict[str, Any]]
) -> None:
    assert send(labels, *reqs) is reference(labels, reqs)
