"""Upstream test vectors for label selectors.

Transcribed from docs spec ``selectors-and-python-ecosystem.md`` section 1 ("Test vectors"),
which in turn comes from apimachinery's ``selector_test.go``, ``helpers_test.go`` and
``content/kube_test.go``. Entries the spec marks D (derived from the code) are included and
commented as such.
"""

from __future__ import annotations

import pytest

from clusterplace import labels
from clusterplace.labels import Operator, Selector, SelectorError

# --- Parse: input -> canonical String() ------------------------------------------------------

PARSE_OK = [
    ("x=a,y=b,z=c", "x=a,y=b,z=c"),
    ("", ""),
    ("x!=a,y=b", "x!=a,y=b"),
    ("x=", "x="),
    ("x= ", "x="),
    ("x=,z= ", "x=,z="),
    ("!x", "!x"),
    ("x>1", "x>1"),
    ("x>1,z<5", "x>1,z<5"),
    ("\rx", "x"),
    ("a ", "a"),
    ("x=a,a=x", "a=x,x=a"),
    ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
    (
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
    ),
    ("foo  in\t (abc)", "foo in (abc)"),
    ("x notin\n (abc)", "x notin (abc)"),
    ("x in (abc,abc)", "x in (abc)"),
    ("x in (abc,)", "x in (,abc)"),
    ("x in ()", "x in ()"),
    ("x in (a,,a,,a,,a,,)", "x in (,a)"),
    ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
    ("x notin ( )", "x notin ()"),
    ("x notin (, a)", "x notin (,a)"),
    ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
    ("notin=in", "notin=in"),
]


@pytest.mark.parametrize(("text", "canonical"), PARSE_OK)
def test_parse_ok(text: str, canonical: str) -> None:
    assert str(labels.parse(text)) == canonical


PARSE_ERR = [
    "x=a||y=b",
    "x==a==b",
    "!x=a",
    "x<a",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",
    "a notin(",
    "a (",
    "(",
    # D: derived from the code.
    "x>-1",  # -1 parses as an integer but is not a valid label value
    "x>1.5",
    "x>99999999999999999999",  # overflows int64
    "x=a b",
    "Example.com/k=v",  # uppercase prefix
    "a/b/c",
]


@pytest.mark.parametrize("text", PARSE_ERR)
def test_parse_err(text: str) -> None:
    with pytest.raises(SelectorError):
        labels.parse(text)


# --- Matching ----------------------------------------------------------------------------------

FOO_BAZ = {"foo": "bar", "baz": "blah"}

MATCH = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("foo=bar", FOO_BAZ, True),
    ("baz=blah", FOO_BAZ, True),
    ("foo=bar,baz=blah", FOO_BAZ, True),
    ("foo=blah", FOO_BAZ, False),
    ("baz=bar", FOO_BAZ, False),
    ("foo=bar,foobar=bar,baz=blah", FOO_BAZ, False),
    ("x in (foo),y notin (alpha)", {"x": "foo", "y": "baz"}, True),
    ("x in (foo),y in (alpha)", {"x": "foo", "y": "baz"}, False),
    ("x notin (),y", {"y": ""}, True),
    ("!x,y", {"y": ""}, True),
    ("x notin (),!y", {"y": ""}, False),
    ("x in ()", {"y": "baz"}, False),
    ("z>1", {"z": "2"}, True),
    ("z>1", {"z": "v2"}, False),
    # D: derived from the code.
    ("x!=a", {}, True),
    ("x notin (a)", {}, True),
    ("x>1", {}, False),
    ("x<5", {}, False),
    ("x in ()", {"x": ""}, True),
    ("x=", {"x": ""}, True),
    ("x=", {}, False),
    ("x>1", {"x": "01"}, False),
    ("x>1", {"x": "+2"}, True),
    ("x<1", {"x": "-5"}, True),
    ("x>1", {"x": " 2"}, False),
    ("x>1", {"x": "1_0"}, False),
    ("x>1", {"x": "99999999999999999999"}, False),
]


@pytest.mark.parametrize(("text", "label_set", "expected"), MATCH)
def test_matches(text: str, label_set: dict[str, str], expected: bool) -> None:
    assert labels.parse(text).matches(label_set) is expected


# --- NewRequirement ----------------------------------------------------------------------------

OK, ERR = True, False

NEW_REQUIREMENT = [
    ("x1", Operator.IN, [], ERR),
    ("x2", Operator.NOT_IN, [], ERR),
    ("x3", Operator.IN, ["foo"], OK),
    ("x4", Operator.NOT_IN, ["foo"], OK),
    ("x5", Operator.EQUALS, ["bar", "foo"], ERR),
    ("x6", Operator.EXISTS, [], OK),
    ("x7", Operator.DOES_NOT_EXIST, [], OK),
    ("x8", Operator.EXISTS, ["foo"], ERR),
    ("x11", Operator.GREATER_THAN, ["1"], OK),
    ("x12", Operator.LESS_THAN, ["6"], OK),
    ("x13", Operator.GREATER_THAN, [], ERR),
    ("x14", Operator.GREATER_THAN, ["bar"], ERR),
    ("x15", Operator.LESS_THAN, ["bar"], ERR),
    ("a" * 254, Operator.EXISTS, [], ERR),  # key too long
    ("x16", Operator.EQUALS, ["a" * 254], ERR),  # value too long
    ("x17", Operator.EQUALS, ["a b"], ERR),
    ("x18", "unsupportedOp", [], ERR),  # NotSupported
    # D: derived from the code.
    ("x", Operator.IN, [""], OK),
    ("x", Operator.GREATER_THAN, ["1", "2"], ERR),
]


@pytest.mark.parametrize(("key", "operator", "values", "ok"), NEW_REQUIREMENT)
def test_new_requirement(key: str, operator: Operator | str, values: list[str], ok: bool) -> None:
    if ok:
        requirement = labels.Requirement(key, operator, values)
        assert requirement.key == key
        assert requirement.operator == operator
        assert requirement.values == tuple(values)
    else:
        with pytest.raises(SelectorError):
            labels.Requirement(key, operator, values)


RAW_OPERATORS = [
    ("in", Operator.IN),
    ("notin", Operator.NOT_IN),
    ("=", Operator.EQUALS),
    ("==", Operator.DOUBLE_EQUALS),
    ("!=", Operator.NOT_EQUALS),
    ("exists", Operator.EXISTS),
    ("!", Operator.DOES_NOT_EXIST),
    ("gt", Operator.GREATER_THAN),
    ("lt", Operator.LESS_THAN),
]


@pytest.mark.parametrize(("raw", "operator"), RAW_OPERATORS)
def test_requirement_accepts_raw_operator_strings(raw: str, operator: Operator) -> None:
    values = {
        Operator.EXISTS: [],
        Operator.DOES_NOT_EXIST: [],
        Operator.GREATER_THAN: ["1"],
        Operator.LESS_THAN: ["1"],
    }.get(operator, ["a"])
    assert labels.Requirement("k", raw, values) == labels.Requirement("k", operator, values)


# --- LabelSelectorAsSelector -------------------------------------------------------------------

NOTHING = object()  # sentinel: the result must be Selector.nothing()

BAZ_IN = {"key": "baz", "operator": "In", "values": ["qux", "norf"]}

LABEL_SELECTOR_OK = [
    (None, NOTHING, False),
    ({}, "", True),
    ({"matchLabels": {"foo": "bar"}}, "foo=bar", False),
    ({"matchExpressions": [BAZ_IN]}, "baz in (norf,qux)", False),
    (
        {"matchLabels": {"foo": "bar"}, "matchExpressions": [BAZ_IN]},
        "baz in (norf,qux),foo=bar",
        False,
    ),
    # D: derived from the code.
    ({"matchExpressions": [{"key": "z", "operator": "DoesNotExist"}]}, "!z", True),
]


@pytest.mark.parametrize(("selector", "expected", "matches_empty"), LABEL_SELECTOR_OK)
def test_label_selector_as_selector(
    selector: dict[str, object] | None, expected: object, matches_empty: bool
) -> None:
    result = labels.from_label_selector(selector)
    if expected is NOTHING:
        assert result == Selector.nothing()
        assert result.is_nothing
    else:
        assert not result.is_nothing
        assert str(result) == expected
    assert result.matches({}) is matches_empty


LABEL_SELECTOR_ERR = [
    {"matchExpressions": [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}]},
    # D: Gt/Lt are string-syntax only, never part of metav1.LabelSelector.
    {"matchExpressions": [{"key": "n", "operator": "Gt", "values": ["1"]}]},
]


@pytest.mark.parametrize("selector", LABEL_SELECTOR_ERR)
def test_label_selector_as_selector_err(selector: dict[str, object]) -> None:
    with pytest.raises(SelectorError):
        labels.from_label_selector(selector)


def test_empty_label_selector_is_everything() -> None:
    assert labels.from_label_selector({}) == Selector.everything()
    assert labels.parse("") == Selector.everything()


# --- Keys and values ---------------------------------------------------------------------------

KEY_OK = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now.with.dots/simple",
    "1-num.2-num/3-num",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    "a" * 253 + "/" + "b" * 63,
]

KEY_BAD = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a" * 64,
    "a" * 254 + "/abc",
    "",
]

VALUE_OK = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "end-with-num-1",
    "1234",
    "a" * 63,
    "",
]

VALUE_BAD = [
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
    "a" * 64,
]


@pytest.mark.parametrize("key", KEY_OK)
def test_key_ok(key: str) -> None:
    assert labels.is_label_key(key)


@pytest.mark.parametrize("key", KEY_BAD)
def test_key_bad(key: str) -> None:
    assert not labels.is_label_key(key)


@pytest.mark.parametrize("value", VALUE_OK)
def test_value_ok(value: str) -> None:
    assert labels.is_label_value(value)


@pytest.mark.parametrize("value", VALUE_BAD)
def test_value_bad(value: str) -> None:
    assert not labels.is_label_value(value)
