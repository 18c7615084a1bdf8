"""kubectl-describe text for any object: ``Key:  value`` lines, nested and aligned."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from clusterplace.outputs.table import format_table

__all__ = ["describe", "title"]

_CAMEL = re.compile(r"[a-z][A-Za-z0-9]*")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def title(key: str) -> str:
    """``numberOfClusters`` -> ``Number Of Clusters`` (how kubectl describe prints CRDs)."""
    if not _CAMEL.fullmatch(key):
        return key  # a name (e.g. a PlacementDecision's), not a field
    words = _WORD.findall(key)
    return " ".join(w[:1].upper() + w[1:] for w in words) or key


def _scalar(value: Any) -> str:
    if value is None or value == "":
        return "<none>" if value is None else ""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _lines(value: Any, indent: int, out: list[str]) -> None:
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return
        width = max(len(title(k)) for k in value) + 2
        for key, item in value.items():
            label = f"{title(key)}:"
            if (isinstance(item, dict) and item) or (isinstance(item, list) and item):
                out.append(f"{pad}{label}")
                _lines(item, indent + 1, out)
            else:
                shown = "<none>" if item in ({}, []) else _scalar(item)
                out.append(f"{pad}{label.ljust(width)}{shown}".rstrip())
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                _lines(item, indent, out)
            else:
                out.append(f"{pad}{_scalar(item)}")
    else:
        out.append(f"{pad}{_scalar(value)}")


def _map(values: dict[str, str] | None) -> list[str]:
    if not values:
        return ["<none>"]
    return [f"{k}={v}" for k, v in sorted(values.items())]


def describe(
    obj: dict[str, Any], extra: Sequence[tuple[str, Any]] = (), events: Sequence[Sequence[str]] = ()
) -> str:
    """``obj`` (Kubernetes JSON shape) as kubectl describe prints it, then ``extra``
    sections and an Events table (rows of TYPE, REASON, FROM, MESSAGE)."""
    meta = obj.get("metadata") or {}
    out: list[str] = []
    header = [
        ("Name:", [meta.get("name", "")]),
        ("Namespace:", [meta.get("namespace", "")] if meta.get("namespace") else []),
        ("Labels:", _map(meta.get("labels"))),
        ("Annotations:", _map(meta.get("annotations"))),
        ("API Version:", [obj.get("apiVersion", "")]),
        ("Kind:", [obj.get("kind", "")]),
    ]
    for label, values in header:
        if not values:
            continue
        out.append(f"{label:<14}{values[0]}")
        out.extend(f"{'':<14}{v}" for v in values[1:])
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    _lines(body, 0, out)
    for name, value in extra:
        out.append(f"{name}:")
        _lines(value, 1, out)
    if events:
        out.append("Events:")
        headers = ["Type", "Reason", "From", "Message"]
        rows = [["-" * len(h) for h in headers], *[list(e) for e in events]]
        out.extend("  " + line for line in format_table(headers, rows, upper=False).splitlines())
    else:
        out.append("Events:        <none>")
    return "\n".join(out) + "\n"
