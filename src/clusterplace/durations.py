"""Go's ``time.ParseDuration``, exactly: the syntax of durations in Kubernetes-style
manifests (``30s``, ``1m30s``, ``1.5h``, ``300ms``), to the nanosecond."""

from __future__ import annotations

from clusterplace.errors import ClusterplaceError

__all__ = ["MAX_INT64", "DurationError", "go_time_quote", "parse_duration_ns", "parse_go_duration"]

MAX_INT64 = (1 << 63) - 1


class DurationError(ClusterplaceError, ValueError):
    """Text that ``time.ParseDuration`` refuses; the message is Go's."""


# --- time.ParseDuration ---------------------------------------------------------------

_UNIT_NS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC Greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}


def go_time_quote(text: str) -> str:
    """The time package's ``quote``: double quotes, with every byte of a control or
    non-ASCII character written as ``\\xNN``."""
    out = ['"']
    for ch in text:
        if ch < " " or ch >= "\x80":
            out.extend(f"\\x{byte:02x}" for byte in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _leading_int(text: str) -> tuple[int, str] | None:
    """The leading ``[0-9]*`` of ``text`` and the rest; None when it passes 2**63."""
    value = 0
    at = 0
    while at < len(text) and _is_digit(text[at]):
        if value > (1 << 63) // 10:
            return None
        value = value * 10 + ord(text[at]) - 48
        if value > 1 << 63:
            return None
        at += 1
    return value, text[at:]


def _leading_fraction(text: str) -> tuple[int, float, str]:
    """The leading ``[0-9]*`` of a fraction: its digits as an integer, the power of ten
    they are scaled by, and the rest. Digits past 2**63 stop adding precision."""
    value = 0
    scale = 1.0
    overflow = False
    at = 0
    while at < len(text) and _is_digit(text[at]):
        if not overflow:
            if value > MAX_INT64 // 10:
                overflow = True
            else:
                grown = value * 10 + ord(text[at]) - 48
                if grown > 1 << 63:
                    overflow = True
                else:
                    value = grown
                    scale *= 10
        at += 1
    return value, scale, text[at:]


def parse_duration_ns(text: str) -> int:
    """Nanoseconds in ``text``, exactly as ``time.ParseDuration`` reads it: an optional
    sign, then numbers with an optional fraction, each followed by a unit (``ns``,
    ``us``/``µs``/``μs``, ``ms``, ``s``, ``m``, ``h``); ``0`` alone is zero. The value must
    fit an int64. Raises :class:`DurationError` with Go's message."""
    invalid = DurationError("time: invalid duration " + go_time_quote(text))
    rest = text
    negative = False
    if rest[:1] in ("-", "+"):
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid
    total = 0
    while rest:
        if not (rest[0] == "." or _is_digit(rest[0])):
            raise invalid
        before = len(rest)
        leading = _leading_int(rest)
        if leading is None:
            raise invalid
        whole, rest = leading
        has_whole = before != len(rest)
        fraction, scale, has_fraction = 0, 1.0, False
        if rest[:1] == ".":
            rest = rest[1:]
            before = len(rest)
            fraction, scale, rest = _leading_fraction(rest)
            has_fraction = before != len(rest)
        if not has_whole and not has_fraction:
            raise invalid
        end = 0
        while end < len(rest) and not (rest[end] == "." or _is_digit(rest[end])):
            end += 1
        if end == 0:
            raise DurationError("time: missing unit in duration " + go_time_quote(text))
        unit_name, rest = rest[:end], rest[end:]
        unit = _UNIT_NS.get(unit_name)
        if unit is None:
            raise DurationError(
                "time: unknown unit "
                + go_time_quote(unit_name)
                + " in duration "
                + go_time_quote(text)
            )
        if whole > (1 << 63) // unit:
            raise invalid
        whole *= unit
        if fraction > 0:
            # Go adds the fraction through float64, truncated toward zero.
            whole += int(float(fraction) * (float(unit) / scale))
            if whole > 1 << 63:
                raise invalid
        total += whole
        if total > 1 << 63:
            raise invalid
    if negative:
        return -total
    if total > MAX_INT64:
        raise invalid
    return total


def parse_go_duration(text: str) -> float:
    """Seconds in ``text``, a Go duration (:func:`parse_duration_ns`). The message of
    the :class:`DurationError` it raises leaves out Go's ``time:`` prefix, as fields
    checked when a file loads say it (``timeout: invalid duration "nan"``)."""
    try:
        return parse_duration_ns(text) / 1e9
    except DurationError as err:
        raise DurationError(str(err).removeprefix("time: ")) from None
