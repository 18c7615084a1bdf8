"""Exact error messages, pinned where they follow upstream apimachinery's text.

Parser messages are the ``fmt.Errorf`` strings of ``labels.Parser`` (selector.go);
requirement messages are ``field.Error`` renderings from ``NewRequirement``; the
operator message is ``LabelSelectorAsSelector``'s ``%q is not a valid label selector operator``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from clusterplace import labels
from clusterplace.labels import SelectorError

BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"

# (text, message, position of the failing token)
PARSE_ERRORS = [
    ("x,,y", "found ',', expected: identifier after ','", 2),
    ("a in (xyz),", "found '', expected: identifier after ','", 11),
    (",x,y", "found ',', expected: !, identifier, or 'end of string'", 0),
    ("(", "found '(', expected: !, identifier, or 'end of string'", 0),
    ("x==a==b", "found '==', expected: ',' or 'end of string'", 4),
    ("!x=a", "found '=', expected: ',' or 'end of string'", 2),
    ("x=a b", "found 'b', expected: ',' or 'end of string'", 4),
    ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'", 10),
    (
        "x nott in (y)",
        f"unable to parse requirement: found 'nott', expected: {BINARY_OPERATORS}",
        2,
    ),
    ("a (", f"unable to parse requirement: found '(', expected: {BINARY_OPERATORS}", 2),
    ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'", 10),
    ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier", 8),
    ("a in x", "unable to parse requirement: found 'x' expected: '('", 5),
    ("x=(", "unable to parse requirement: found '(', expected: identifier", 2),
]


@pytest.mark.parametrize(("text", "message", "position"), PARSE_ERRORS)
def test_parse_error_message_and_position(text: str, message: str, position: int) -> None:
    with pytest.raises(SelectorError) as info:
        labels.parse(text)
    err = info.value
    assert err.message == message
    assert str(err) == message
    assert err.text == text
    assert err.position == position


UNSUPPORTED_OPERATOR = (
    'operator: Unsupported value: "unsupportedOp": supported values: '
    '"in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"'
)

# (key, operator, values, message)
REQUIREMENT_ERRORS = [
    ("x", "unsupportedOp", [], UNSUPPORTED_OPERATOR),
    (
        "x14",
        "gt",
        ["bar"],
        "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    (
        "x15",
        "lt",
        ["1.5"],
        "values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
]


@pytest.mark.parametrize(("key", "operator", "values", "message"), REQUIREMENT_ERRORS)
def test_requirement_error_message(
    key: str, operator: str, values: list[str], message: str
) -> None:
    with pytest.raises(SelectorError) as info:
        labels.Requirement(key, operator, values)
    assert info.value.message == message
    assert str(info.value) == message
    # Not from the string parser: no text, no position.
    assert info.value.text is None
    assert info.value.position is None


LABEL_SELECTOR_OPERATOR_ERRORS = [
    ("Gt", '"Gt" is not a valid label selector operator'),
    ("Lt", '"Lt" is not a valid label selector operator'),
    ("in", '"in" is not a valid label selector operator'),  # case matters
    ("", '"" is not a valid label selector operator'),
]


@pytest.mark.parametrize(("operator", "message"), LABEL_SELECTOR_OPERATOR_ERRORS)
def test_label_selector_operator_error(operator: str, message: str) -> None:
    selector = {"matchExpressions": [{"key": "n", "operator": operator, "values": ["1"]}]}
    with pytest.raises(SelectorError) as info:
        labels.from_label_selector(selector)
    assert info.value.message == message


@pytest.mark.parametrize(
    "raise_it",
    [
        lambda: labels.parse("x,,y"),
        lambda: labels.Requirement("x", "unsupportedOp", []),
        lambda: labels.from_label_selector({"matchExpressions": [{"key": "n", "operator": "Gt"}]}),
    ],
    ids=["parse", "requirement", "from_label_selector"],
)
def test_selector_error_is_a_value_error(raise_it: Callable[[], object]) -> None:
    with pytest.raises(ValueError) as info:
        raise_it()
    assert isinstance(info.value, SelectorError)


def test_pointer_marks_the_failing_token() -> None:
    with pytest.raises(SelectorError) as info:
        labels.parse("x nott in (y)")
    assert info.value.pointer() == "  x nott in (y)\n    ^"


def test_pointer_is_empty_without_a_position() -> None:
    with pytest.raises(SelectorError) as info:
        labels.Requirement("x", "unsupportedOp", [])
    assert info.value.pointer() == ""


@pytest.mark.parametrize(
    ("text", "position"),
    [("x=a||y=b", 2), ("x<a", 2), ("x>-1", 2), ("env in (ok,b@d)", 7)],
)
def test_invalid_value_points_at_the_values(text, position):
    with pytest.raises(labels.SelectorError) as info:
        labels.parse(text)
    assert info.value.position == position
