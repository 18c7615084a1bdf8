"""Kubernetes resource quantities (``4Gi``, ``500m``, ``1E3``) parsed strictly as Go does.

Follows ``k8s.io/apimachinery/pkg/api/resource`` ``ParseQuantity``: the same
grammar (including its oddities: ``+`` alone is 0, ``1.G`` is accepted, ``1K`` is
not), values rounded away from zero to a multiple of 1e-9, binary-SI values
capped at 2^63-1, and :attr:`Quantity.approx_float` computed the way
``AsApproximateFloat64`` computes it (the resource prioritizers depend on that
exact float).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from clusterplace.errors import ClusterplaceError

__all__ = ["Quantity", "QuantityError", "parse_quantity"]

_MAX_INT64 = 2**63 - 1
_MAX_INT64_FACTORS = 18
_MAX_MATERIALIZED_DIGITS = 400  # beyond float range: never build the giant integer
_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_EXPONENT_RE = re.compile(r"[+-]?[0-9]+")  # strconv.ParseInt(…, 10, 64), ASCII only


class QuantityError(ClusterplaceError, ValueError):
    """Not a valid Kubernetes quantity; the message is upstream's."""


FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse quantity's numeric value"


def _pow10(n: int) -> float:
    """Go's ``math.Pow10``: products/quotients of exact table entries, not ``10.0**n``."""
    if 0 <= n <= 308:
        return float(f"1e{(n // 32) * 32}") * float(f"1e{n % 32}")
    if -323 <= n < 0:
        m = -n
        return float(f"1e-{(m // 32) * 32}") / float(f"1e{m % 32}")
    return 0.0 if n < 0 else float("inf")


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: exact value, Go's internal (unscaled, 10-exponent) pair, and text."""

    text: str
    unscaled: int
    exponent: int  # value == unscaled * 10**exponent
    binary: bool  # written with a binary-SI suffix (Ki, Mi, ...)

    @property
    def value(self) -> Decimal:
        """The exact value."""
        digits = tuple(int(d) for d in str(abs(self.unscaled)))
        return Decimal((1 if self.unscaled < 0 else 0, digits, self.exponent))

    @property
    def approx_float(self) -> float:
        """``Quantity.AsApproximateFloat64()``: float(unscaled) * Pow10(exponent)."""
        try:
            base = float(self.unscaled)
        except OverflowError:  # big.Float.Float64() saturates to ±Inf
            base = float("inf") if self.unscaled > 0 else float("-inf")
        if self.exponent == 0:
            return base
        return base * _pow10(self.exponent)

    def __str__(self) -> str:
        return self.text


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Go's ``parseQuantityString``: (positive, value, numerator, denominator, suffix)."""
    positive = True
    pos = 0
    end = len(text)
    if text[0] == "-":
        positive = False
        pos = 1
    elif text[0] == "+":
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        dstart = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[dstart:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, bool] | None:
    """(base, exponent, binary) for a suffix, or None when it is not one."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], False
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], True
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        if not _EXPONENT_RE.fullmatch(rest):
            return None
        parsed = int(rest)
        if not -(2**63) <= parsed <= _MAX_INT64:
            return None
        return 10, _int32(parsed), False
    return None


def parse_quantity(text: str) -> Quantity:
    """Parse ``text`` exactly as ``resource.ParseQuantity`` would, or raise QuantityError."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Quantity(text, 0, 0, False)
    positive, value, num, denom, suffix = _split(text)
    interpreted = _interpret(suffix)
    if interpreted is None:
        raise QuantityError(SUFFIX_ERROR)
    base, exponent, binary = interpreted

    # Upstream's int64 fast path: exact, no rounding.
    if binary:
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            mantissa, precision = 1, -1
    else:
        scale = exponent
        mantissa = 1
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = int(num + denom)
            if shifted > _MAX_INT64:
                raise QuantityError(NUMERIC_ERROR)
            result = shifted * mantissa
            if -(2**63) <= result <= _MAX_INT64:
                return Quantity(text, result if positive else -result, scale, binary)

    # The arbitrary-precision path: scale by the suffix, round up to nano, cap binary-SI.
    digits = value.lstrip("+-")
    if not any(c in _DIGITS for c in digits):
        raise QuantityError(NUMERIC_ERROR)
    int_part, _, frac_part = digits.partition(".")
    unscaled = int((int_part + frac_part) or "0")
    dec_scale = len(frac_part)  # value == unscaled / 10**dec_scale
    if base == 10:
        dec_scale -= exponent
    else:
        unscaled <<= exponent
    if unscaled != 0:
        # Round away from zero to scale 9 (1e-9), as inf.Dec.Round(…, 9, RoundUp).
        if dec_scale > 9:
            shift = dec_scale - 9
            if shift > len(str(unscaled)):
                unscaled = 1
            else:
                quotient, remainder = divmod(unscaled, 10**shift)
                unscaled = quotient + (1 if remainder else 0)
            dec_scale = 9
        elif 9 - dec_scale <= _MAX_MATERIALIZED_DIGITS:
            unscaled *= 10 ** (9 - dec_scale)
            dec_scale = 9
        # else: so large that its float is ±Inf either way; keep it unexpanded.
        if binary and dec_scale == 9 and unscaled > _MAX_INT64 * 10**9:
            unscaled, dec_scale = _MAX_INT64, 0
    return Quantity(text, unscaled if positive else -unscaled, -dec_scale, binary)
