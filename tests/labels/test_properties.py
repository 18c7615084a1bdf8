"""Property tests for the label-selector engine.

Strategies build only valid keys, values and requirements (by construction, from the
grammar in the spec), and the checks compare against small reference implementations
written here from the spec's operator-semantics table, not from the code under test.
"""

from __future__ import annotations

import re
import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from clusterplace import labels
from clusterplace.labels import Operator, Requirement, Selector, SelectorError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# --- Strategies --------------------------------------------------------------------------------

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits


def bracketed(ends: str, middle: str, max_middle: int) -> st.SearchStrategy[str]:
    """One char from ``ends``, or ``ends`` + up to ``max_middle`` of ``middle`` + ``ends``."""
    edge = st.sampled_from(ends)
    longer = st.tuples(edge, st.text(middle, max_size=max_middle), edge).map("".join)
    return st.one_of(edge, longer)


# Name part: at most 63 chars, ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
names = bracketed(ALNUM, ALNUM + "-_.", 16)  # the 63-char limit is covered by vectors
# Prefix: a lowercase RFC-1123 subdomain, kept well under 253 chars.
dns_labels = bracketed(LOWER_ALNUM, LOWER_ALNUM + "-", 10)
prefixes = st.lists(dns_labels, min_size=1, max_size=3).map(".".join)
label_keys = st.one_of(
    names,
    st.tuples(prefixes, names).map("/".join),
    # Small pool so that keys collide (duplicate keys, labels hitting requirements),
    # including the keywords, which are plain identifiers outside operator position.
    st.sampled_from(["a", "b", "in", "notin", "example.com/c"]),
)
label_values = st.one_of(
    names,
    st.sampled_from(["", "in", "notin", "1", "01"]),
)
# Gt/Lt bounds must be both a valid label value and a Go int64: digits only, no sign.
int_values = st.one_of(
    st.integers(0, INT64_MAX).map(str),
    st.from_regex(r"0{1,3}[0-9]{1,5}", fullmatch=True),
)


@st.composite
def requirements(draw: st.DrawFn) -> Requirement:
    key = draw(label_keys)
    op = draw(st.sampled_from(list(Operator)))
    if op in (Operator.IN, Operator.NOT_IN):
        # The parser yields a sorted, deduplicated set; build the same shape.
        values = sorted(set(draw(st.lists(label_values, min_size=1, max_size=4))))
    elif op in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS):
        values = [draw(label_values)]
    elif op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        values = [draw(int_values)]
    else:
        values = []
    return Requirement(key, op, values)


selectors = st.lists(requirements(), max_size=6).map(Selector)

# Label values on objects are arbitrary strings; bias towards the interesting ones.
INTISH = ["0", "1", "2", "01", "+2", "-5", " 2", "1_0", "٢", "99999999999999999999"]
object_values = st.one_of(st.sampled_from(INTISH), label_values, st.text(max_size=4))


def near(value: str) -> list[str]:
    """The value itself and, for an integer bound, its neighbours."""
    if not value.isascii() or not value.isdigit():
        return [value]
    n = int(value)
    return [value, str(n - 1), str(n + 1)]


@st.composite
def label_sets_for(draw: st.DrawFn, selector: Selector) -> dict[str, str]:
    """Labels that often hit the selector's keys and values (and often miss them)."""
    label_set: dict[str, str] = {}
    for key in sorted({r.key for r in selector.requirements} | {"other"}):
        hits = [n for r in selector.requirements if r.key == key for v in r.values for n in near(v)]
        choice = draw(st.one_of(st.sampled_from(hits or [""]), object_values, st.none()))
        if choice is not None:
            label_set[key] = choice
    return label_set


# --- References --------------------------------------------------------------------------------

_GO_INT = re.compile(r"[+-]?[0-9]+")


def go_parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): ASCII digits, optional sign, int64 range."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None


def reference_requirement(req: Requirement, label_set: dict[str, str]) -> bool:
    present = req.key in label_set
    value = label_set.get(req.key)
    op = req.operator
    if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
        return present and value in req.values
    if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
        return not present or value not in req.values
    if op == Operator.EXISTS:
        return present
    if op == Operator.DOES_NOT_EXIST:
        return not present
    bound = go_parse_int64(req.values[0])
    number = go_parse_int64(value) if value is not None else None
    if bound is None or number is None:
        return False
    return number > bound if op == Operator.GREATER_THAN else number < bound


def reference_selector(selector: Selector, label_set: dict[str, str]) -> bool:
    return all(reference_requirement(r, label_set) for r in selector.requirements)


# --- Properties --------------------------------------------------------------------------------


@given(selectors)
def test_parse_round_trips(selector: Selector) -> None:
    assert labels.parse(str(selector)) == selector


@given(selectors)
def test_string_form_is_canonical(selector: Selector) -> None:
    text = str(selector)
    assert str(labels.parse(text)) == text


@given(st.data())
def test_matches_agrees_with_reference(data: st.DataObject) -> None:
    selector = data.draw(selectors)
    label_set = data.draw(label_sets_for(selector))
    assert selector.matches(label_set) is reference_selector(selector, label_set)
    # The same through the string syntax.
    assert labels.parse(str(selector)).matches(label_set) is reference_selector(selector, label_set)


integer_texts = st.one_of(
    st.text(max_size=25),
    st.from_regex(r"[+-]?[0-9]{1,21}", fullmatch=True),
    st.integers(INT64_MIN - 10, INT64_MAX + 10).map(str),
    st.sampled_from([*INTISH, str(INT64_MAX), str(INT64_MIN), "-0", "+", "-", ""]),
)


@given(integer_texts)
def test_parse_go_int64_agrees_with_reference(text: str) -> None:
    assert labels.parse_go_int64(text) == go_parse_int64(text)


@given(integer_texts, st.sampled_from(["gt", "lt"]), st.integers(0, 10).map(str))
def test_numeric_matching_agrees_with_reference(text: str, op: str, bound: str) -> None:
    requirement = Requirement("x", op, [bound])
    number = go_parse_int64(text)
    if number is None:
        expected = False
    else:
        expected = number > int(bound) if op == "gt" else number < int(bound)
    assert requirement.matches({"x": text}) is expected


SELECTOR_ALPHABET = "ab0/.-_=!(),<> \t\r\nin"
selector_texts = st.one_of(
    st.text(),
    st.text(alphabet=SELECTOR_ALPHABET),
    st.lists(
        st.sampled_from(
            ["a", "in", "notin", "=", "==", "!=", "!", ",", "(", ")", ">", "<", " ", "1"]
        )
    ).map("".join),
)


@given(selector_texts)
def test_parser_only_raises_selector_error(text: str) -> None:
    try:
        selector = labels.parse(text)
    except SelectorError as err:
        assert err.text == text
        assert err.position is None or 0 <= err.position <= len(text)
        return
    # Whatever parses has a canonical form that parses to the same selector.
    assert labels.parse(str(selector)) == selector
    assert str(labels.parse(str(selector))) == str(selector)


LABEL_SELECTOR_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"]


@st.composite
def label_selector_dicts(draw: st.DrawFn) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if draw(st.booleans()):
        result["matchLabels"] = draw(st.dictionaries(label_keys, label_values, max_size=3))
    if draw(st.booleans()):
        expressions = []
        for _ in range(draw(st.integers(0, 3))):
            op = draw(st.sampled_from(LABEL_SELECTOR_OPERATORS))
            expr: dict[str, Any] = {"key": draw(label_keys), "operator": op}
            if op in ("In", "NotIn"):
                expr["values"] = draw(st.lists(label_values, min_size=1, max_size=3, unique=True))
            expressions.append(expr)
        result["matchExpressions"] = expressions
    return result


def equivalent_string(selector: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in sorted(selector.get("matchLabels", {}).items())]
    for expr in selector.get("matchExpressions", []):
        key, op = expr["key"], expr["operator"]
        if op == "In":
            parts.append(f"{key} in ({','.join(expr['values'])})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(expr['values'])})")
        elif op == "Exists":
            parts.append(key)
        else:
            parts.append(f"!{key}")
    return ",".join(parts)


@given(st.data())
def test_from_label_selector_agrees_with_string_syntax(data: st.DataObject) -> None:
    as_dict = data.draw(label_selector_dicts())
    from_dict = labels.from_label_selector(as_dict)
    from_text = labels.parse(equivalent_string(as_dict))
    assert str(from_dict) == str(from_text)
    label_set = data.draw(label_sets_for(from_text))
    assert from_dict.matches(label_set) is from_text.matches(label_set)
