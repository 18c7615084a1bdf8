"""kubectl-describe's Events table for a hub's events: ages as kubectl prints them
(apimachinery's HumanDuration), a series or an older repeated event with its count,
and the reporting controller (or an older event's source) as From."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterplace.outputs.describe import LIVE_EVENT_HEADERS, describe, event_rows, human_age

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-5, "<invalid>"),
        (-0.5, "0s"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (200, "3m20s"),
        (599, "9m59s"),
        (600, "10m"),
        (179 * 60 + 59, "179m"),
        (3 * 3600, "3h"),
        (5 * 3600 + 10 * 60, "5h10m"),
        (8 * 3600, "8h"),
        (47 * 3600, "47h"),
        (48 * 3600, "2d"),
        (3 * 86400 + 4 * 3600, "3d4h"),
        (40 * 86400, "40d"),
        (2 * 365 * 86400 + 30 * 86400, "2y30d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_ages_read_as_kubectls(seconds: float, shown: str) -> None:
    assert human_age(seconds) == shown


def test_event_rows_as_kubectl_describe_prints_them() -> None:
    events: list[dict[str, Any]] = [
        {
            "type": "Normal",
            "reason": "DecisionCreate",
            "eventTime": "2026-06-01T11:59:30.123456Z",
            "reportingController": "placement-controller",
            "note": "  created  ",
        },
        {
            "type": "Warning",
            "reason": "Repeated",
            "eventTime": "2026-06-01T11:00:00.000000Z",
            "series": {"count": 4, "lastObservedTime": "2026-06-01T11:55:00.000000Z"},
            "reportingController": "placement-controller",
            "note": "again",
        },
        {
            "type": "Normal",
            "reason": "Old",
            "deprecatedFirstTimestamp": "2026-05-31T12:00:00Z",
            "deprecatedLastTimestamp": "2026-06-01T10:00:00Z",
            "deprecatedCount": 3,
            "deprecatedSource": {"component": "scheduler"},
            "reportingController": "",
            "note": "old style",
        },
        {"type": "Normal", "reason": "NoTime", "note": "when?"},
    ]
    assert event_rows(events, NOW) == [
        ["Normal", "DecisionCreate", "29s", "placement-controller", "created"],
        ["Warning", "Repeated", "5m (x4 over 60m)", "placement-controller", "again"],
        ["Normal", "Old", "120m (x3 over 24h)", "scheduler", "old style"],
        ["Normal", "NoTime", "<unknown>", "", "when?"],
    ]


def test_the_live_events_table_has_an_age_column() -> None:
    rows = event_rows(
        [{"type": "Normal", "reason": "R", "eventTime": "2026-06-01T11:59:00Z", "note": "n"}],
        NOW,
    )
    text = describe({"metadata": {"name": "p"}}, events=rows, event_headers=LIVE_EVENT_HEADERS)
    table = text.split("Events:\n", 1)[1].splitlines()
    assert table[0].split() == ["Type", "Reason", "Age", "From", "Message"]
    assert table[2].split() == ["Normal", "R", "60s", "n"]
    assert describe({"metadata": {"name": "p"}}).endswith("Events:        <none>\n")
