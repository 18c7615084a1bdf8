"""kubectl-describe text for any object: ``Key:  value`` lines, nested and aligned, and
its Events table (a hub's events with their age, as kubectl prints them)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from clusterplace.outputs.table import format_table

__all__ = ["EVENT_HEADERS", "LIVE_EVENT_HEADERS", "describe", "event_rows", "human_age", "title"]

EVENT_HEADERS = ("Type", "Reason", "From", "Message")  # events a run computes
LIVE_EVENT_HEADERS = ("Type", "Reason", "Age", "From", "Message")  # a hub's, as kubectl

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


def human_age(seconds: float) -> str:
    """An age as kubectl prints it (apimachinery's HumanDuration): ``45s``, ``3m20s``,
    ``25m``, ``5h10m``, ``30h``, ``3d4h``, ``40d``, ``2y30d``; a time a little ahead of
    now (clocks apart) is ``0s``."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y{rest}d" if rest else f"{years}y"
    return f"{years}y"


def _moment(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def event_rows(events: Iterable[Mapping[str, Any]], now: datetime) -> list[list[str]]:
    """``events.k8s.io/v1`` Events as the rows of :data:`LIVE_EVENT_HEADERS`, as kubectl
    describe prints them: the age of the first occurrence, or of the last with how many
    and since when for a series (``2m (x5 over 10m)``); From is the reporting
    controller (an older event's source component)."""

    def age(value: Any) -> str:
        moment = _moment(value)
        return "<unknown>" if moment is None else human_age((now - moment).total_seconds())

    rows = []
    for event in events:
        meta = event.get("metadata") or {}
        series = event.get("series") or {}
        first = (
            event.get("eventTime")
            or event.get("deprecatedFirstTimestamp")
            or meta.get("creationTimestamp")
        )
        count = int(event.get("deprecatedCount") or 0)
        if isinstance(series, dict) and series.get("count"):
            when = f"{age(series.get('lastObservedTime'))} (x{series['count']} over {age(first)})"
        elif count > 1:
            last = event.get("deprecatedLastTimestamp")
            when = f"{age(last)} (x{count} over {age(first)})"
        else:
            when = age(first)
        source = (event.get("deprecatedSource") or {}).get("component") or event.get(
            "reportingController"
        )
        rows.append(
            [
                str(event.get("type") or ""),
                str(event.get("reason") or ""),
                when,
                str(source or ""),
                str(event.get("note") or "").strip(),
            ]
        )
    return rows


def describe(
    obj: dict[str, Any],
    extra: Sequence[tuple[str, Any]] = (),
    events: Sequence[Sequence[str]] = (),
    event_headers: Sequence[str] = EVENT_HEADERS,
) -> str:
    """``obj`` (Kubernetes JSON shape) as kubectl describe prints it, then ``extra``
    sections and an Events table (rows of ``event_headers``: TYPE, REASON, FROM,
    MESSAGE by default; :data:`LIVE_EVENT_HEADERS` for a hub's events)."""
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
        headers = list(event_headers)
        rows = [["-" * len(h) for h in headers], *[list(e) for e in events]]
        out.extend("  " + line for line in format_table(headers, rows, upper=False).splitlines())
    else:
        out.append("Events:        <none>")
    return "\n".join(out) + "\n"
