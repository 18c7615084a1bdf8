"""Answers recorded from Go: 200 random placements, statuses and strategies run through a
Go build of upstream's rollout.go and placement.go (statement for statement, on Go's own
``sort``, ``time``, ``strconv`` and ``encoding/json``), compared here to the nanosecond.

The cases mix contiguous and gapped group indices, group names shared by several indices,
clusters outside the decisions, repeated and empty cluster names, every status, times
with nanoseconds, deadlines and soaks of every kind, percentages and strategy keys in any
case. A placement never has one index under two names nor a cluster in two groups here,
where Go's answer would depend on its map order. Each case has at most 9 statuses, which
Go sorts by insertion on every version (larger sorts of equal names depend on the Go
release, see docs/semantics.md). ``error: null`` records a strategy Go's JSON decoder
refused, whose wording is Go's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clusterplace.delivery import RolloutInputError, RolloutStrategyError
from clusterplace.delivery.gostd import parse_rfc3339
from clusterplace.delivery.rollout import _Entry, _read_groups, _read_statuses, _run
from clusterplace.delivery.strategy import decode_strategy

CASES = json.loads((Path(__file__).parent / "data" / "go_recorded.json").read_text())


def as_go(entry: _Entry) -> dict[str, Any]:
    def stamp(ns: int | None) -> list[int] | None:
        return None if ns is None else [ns // 10**9, ns % 10**9]

    return {
        "name": entry.name,
        "groupName": entry.key.group_name,
        "groupIndex": entry.key.group_index,
        "status": str(entry.status),
        "ltt": stamp(entry.transition),
        "recheck": stamp(entry.recheck),
    }


def run(case: dict[str, Any]) -> dict[str, Any]:
    try:
        strategy = decode_strategy(case["strategy"])
        result = _run(
            strategy,
            _read_groups(case["decisions"]),
            _read_statuses(case["statuses"]),
            parse_rfc3339(case["now"]),
        )
    except (RolloutStrategyError, RolloutInputError) as err:
        return {"error": str(err)}
    return {
        "toRollout": [as_go(e) for e in result.to_rollout],
        "timedOut": [as_go(e) for e in result.timed_out],
        "removed": [as_go(e) for e in result.removed or ()],
        "breach": result.breach,
        "recheckAfter": result.recheck_after,
    }


@pytest.mark.parametrize("case", CASES, ids=[f"go-{n}" for n in range(len(CASES))])
def test_same_answer_as_go(case: dict[str, Any]) -> None:
    mine = run(case)
    expected = case["go"]
    if "error" in expected and expected["error"] is None:
        assert "error" in mine  # a JSON decoding error: Go words it its own way
    else:
        assert mine == expected


def test_the_recording_covers_every_type_and_outcome() -> None:
    types = {case["strategy"].get("type") for case in CASES}
    assert {"All", "Progressive", "ProgressivePerGroup", None} <= types
    answers = [case["go"] for case in CASES if "error" not in case["go"]]
    assert any(a["breach"] for a in answers) and any(a["timedOut"] for a in answers)
    assert any(a["removed"] for a in answers) and any(a["recheckAfter"] for a in answers)
    assert sum("error" in case["go"] for case in CASES) == 30
