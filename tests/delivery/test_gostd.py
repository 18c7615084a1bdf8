"""Go's parsers and sort as the rollout needs them; every expected value here is what Go
itself returned for the same text."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.delivery.gostd import (
    GoSyntaxError,
    atoi,
    parse_float,
    parse_rfc3339,
    sort_slice,
)
from clusterplace.durations import DurationError
from clusterplace.durations import parse_duration_ns as parse_duration

DURATIONS = [
    ("1h30m", 5_400_000_000_000),
    ("1.5h", 5_400_000_000_000),
    ("-1.5h", -5_400_000_000_000),
    (".5s", 500_000_000),
    ("1µs", 1_000),
    ("1μs", 1_000),
    ("2562047h47m16s854775807ns", 2**63 - 1),
    ("-2562047h47m16s854775808ns", -(2**63)),
    ("0", 0),
    ("-0", 0),
    ("1.0000000001s", 1_000_000_000),  # the fraction goes through float64, truncated
    ("0.3333333333333333333h", 1_200_000_000_000),
]
BAD_DURATIONS = [
    ("2562047h47m16s854775808ns", 'time: invalid duration "2562047h47m16s854775808ns"'),
    ("", 'time: invalid duration ""'),
    ("1", 'time: missing unit in duration "1"'),
    ("1x", 'time: unknown unit "x" in duration "1x"'),
    ("1|", 'time: unknown unit "|" in duration "1|"'),
    ("5m\n", 'time: unknown unit "m\\x0a" in duration "5m\\x0a"'),
]


@pytest.mark.parametrize(("text", "ns"), DURATIONS)
def test_parse_duration(text: str, ns: int) -> None:
    assert parse_duration(text) == ns


@pytest.mark.parametrize(("text", "message"), BAD_DURATIONS)
def test_parse_duration_errors(text: str, message: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_duration(text)
    assert str(caught.value) == message


def bits(value: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


FLOATS = [
    ("50", 4632233691727265792),
    ("1_000.5", 4652011706887700480),
    ("0x1.8p3", 4622945017495814144),
    ("inf", 9218868437227405312),
    ("+Inf", 9218868437227405312),
    ("infinity", 9218868437227405312),
    (".5", 4602678819172646912),
    ("5.", 4617315517961601024),
    ("33.3", 4629883375671731814),
    ("4.9e-324", 1),
    ("1e-400", 0),
]
BAD_FLOATS = [
    ("1__0", "invalid syntax"),
    ("0x10", "invalid syntax"),  # a hexadecimal mantissa needs a p exponent
    ("1e400", "value out of range"),
    ("-1e400", "value out of range"),
    ("infin", "invalid syntax"),
    ("+nan", "invalid syntax"),
    ("1e", "invalid syntax"),
    ("0b11", "invalid syntax"),
    (" 5", "invalid syntax"),
]


@pytest.mark.parametrize(("text", "expected"), FLOATS)
def test_parse_float(text: str, expected: int) -> None:
    assert bits(parse_float(text)) == expected


def test_parse_float_nan() -> None:
    assert math.isnan(parse_float("nan")) and math.isnan(parse_float("NaN"))


@pytest.mark.parametrize(("text", "problem"), BAD_FLOATS)
def test_parse_float_errors(text: str, problem: str) -> None:
    with pytest.raises(GoSyntaxError) as caught:
        parse_float(text)
    assert str(caught.value) == f'strconv.ParseFloat: parsing "{text}": {problem}'


TIMES = [
    ("2022-01-01T00:00:00Z", 1640995200, 0),
    ("2022-01-01T00:00:00.123456789123Z", 1640995200, 123456789),
    ("2022-01-01T00:00:00,5+01:00", 1640991600, 500000000),
    ("2022-01-01T7:00:00Z", 1641020400, 0),
    ("2024-02-29T23:59:59-24:00", 1709337599, 0),
    ("0000-12-31T23:00:00-05:00", -62135582400, 0),  # year 0 locally, year 1 in UTC
]
BAD_TIMES = [
    "2022-02-29T00:00:00Z",
    "2022-01-01t00:00:00Z",
    "2022-01-01T00:00:00z",
    "2022-01-01T00:00:60Z",
    "2022-01-01T00:00:00+25:00",
    "2022-01-01 00:00:00Z",
    "0001-01-01T00:00:00+05:00",  # Go reads it, but the instant is before year 1
]


@pytest.mark.parametrize(("text", "seconds", "nanos"), TIMES)
def test_parse_rfc3339(text: str, seconds: int, nanos: int) -> None:
    assert parse_rfc3339(text) == seconds * 10**9 + nanos


@pytest.mark.parametrize("text", BAD_TIMES)
def test_parse_rfc3339_errors(text: str) -> None:
    with pytest.raises(GoSyntaxError):
        parse_rfc3339(text)


def test_atoi() -> None:
    assert [atoi(t) for t in ("7", "+7", "-7", "007")] == [7, 7, -7, 7]
    for text in ("", "1_0", " 1", "0x1", str(2**63)):
        with pytest.raises(GoSyntaxError):
            atoi(text)


def test_sort_slice_orders_equal_names_as_go() -> None:
    names = ["c2", "c1", "c2", "c1", "c2", "c2", "c2", "c2", "c0", "c1", "c0", "c2", "c0"]
    order = list(range(len(names)))
    sort_slice(order, lambda a, b: names[a] < names[b])
    assert order == [8, 12, 10, 9, 3, 1, 4, 5, 6, 7, 0, 2, 11]  # Go's sort.Slice


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=300))
def test_sort_slice_sorts(names: list[str]) -> None:
    order = list(range(len(names)))
    sort_slice(order, lambda a, b: names[a] < names[b])
    assert sorted(order) == list(range(len(names)))
    assert [names[i] for i in order] == sorted(names)
    if len(names) <= 12 or len(set(names)) == len(names):
        assert order == sorted(range(len(names)), key=lambda i: names[i])
