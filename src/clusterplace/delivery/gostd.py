"""The pieces of Go's standard library whose exact behaviour the rollout planner inherits.

OCM's rollout code is Go, so its answers depend on how Go parses a duration
(``time.ParseDuration``: :mod:`clusterplace.durations`, which every layer shares), a
timestamp (``time.Parse`` with ``time.RFC3339``), a percentage (``strconv.ParseFloat``)
and a decision-group index label (``strconv.Atoi``), and on how ``sort.Slice`` orders
equal elements (it is not stable). Each function here reproduces one of them, written
from the Go definitions; times and durations are whole nanoseconds (Go's
``time.Duration`` and the nanosecond resolution of ``time.Time``), so no rounding creeps
in before upstream's own arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Generic, TypeVar

from clusterplace.durations import MAX_INT64
from clusterplace.durations import go_time_quote as quote
from clusterplace.errors import ClusterplaceError

__all__ = [
    "MAX_INT64",
    "MIN_INT64",
    "GoSyntaxError",
    "atoi",
    "datetime_to_ns",
    "ns_to_datetime",
    "ns_to_timedelta",
    "parse_float",
    "parse_rfc3339",
    "sort_slice",
]

MIN_INT64 = -(1 << 63)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_T = TypeVar("_T")


class GoSyntaxError(ClusterplaceError, ValueError):
    """Text Go's parser refuses; the message is Go's error text."""


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


# --- time.Parse(time.RFC3339, ...) ----------------------------------------------------

# Go tries a strict RFC 3339 reader first and falls back to its general layout parser,
# which also takes a one-digit hour, a comma before the fraction and offsets up to 24:60.
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:[.,]([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def parse_rfc3339(text: str) -> int:
    """Nanoseconds since the Unix epoch of an RFC 3339 timestamp, as Go's
    ``time.Parse(time.RFC3339, text)`` reads it (fraction digits past the ninth are
    dropped). Raises :class:`GoSyntaxError`, also for an instant outside Python's
    datetime range (years 1 to 9999), which the result could not be reported in."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise GoSyntaxError(f"parsing time {quote(text)} as RFC 3339: not a valid timestamp")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    problem = None
    if not 1 <= month <= 12:
        problem = "month"
    elif hour > 23:
        problem = "hour"
    elif minute > 59:
        problem = "minute"
    elif second > 59:
        problem = "second"
    if problem is not None:
        raise GoSyntaxError(f"parsing time {quote(text)}: {problem} out of range")
    if not 1 <= day <= _days_in(month, year):
        raise GoSyntaxError(f"parsing time {quote(text)}: day out of range")
    fraction = (match.group(7) or "")[:9].ljust(9, "0")
    zone = match.group(8)
    offset = 0
    if zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[4:6])
        if zone_hours > 24 or zone_minutes > 60:
            raise GoSyntaxError(f"parsing time {quote(text)}: time zone offset out of range")
        offset = (zone_hours * 3600 + zone_minutes * 60) * (-1 if zone[0] == "-" else 1)
    seconds = hour * 3600 + minute * 60 + second - offset
    ns = (_days_from_civil(year, month, day) * 86_400 + seconds) * 1_000_000_000 + int(fraction)
    try:
        ns_to_datetime(ns)
    except OverflowError:
        raise GoSyntaxError(
            f"parsing time {quote(text)}: outside the years 1 to 9999 a datetime can hold"
        ) from None
    return ns


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (year 0 included)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def datetime_to_ns(moment: datetime) -> int:
    """Nanoseconds since the Unix epoch of an aware datetime (exact)."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def ns_to_datetime(ns: int) -> datetime:
    """The UTC datetime of ``ns`` nanoseconds since the epoch, to the microsecond below
    (a datetime holds no nanoseconds). Raises OverflowError outside years 1 to 9999."""
    return _EPOCH + timedelta(microseconds=ns // 1_000)


def ns_to_timedelta(ns: int) -> timedelta:
    """A Go duration as a timedelta, truncated toward zero to the microsecond."""
    micros = abs(ns) // 1_000
    return timedelta(microseconds=-micros if ns < 0 else micros)


# --- strconv.ParseFloat(s, 64) and strconv.Atoi -----------------------------------------


def _lower(ch: str) -> str:
    """Go's ``lower`` in strconv: sets bit 0x20, which lowers exactly the ASCII letters."""
    return chr(ord(ch) | 0x20)


def _ascii_lower(text: str) -> str:
    return "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in text)


def _special(text: str) -> tuple[float, int] | None:
    """strconv's ``special``: a leading infinity or NaN, and how many characters it took."""
    if not text:
        return None
    rest, sign, consumed = text, 1.0, 0
    if rest[0] in "+-":
        sign = -1.0 if rest[0] == "-" else 1.0
        rest, consumed = rest[1:], 1
    elif rest[0] in "nN":
        return (float("nan"), 3) if _ascii_lower(rest[:3]) == "nan" else None
    if rest[:1] not in ("i", "I"):
        return None
    matched = 0
    for ch, want in zip(_ascii_lower(rest[:8]), "infinity", strict=False):
        if ch != want:
            break
        matched += 1
    if 3 < matched < 8:
        matched = 3
    if matched in (3, 8):
        return sign * float("inf"), consumed + matched
    return None


def _underscore_ok(text: str) -> bool:
    """strconv's ``underscoreOK``: underscores only between digits (or after a base
    prefix), as in Go's number literals."""
    saw = "^"
    at = 0
    if text[:1] in ("-", "+"):
        text = text[1:]
    hexadecimal = False
    if len(text) >= 2 and text[0] == "0" and _lower(text[1]) in ("b", "o", "x"):
        at = 2
        saw = "0"
        hexadecimal = _lower(text[1]) == "x"
    while at < len(text):
        ch = text[at]
        if _is_digit(ch) or (hexadecimal and "a" <= _lower(ch) <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
        at += 1
    return saw != "_"


def _read_float(text: str) -> tuple[int, bool] | None:
    """strconv's ``readFloat`` grammar: how many characters form a number, and whether it
    is hexadecimal; None when no number starts the text."""
    at = 0
    if text[:1] in ("+", "-"):
        at = 1
    hexadecimal = False
    exponent_char = "e"
    if at + 2 < len(text) and text[at] == "0" and _lower(text[at + 1]) == "x":
        hexadecimal, exponent_char = True, "p"
        at += 2
    underscores = saw_dot = saw_digits = False
    while at < len(text):
        ch = text[at]
        if ch == "_":
            underscores = True
        elif ch == ".":
            if saw_dot:
                break
            saw_dot = True
        elif _is_digit(ch) or (hexadecimal and "a" <= _lower(ch) <= "f"):
            saw_digits = True
        else:
            break
        at += 1
    if not saw_digits:
        return None
    if at < len(text) and _lower(text[at]) == exponent_char:
        at += 1
        if at >= len(text):
            return None
        if text[at] in "+-":
            at += 1
        if at >= len(text) or not _is_digit(text[at]):
            return None
        while at < len(text) and (_is_digit(text[at]) or text[at] == "_"):
            underscores = underscores or text[at] == "_"
            at += 1
    elif hexadecimal:
        return None
    if underscores and not _underscore_ok(text[:at]):
        return None
    return at, hexadecimal


def parse_float(text: str) -> float:
    """``strconv.ParseFloat(text, 64)``: decimal or hexadecimal (``0x1.8p3``) literals,
    ``inf``/``infinity``/``nan`` in any case, underscores between digits; correctly
    rounded. A finite literal beyond float64 is a range error, as in Go. Raises
    :class:`GoSyntaxError` with Go's message."""
    syntax = GoSyntaxError(f"strconv.ParseFloat: parsing {_go_quote(text)}: invalid syntax")
    special = _special(text)
    if special is not None:
        if special[1] != len(text):
            raise syntax
        return special[0]
    read = _read_float(text)
    if read is None or read[0] != len(text):
        raise syntax
    literal = text.replace("_", "")
    out_of_range = GoSyntaxError(
        f"strconv.ParseFloat: parsing {_go_quote(text)}: value out of range"
    )
    if read[1]:
        try:
            return float.fromhex(literal)
        except OverflowError:
            raise out_of_range from None
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise out_of_range
    return value


def _go_quote(text: str) -> str:
    """``strconv.Quote`` for the printable text an error quotes (others escaped)."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


_ATOI = re.compile(r"[+-]?[0-9]+")


def atoi(text: str) -> int:
    """``strconv.Atoi``: an optionally signed decimal integer within int64."""
    if _ATOI.fullmatch(text) is None:
        raise GoSyntaxError(f"strconv.Atoi: parsing {_go_quote(text)}: invalid syntax")
    value = int(text)
    if not MIN_INT64 <= value <= MAX_INT64:
        raise GoSyntaxError(f"strconv.Atoi: parsing {_go_quote(text)}: value out of range")
    return value


# --- sort.Slice (pattern-defeating quicksort, not stable) ------------------------------


def sort_slice(data: list[_T], less: Callable[[_T, _T], bool]) -> None:
    """Sort ``data`` in place exactly as Go's ``sort.Slice`` does: the same comparisons
    and swaps, so elements that compare equal end in the same order as in Go. (Python's
    stable sort agrees whenever no two elements are equal, and for 12 elements or fewer,
    where Go sorts by insertion.)"""
    _Pdq(data, less).sort()


class _Pdq(Generic[_T]):
    """Go's ``pdqsort_func`` and its helpers, over a list and a less function."""

    def __init__(self, data: list[_T], less: Callable[[_T, _T], bool]) -> None:
        self.data = data
        self.lt = less

    def less(self, i: int, j: int) -> bool:
        return self.lt(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        data = self.data
        data[i], data[j] = data[j], data[i]

    def sort(self) -> None:
        length = len(self.data)
        self.pdqsort(0, length, length.bit_length())

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        max_insertion = 12
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= max_insertion:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if (
                was_balanced
                and was_partitioned
                and hint == _INCREASING
                and self.partial_insertion_sort(a, b)
            ):
                return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, already = self.partition(a, b, pivot)
            was_partitioned = already
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i += 1
            j -= 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps, shortest_shifting = 5, 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            random = length  # Go's xorshift seeded with the length
            modulus = 1 << length.bit_length()
            for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
                random ^= (random << 13) & 0xFFFF_FFFF_FFFF_FFFF
                random ^= random >> 7
                random ^= (random << 17) & 0xFFFF_FFFF_FFFF_FFFF
                other = random & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        shortest_ninther, max_swaps = 50, 4 * 3
        span = b - a
        swaps = [0]
        i = a + span // 4 * 1
        j = a + span // 4 * 2
        k = a + span // 4 * 3
        if span >= 8:
            if span >= shortest_ninther:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == max_swaps:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1


_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2
