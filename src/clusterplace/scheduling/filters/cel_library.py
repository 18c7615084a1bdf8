"""The Kubernetes CEL extensions OCM predicates may call, for the CEL engine in use.

OCM registers the apiserver's CEL libraries. Those a cluster predicate is likely to
use are provided here: ``semver`` (``semver()``, ``isSemver()``, ``major()``,
``minor()``, ``patch()``, ``compareTo()``, ``isGreaterThan()``, ``isLessThan()``),
``quantity`` (``quantity()``, ``isQuantity()``, the same comparisons,
``asInteger()``, ``asApproximateFloat()``, ``sign()``, ``isInteger()``) and OCM's
``<string>.parseJSON()``. Semver and quantity values are tagged maps, since the
engine passes plain data between functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clusterplace import jsontext
from clusterplace.quantity import QuantityError, parse_quantity

__all__ = ["FUNCTIONS"]

_TAG = "__cel_type__"
# Semantic Versioning 2.0.0, as k8s's semver library (blang/semver, strict) parses it.
_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?",
    re.ASCII,
)


def _semver(text: str) -> dict[str, Any]:
    m = _SEMVER.fullmatch(text)
    if m is None:
        raise ValueError(f"could not parse {text!r} as semver")
    return {
        _TAG: "semver",
        "major": int(m.group(1)),
        "minor": int(m.group(2)),
        "patch": int(m.group(3)),
        "pre": m.group(4) or "",
    }


def _pre_key(pre: str) -> tuple[Any, ...]:
    if not pre:
        return (1,)  # a release sorts after every pre-release
    parts = [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")]
    return (0, *parts)


def _compare(a: dict[str, Any], b: dict[str, Any]) -> int:
    if a.get(_TAG) != b.get(_TAG):
        raise TypeError("compareTo needs two values of the same type")
    if a[_TAG] == "semver":
        left = (a["major"], a["minor"], a["patch"], _pre_key(a["pre"]))
        right = (b["major"], b["minor"], b["patch"], _pre_key(b["pre"]))
        return (left > right) - (left < right)
    x, y = parse_quantity(a["text"]).value, parse_quantity(b["text"]).value
    return (x > y) - (x < y)


def _quantity(text: str) -> dict[str, Any]:
    try:
        parse_quantity(text)
    except QuantityError as err:
        raise ValueError(str(err)) from None
    return {_TAG: "quantity", "text": text}


def _is(parser: Callable[[str], object], text: str) -> bool:
    try:
        parser(text)
    except ValueError:
        return False
    return True


def _as_integer(q: dict[str, Any]) -> int:
    value = parse_quantity(q["text"]).value
    if value != value.to_integral_value() or not -(2**63) <= value < 2**63:
        raise ValueError("cannot convert value to integer")
    return int(value)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "parseJSON": jsontext.loads,
    "semver": _semver,
    "isSemver": lambda text: _is(_semver, text),
    "major": lambda v: v["major"],
    "minor": lambda v: v["minor"],
    "patch": lambda v: v["patch"],
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "quantity": _quantity,
    "isQuantity": lambda text: _is(_quantity, text),
    "asInteger": _as_integer,
    "asApproximateFloat": lambda q: parse_quantity(q["text"]).approx_float,
    "sign": lambda q: (parse_quantity(q["text"]).value > 0) - (parse_quantity(q["text"]).value < 0),
    "isInteger": lambda q: _is(lambda t: _as_integer({"text": t}), q["text"]),
}
