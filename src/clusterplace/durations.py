"""Go's ``time.ParseDuration``: the syntax of durations in Kubernetes-style manifests
(``30s``, ``1m30s``, ``1.5h``, ``300ms``)."""

from __future__ import annotations

import math
import re

from clusterplace.errors import ClusterplaceError

__all__ = ["DurationError", "parse_go_duration"]

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 micro sign
    "μs": 1e-6,  # U+03BC Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_NUMBER = re.compile(r"\d+\.?\d*|\.\d+")
_UNIT = re.compile(r"[^\d.]*")


class DurationError(ClusterplaceError, ValueError):
    """Text that ``time.ParseDuration`` refuses."""


def parse_go_duration(text: str) -> float:
    """Seconds in ``text``, a Go duration: an optional sign, then one or more decimal
    numbers each with a unit; ``0`` alone is zero. Raises :class:`DurationError`."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0.0
    if not body:
        raise DurationError(f'invalid duration "{text}"')
    total = 0.0
    at = 0
    while at < len(body):
        number = _NUMBER.match(body, at)
        if number is None:
            raise DurationError(f'invalid duration "{text}"')
        unit = _UNIT.match(body, number.end())
        name = unit.group() if unit else ""
        if not name:
            raise DurationError(f'missing unit in duration "{text}"')
        if name not in _UNITS:
            raise DurationError(f'unknown unit "{name}" in duration "{text}"')
        total += float(number.group()) * _UNITS[name]
        at = number.end() + len(name)
    if not math.isfinite(total) or total > 2**63 / 1e9:
        raise DurationError(f'invalid duration "{text}"')
    return -total if text.startswith("-") else total
