"""Shared helpers for the tests that transcribe upstream's rollout_test.go.

Upstream's tests freeze the clock at 2022-01-01T00:00:00Z (``fakeTime``) and write every
time as an offset from it (``fakeTime_60s`` is 60 s before, ``fakeTime30s`` 30 s after);
here an offset in seconds stands for each, None for a nil time. A workload is
``(group key, cluster, state, last transition offset)`` with upstream's dummy states,
which its status function turns into ToApply, Progressing, Succeeded and Failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterplace.delivery import ClusterRolloutStatus, RolloutResult

FAKE_TIME = datetime(2022, 1, 1, tzinfo=UTC)

WAITING, APPLYING, DONE, FAILED = "ToApply", "Progressing", "Succeeded", "Failed"

Key = tuple[str, int]
# (cluster, group key, status, last transition offset, recheck offset)
Expected = tuple[str, Key, str, int | None, int | None]


def at(offset: int | None) -> datetime | None:
    return None if offset is None else FAKE_TIME + timedelta(seconds=offset)


def rfc3339(offset: int | None) -> str | None:
    moment = at(offset)
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Case:
    name: str
    strategy: dict[str, Any]
    groups: dict[Key, list[str]]
    workloads: Sequence[tuple[Key, str, str, int | None]] = field(default_factory=list)
    to_rollout: Sequence[Expected] = field(default_factory=list)
    timed_out: Sequence[Expected] = field(default_factory=list)
    removed: Sequence[Expected] = field(default_factory=list)
    breach: bool = False
    recheck_after: int | None = None  # seconds

    def decisions(self) -> list[dict[str, Any]]:
        return [
            {"name": f"decision-{number}", "groupName": name, "groupIndex": index, "clusters": cs}
            for number, ((name, index), cs) in enumerate(self.groups.items())
        ]

    def statuses(self) -> list[dict[str, Any]]:
        return [
            {
                "clusterName": cluster,
                "status": state,
                "lastTransitionTime": rfc3339(offset),
                "groupName": key[0],
                "groupIndex": key[1],
            }
            for key, cluster, state, offset in self.workloads
        ]


def entry(status: ClusterRolloutStatus) -> Expected:
    def offset(moment: datetime | None) -> int | None:
        if moment is None:
            return None
        seconds = (moment - FAKE_TIME).total_seconds()
        assert seconds == int(seconds)
        return int(seconds)

    return (
        status.cluster_name,
        (status.group_name, status.group_index),
        str(status.status),
        offset(status.last_transition_time),
        offset(status.recheck_time),
    )


def check(case: Case, result: RolloutResult) -> None:
    assert [entry(s) for s in result.to_rollout] == list(case.to_rollout)
    assert [entry(s) for s in result.timed_out] == list(case.timed_out)
    assert [entry(s) for s in result.removed] == list(case.removed)
    assert result.max_failure_breach is case.breach
    expected = None if case.recheck_after is None else timedelta(seconds=case.recheck_after)
    assert result.recheck_after == expected
