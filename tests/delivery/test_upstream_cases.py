"""Upstream's own rollout tests (sdk-go pkg/apis/cluster/v1alpha1/rollout_test.go), case
for case: TestGetRolloutCluster_All, _Progressive, _ProgressivePerGroup, _ClusterAdded
and _ClusterRemoved through ``plan_rollout``, and the tables of the helpers it is built
from (TestDetermineRolloutStatus, TestMinRecheckAfter, TestCalculateRolloutSize,
TestParseTimeout, TestDecisionGroupsToGroupKeys). Names are upstream's.
"""

from __future__ import annotations

from typing import cast

import pytest

from clusterplace.delivery import RolloutStatus, RolloutStrategyError, plan_rollout
from clusterplace.delivery.groups import GroupKey
from clusterplace.delivery.rollout import (
    _determine,
    _Entry,
    _mandatory_keys,
    _min_recheck_after,
)
from clusterplace.delivery.strategy import (
    MAX_DURATION,
    IntOrString,
    MandatoryGroup,
    calculate_rollout_size,
    parse_timeout,
)

from ._upstream import APPLYING, DONE, FAILED, FAKE_TIME, WAITING, Case, check

G1: tuple[str, int] = ("group1", 0)
I1: tuple[str, int] = ("", 1)
I2: tuple[str, int] = ("", 2)
TO, PR, SU, FA, TI = "ToApply", "Progressing", "Succeeded", "Failed", "TimeOut"
C = [f"cluster{n}" for n in range(11)]  # C[1] == "cluster1"


def all_90s() -> dict[str, object]:
    return {"type": "All", "all": {"progressDeadline": "90s"}}


def progressive(**fields: object) -> dict[str, object]:
    return {"type": "Progressive", "progressive": fields}


def per_group(**fields: object) -> dict[str, object]:
    return {"type": "ProgressivePerGroup", "progressivePerGroup": fields}


MANDATORY_GROUP1 = [{"groupName": "group1"}]

# The workloads several cases share.
FIVE_MIXED = [
    (G1, C[1], DONE, -60),
    (G1, C[2], FAILED, -120),
    (I1, C[3], APPLYING, -120),
    (I1, C[4], FAILED, -60),
    (I1, C[5], APPLYING, -60),
]
ONE_APPLYING_REST_WAITING = [
    (G1, C[1], APPLYING, -60),
    (G1, C[2], WAITING, None),
    (G1, C[3], WAITING, None),
    (I1, C[4], WAITING, None),
    (I1, C[5], WAITING, None),
    (I1, C[6], WAITING, None),
    (I2, C[7], WAITING, None),
    (I2, C[8], WAITING, None),
    (I2, C[9], WAITING, None),
    (I2, C[10], WAITING, None),
]
DONE_FAILED_APPLYING = [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (G1, C[3], APPLYING, -60)]
DONE_FAILED_DONE = [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (G1, C[3], DONE, -60)]
TWO_GROUPS = {G1: C[1:4], I1: C[4:7]}
THREE_GROUPS = {G1: C[1:4], I1: C[4:7], I2: C[7:10]}

ALL_CASES = [
    Case(
        "test rollout all with timeout 90s without workload created",
        all_90s(),
        {G1: C[1:3], I1: C[3:7]},
        to_rollout=[(C[n], G1 if n < 3 else I1, TO, None, None) for n in range(1, 7)],
    ),
    Case(
        "test rollout all with timeout 90s",
        all_90s(),
        {G1: C[1:3], I1: C[3:7]},
        FIVE_MIXED,
        to_rollout=[
            (C[4], I1, FA, -60, 30),
            (C[5], I1, PR, -60, 30),
            (C[6], I1, TO, None, None),
        ],
        timed_out=[(C[2], G1, TI, -120, -30), (C[3], I1, TI, -120, -30)],
        recheck_after=30,
    ),
]

PROGRESSIVE_CASES = [
    Case(
        "test progressive rollout deprecated timeout",
        progressive(progressDeadline="90s", maxConcurrency=2),
        TWO_GROUPS,
        to_rollout=[(C[1], G1, TO, None, None), (C[2], G1, TO, None, None)],
    ),
    Case(
        "test progressive rollout with timeout 90s without workload created",
        progressive(progressDeadline="90s", maxConcurrency=2),
        TWO_GROUPS,
        to_rollout=[(C[1], G1, TO, None, None), (C[2], G1, TO, None, None)],
    ),
    Case(
        "test progressive rollout with timeout 90s and workload clusterRollOutStatus are in "
        "ToApply status",
        progressive(maxConcurrency=4, progressDeadline="90s"),
        THREE_GROUPS,
        ONE_APPLYING_REST_WAITING,
        to_rollout=[
            (C[1], G1, PR, -60, 30),
            (C[2], G1, TO, None, None),
            (C[3], G1, TO, None, None),
            (C[4], I1, TO, None, None),
        ],
        removed=[(C[10], I2, TO, None, None)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 90s and MaxConcurrency not set",
        progressive(progressDeadline="90s"),
        THREE_GROUPS,
        ONE_APPLYING_REST_WAITING,
        to_rollout=[(C[1], G1, PR, -60, 30)]
        + [(C[n], (G1, I1, I2)[(n - 1) // 3], TO, None, None) for n in range(2, 10)],
        removed=[(C[10], I2, TO, None, None)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 90s and no maxFailures set",
        progressive(progressDeadline="90s", maxConcurrency=2),
        TWO_GROUPS,
        DONE_FAILED_APPLYING,
        to_rollout=[(C[3], G1, PR, -60, 30)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        breach=True,
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 90s, 100% maxFailures, minSuccessTime 60s",
        progressive(
            progressDeadline="90s", maxFailures="100%", minSuccessTime="1m0s", maxConcurrency=2
        ),
        TWO_GROUPS,
        [(G1, C[1], DONE, -30), (G1, C[2], FAILED, -120), (G1, C[3], APPLYING, -30)],
        to_rollout=[(C[1], G1, SU, -30, 30), (C[3], G1, PR, -30, 60)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with mixed timeout and minSuccessTime scenarios",
        progressive(
            progressDeadline="90s", maxFailures="100%", minSuccessTime="1m0s", maxConcurrency=4
        ),
        {G1: C[1:5]},
        [
            (G1, C[1], DONE, -30),
            (G1, C[2], APPLYING, -60),
            (G1, C[3], APPLYING, -30),
            (G1, C[4], DONE, -120),
        ],
        to_rollout=[(C[1], G1, SU, -30, 30), (C[2], G1, PR, -60, 30), (C[3], G1, PR, -30, 60)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 90s and maxFailures 1",
        progressive(progressDeadline="90s", maxFailures=1, maxConcurrency=2),
        TWO_GROUPS,
        DONE_FAILED_APPLYING,
        to_rollout=[(C[3], G1, PR, -60, 30), (C[4], I1, TO, None, None)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 0s, maxFailures 3",
        progressive(progressDeadline="0s", maxFailures=3, maxConcurrency=2),
        TWO_GROUPS,
        [(G1, C[1], DONE, -30), (G1, C[2], APPLYING, -30), (G1, C[3], APPLYING, -30)],
        to_rollout=[(C[4], I1, TO, None, None), (C[5], I1, TO, None, None)],
        timed_out=[(C[2], G1, TI, -30, -30), (C[3], G1, TI, -30, -30)],
    ),
    Case(
        "test progressive rollout with mandatoryDecisionGroup and timeout 90s",
        progressive(
            mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s", maxConcurrency=3
        ),
        TWO_GROUPS,
        DONE_FAILED_APPLYING,
        to_rollout=[(C[3], G1, PR, -60, 30)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        breach=True,
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout None, MaxConcurrency 50%, MaxFailures 100%",
        progressive(progressDeadline="None", maxFailures="100%", maxConcurrency="50%"),
        {G1: C[1:3], I1: C[3:7]},
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (I1, C[3], APPLYING, -60)],
        to_rollout=[
            (C[2], G1, FA, -120, None),
            (C[3], I1, PR, -60, None),
            (C[4], I1, TO, None, None),
        ],
    ),
    Case(
        "test progressive rollout with timeout None, MaxConcurrency 50%, MaxFailures 0%",
        progressive(progressDeadline="None", maxFailures="0%", maxConcurrency="50%"),
        {G1: C[1:3], I1: C[3:7]},
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (I1, C[3], APPLYING, -60)],
        to_rollout=[(C[2], G1, FA, -120, None), (C[3], I1, PR, -60, None)],
        breach=True,
    ),
    Case(
        "test progressive rollout with mandatory decision groups failed",
        progressive(
            mandatoryDecisionGroups=MANDATORY_GROUP1, maxConcurrency=3, progressDeadline="90s"
        ),
        {G1: C[1:3], I1: C[3:5], I2: C[5:7]},
        [(G1, C[1], FAILED, -120), (G1, C[2], FAILED, -60)],
        to_rollout=[(C[2], G1, FA, -60, 30)],
        timed_out=[(C[1], G1, TI, -120, -30)],
        breach=True,
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with mandatory decision groups Succeed",
        progressive(mandatoryDecisionGroups=MANDATORY_GROUP1, maxConcurrency=3),
        {G1: C[1:3], I1: C[3:5], I2: C[5:7]},
        [(G1, C[1], DONE, -60), (G1, C[2], DONE, -120)],
        to_rollout=[
            (C[3], I1, TO, None, None),
            (C[4], I1, TO, None, None),
            (C[5], I2, TO, None, None),
        ],
    ),
]

PER_GROUP_CASES = [
    Case(
        "test progressivePerGroup rollout with timeout 90s without workload created",
        per_group(progressDeadline="90s"),
        TWO_GROUPS,
        to_rollout=[(C[n], G1, TO, None, None) for n in (1, 2, 3)],
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and all workload "
        "clusterRollOutStatus are in ToApply status",
        per_group(progressDeadline="90s"),
        TWO_GROUPS,
        ONE_APPLYING_REST_WAITING[:6],
        to_rollout=[
            (C[1], G1, PR, -60, 30),
            (C[2], G1, TO, None, None),
            (C[3], G1, TO, None, None),
        ],
        recheck_after=30,
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s",
        per_group(progressDeadline="90s"),
        TWO_GROUPS,
        DONE_FAILED_APPLYING,
        to_rollout=[(C[3], G1, PR, -60, 30)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        breach=True,
        recheck_after=30,
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and first group timeOut, maxFailures 2",
        per_group(progressDeadline="90s", maxFailures=2),
        THREE_GROUPS,
        DONE_FAILED_DONE,
        to_rollout=[(C[n], I1, TO, None, None) for n in (4, 5, 6)],
        timed_out=[(C[2], G1, TI, -120, -30)],
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and first group timeOut, second "
        "group succeeded",
        per_group(progressDeadline="90s", maxFailures=2),
        THREE_GROUPS,
        DONE_FAILED_DONE + [(I1, C[n], DONE, -60) for n in (4, 5, 6)],
        to_rollout=[(C[n], I2, TO, None, None) for n in (7, 8, 9)],
        timed_out=[(C[2], G1, TI, -120, -30)],
    ),
    Case(
        "test progressivePerGroup rollout with timeout None and first group failing",
        per_group(progressDeadline="None"),
        THREE_GROUPS,
        DONE_FAILED_DONE,
        to_rollout=[(C[2], G1, FA, -120, None)],
        breach=True,
    ),
    Case(
        "test progressivePerGroup rollout with timeout None, first group 1 cluster is failing "
        "and maxFailures is 2",
        per_group(progressDeadline="None", maxFailures=2),
        THREE_GROUPS,
        DONE_FAILED_DONE,
        to_rollout=[(C[2], G1, FA, -120, None)] + [(C[n], I1, TO, None, None) for n in (4, 5, 6)],
    ),
    Case(
        "test progressivePerGroup rollout with timeout None, first group 2 clusters are failing "
        "2 and maxFailures is 30%",
        per_group(progressDeadline="None", maxFailures="30%"),
        THREE_GROUPS,
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (G1, C[3], FAILED, -120)],
        to_rollout=[(C[2], G1, FA, -120, None), (C[3], G1, FA, -120, None)],
        breach=True,
    ),
    Case(
        "test ProgressivePerGroup rollout with mandatoryDecisionGroup failing and timeout 90s ",
        per_group(mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s"),
        TWO_GROUPS,
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -120), (G1, C[3], FAILED, -120)],
        timed_out=[(C[2], G1, TI, -120, -30), (C[3], G1, TI, -120, -30)],
        breach=True,
    ),
    Case(
        "test progressivePerGroup rollout with mandatoryDecisionGroup failing 1 cluster, "
        "timeout 90s and with maxFailures is 2",
        per_group(mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s", maxFailures=2),
        THREE_GROUPS,
        DONE_FAILED_DONE,
        timed_out=[(C[2], G1, TI, -120, -30)],
        breach=True,
    ),
    Case(
        "test ProgressivePerGroup rollout with mandatoryDecisionGroup Succeeded and timeout 90s ",
        per_group(mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s"),
        THREE_GROUPS,
        [(G1, C[n], DONE, -60) for n in (1, 2, 3)],
        to_rollout=[(C[n], I1, TO, None, None) for n in (4, 5, 6)],
    ),
    Case(
        "test progressivePerGroup rollout with minSuccessTime and mixed cluster states",
        per_group(progressDeadline="90s", maxFailures="50%", minSuccessTime="1m0s"),
        {G1: C[1:4], ("group2", 1): C[4:6]},
        [(G1, C[1], DONE, -30), (G1, C[2], DONE, -120), (G1, C[3], APPLYING, -30)],
        to_rollout=[(C[1], G1, SU, -30, 30), (C[3], G1, PR, -30, 60)],
        recheck_after=30,
    ),
]

CLUSTER_ADDED_CASES = [
    Case(
        "test rollout all with timeout 90s and cluster added",
        all_90s(),
        {G1: [C[1], C[2], C[7]], I1: C[3:7]},
        FIVE_MIXED,
        to_rollout=[
            (C[4], I1, FA, -60, 30),
            (C[5], I1, PR, -60, 30),
            (C[6], I1, TO, None, None),
            (C[7], G1, TO, None, None),
        ],
        timed_out=[(C[2], G1, TI, -120, -30), (C[3], I1, TI, -120, -30)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with mandatory decision groups Succeed and clusters added "
        "after rollout",
        progressive(
            mandatoryDecisionGroups=MANDATORY_GROUP1, maxConcurrency=3, progressDeadline="90s"
        ),
        {G1: [C[1], C[2], C[7]], I1: [C[3], C[4], C[8]], I2: [C[5], C[6], C[9]]},
        [
            (G1, C[1], DONE, -60),
            (G1, C[2], DONE, -60),
            (I1, C[3], DONE, -60),
            (I1, C[4], APPLYING, -60),
            (I2, C[5], APPLYING, -60),
        ],
        to_rollout=[(C[4], I1, PR, -60, 30), (C[5], I2, PR, -60, 30), (C[7], G1, TO, None, None)],
        recheck_after=30,
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and cluster added after rollout start.",
        per_group(progressDeadline="90s"),
        TWO_GROUPS,
        [
            (G1, C[1], DONE, -60),
            (G1, C[2], DONE, -60),
            (I1, C[4], APPLYING, -60),
            (I1, C[5], APPLYING, -60),
        ],
        to_rollout=[(C[4], I1, PR, -60, 30), (C[5], I1, PR, -60, 30), (C[3], G1, TO, None, None)],
        recheck_after=30,
    ),
]

CLUSTER_REMOVED_CASES = [
    Case(
        "test rollout all with timeout 90s and clusters removed",
        all_90s(),
        {G1: [C[1]], I1: [C[3], C[5]]},
        FIVE_MIXED,
        to_rollout=[(C[5], I1, PR, -60, 30)],
        timed_out=[(C[3], I1, TI, -120, -30)],
        removed=[(C[2], G1, FA, -120, None), (C[4], I1, FA, -60, None)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with timeout 90s, MaxFailures 100%, and cluster removed",
        progressive(progressDeadline="90s", maxFailures="100%", maxConcurrency=2),
        {G1: [C[2], C[3]], I1: C[4:7]},
        DONE_FAILED_APPLYING,
        to_rollout=[(C[3], G1, PR, -60, 30), (C[4], I1, TO, None, None)],
        timed_out=[(C[2], G1, TI, -120, -30)],
        removed=[(C[1], G1, SU, -60, None)],
        recheck_after=30,
    ),
    Case(
        "test progressive rollout with mandatoryDecisionGroup, timeout 90s and cluster removed "
        "from mandatoryDecisionGroup",
        progressive(
            mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s", maxConcurrency=2
        ),
        {G1: [C[1], C[3]], I1: C[4:7]},
        DONE_FAILED_DONE,
        to_rollout=[(C[4], I1, TO, None, None), (C[5], I1, TO, None, None)],
        removed=[(C[2], G1, FA, -120, None)],
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and cluster removed after rollout "
        "start.",
        per_group(progressDeadline="90s"),
        {G1: [C[1], C[3]], I1: C[4:7]},
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -60), (G1, C[3], APPLYING, -60)],
        to_rollout=[(C[3], G1, PR, -60, 30)],
        removed=[(C[2], G1, FA, -60, None)],
        recheck_after=30,
    ),
    Case(
        "test progressivePerGroup rollout with timeout 90s and cluster removed after rollout "
        "start while the group timeout",
        per_group(progressDeadline="90s", maxFailures=2),
        {G1: [C[1], C[3]], I1: C[4:7]},
        [(G1, C[1], DONE, -60), (G1, C[2], FAILED, -60), (G1, C[3], APPLYING, -120)],
        to_rollout=[(C[n], I1, TO, None, None) for n in (4, 5, 6)],
        timed_out=[(C[3], G1, TI, -120, -30)],
        removed=[(C[2], G1, FA, -60, None)],
    ),
    Case(
        "test ProgressivePerGroup rollout with mandatoryDecisionGroup, timeout 90s and cluster "
        "removed from mandatoryDecisionGroup",
        per_group(mandatoryDecisionGroups=MANDATORY_GROUP1, progressDeadline="90s"),
        {G1: [C[1], C[3]], I1: C[4:7], I2: C[7:10]},
        DONE_FAILED_DONE,
        to_rollout=[(C[n], I1, TO, None, None) for n in (4, 5, 6)],
        removed=[(C[2], G1, FA, -120, None)],
    ),
]

TABLES = {
    "All": ALL_CASES,
    "Progressive": PROGRESSIVE_CASES,
    "ProgressivePerGroup": PER_GROUP_CASES,
    "ClusterAdded": CLUSTER_ADDED_CASES,
    "ClusterRemoved": CLUSTER_REMOVED_CASES,
}
GET_ROLLOUT_CLUSTER = [
    pytest.param(case, id=f"TestGetRolloutCluster_{table}/{case.name}")
    for table, cases in TABLES.items()
    for case in cases
]


def test_every_upstream_case_is_here() -> None:
    assert [len(cases) for cases in TABLES.values()] == [2, 14, 12, 3, 6]


@pytest.mark.parametrize("case", GET_ROLLOUT_CLUSTER)
def test_get_rollout_cluster(case: Case) -> None:
    check(case, plan_rollout(case.strategy, case.decisions(), case.statuses(), FAKE_TIME))


# --- TestDetermineRolloutStatus ---------------------------------------------------------

NOW = 1_640_995_200 * 10**9  # fakeTime in nanoseconds since the epoch
S = 10**9
MINUTE = 60 * S


def status(value: str, transition: int | None = None, recheck: int | None = None) -> _Entry:
    # Upstream's statuses 8 and 9 (no constant of its own) go through unchanged.
    return _Entry("cluster1", GroupKey(), cast(RolloutStatus, value), transition, recheck)


DETERMINE = [
    ("ToApply status", 0, MINUTE, status(TO), [status(TO)], []),
    ("Skip status", 0, MINUTE, status("Skip"), [], []),
    ("Succeeded status", 0, MINUTE, status(SU), [], []),
    (
        "Succeeded status within the minSuccessTime",
        MINUTE,
        0,
        status(SU),
        [status(SU, None, NOW + 60 * S)],
        [],
    ),
    (
        "Succeeded status outside the minSuccessTime",
        MINUTE,
        0,
        status(SU, NOW - 120 * S),
        [],
        [],
    ),
    ("TimeOut status", 0, MINUTE, status(TI), [], []),
    (
        "Progressing status within the timeout duration",
        0,
        MINUTE,
        status(PR, NOW - 30 * S),
        [status(PR, NOW - 30 * S, NOW + 30 * S)],
        [],
    ),
    (
        "Failed status outside of the timeout duration",
        0,
        MINUTE,
        status(FA, NOW - 60 * S),
        [],
        [status(TI, NOW - 60 * S, NOW)],
    ),
    (
        "unknown status outside of the timeout duration",
        0,
        MINUTE,
        status("8", NOW - 60 * S),
        [],
        [status(TI, NOW - 60 * S, NOW)],
    ),
    (
        "unknown status within the timeout duration",
        0,
        MINUTE,
        status("9", NOW - 30 * S),
        [status("9", NOW - 30 * S, NOW + 30 * S)],
        [],
    ),
    (
        "Succeeded status with nil LastTransitionTime and minSuccessTime",
        2 * MINUTE,
        0,
        status(SU),
        [status(SU, None, NOW + 2 * MINUTE)],
        [],
    ),
]


@pytest.mark.parametrize(
    ("min_success", "timeout", "given", "rolled", "timed"),
    [pytest.param(*case[1:], id=case[0]) for case in DETERMINE],
)
def test_determine_rollout_status(
    min_success: int, timeout: int, given: _Entry, rolled: list[_Entry], timed: list[_Entry]
) -> None:
    to_rollout: list[_Entry] = []
    timed_out: list[_Entry] = []
    _determine(given, min_success, timeout, NOW, to_rollout, timed_out)
    assert (to_rollout, timed_out) == (rolled, timed)


# --- TestMinRecheckAfter ----------------------------------------------------------------

RECHECKS = [
    ("Single cluster with RecheckTime in 30s", [status(PR, None, NOW + 30 * S)], 30 * S),
    (
        "Multiple clusters, minimum RecheckTime should be selected",
        [
            status(SU, None, NOW + 60 * S),
            status(PR, None, NOW + 30 * S),
            status(PR, None, NOW + 60 * S),
        ],
        30 * S,
    ),
    (
        "Mixed timeout and soak period scenarios",
        [
            status(SU, None, NOW + 30 * S),
            status(PR, None, NOW + 30 * S),
            status(PR, None, NOW + 60 * S),
        ],
        30 * S,
    ),
    ("No RecheckTime set, should return nil", [status(TO), status(TO)], None),
    ("No clusters, should return nil", [], None),
    (
        "Only clusters with RecheckTime are considered",
        [status(TO), status(PR, None, NOW + 60 * S), status(TO)],
        60 * S,
    ),
]


@pytest.mark.parametrize(
    ("entries", "expected"), [pytest.param(*case[1:], id=case[0]) for case in RECHECKS]
)
def test_min_recheck_after(entries: list[_Entry], expected: int | None) -> None:
    assert _min_recheck_after(entries, NOW) == expected


# --- TestCalculateRolloutSize -----------------------------------------------------------

SIZES = [
    ("maxConcurrency type is int", IntOrString(50), 50),
    ("maxConcurrency type is string with percentage", IntOrString("30%"), 30),
    ("maxConcurrency type is int 0", IntOrString(0), 100),
    ("maxConcurrency type is int but out of range", IntOrString(101), 100),
    ("maxConcurrency type is string with percentage but out of range", IntOrString("200%"), 100),
]


@pytest.mark.parametrize(
    ("threshold", "expected"), [pytest.param(*case[1:], id=case[0]) for case in SIZES]
)
def test_calculate_rollout_size(threshold: IntOrString, expected: int) -> None:
    assert calculate_rollout_size(threshold, 100, 100) == expected


def test_calculate_rollout_size_string_without_percentage() -> None:
    # "maxConcurrency type is string without percentage": upstream returns its error.
    with pytest.raises(RolloutStrategyError) as caught:
        calculate_rollout_size(IntOrString("invalid"), 100, 100)
    assert str(caught.value) == (
        "'invalid' is an invalid maximum threshold value: string is not a percentage"
    )


# --- TestParseTimeout ---------------------------------------------------------------------

TIMEOUTS = [
    ("Valid timeout with hours", "2h", 2 * 60 * MINUTE),
    ("Valid timeout with minutes", "30m", 30 * MINUTE),
    ("Valid timeout with seconds", "10s", 10 * S),
    ('"None" timeout', "None", MAX_DURATION),
    ("Empty string timeout", "", MAX_DURATION),
]
BAD_TIMEOUTS = [
    ("Invalid format", "2d"),
    ("Invalid format", "0"),
    ("Invalid numeric value", "2d0s"),
    ("Invalid unit", "10g"),
]


@pytest.mark.parametrize(("text", "expected"), [pytest.param(*c[1:], id=c[0]) for c in TIMEOUTS])
def test_parse_timeout(text: str, expected: int) -> None:
    assert parse_timeout(text) == expected


@pytest.mark.parametrize("text", [pytest.param(c[1], id=f"{c[0]} {c[1]}") for c in BAD_TIMEOUTS])
def test_parse_timeout_invalid(text: str) -> None:
    with pytest.raises(RolloutStrategyError, match=r"^invalid timeout format$"):
        parse_timeout(text)


# --- TestDecisionGroupsToGroupKeys ------------------------------------------------------

GROUP_KEYS = [
    (
        "Both GroupName and GroupIndex are set",
        [MandatoryGroup("group1", 1), MandatoryGroup("group2", 2)],
        [GroupKey("group1", 0), GroupKey("group2", 0)],
    ),
    (
        "Only GroupName is set",
        [MandatoryGroup("group1"), MandatoryGroup("group2")],
        [GroupKey("group1", 0), GroupKey("group2", 0)],
    ),
    (
        "Only GroupIndex is set",
        [MandatoryGroup(group_index=1), MandatoryGroup(group_index=2)],
        [GroupKey("", 1), GroupKey("", 2)],
    ),
    ("Both GroupName and GroupIndex are empty", [MandatoryGroup()], [GroupKey("", 0)]),
    ("Empty MandatoryDecisionGroup", [], []),
]


@pytest.mark.parametrize(
    ("groups", "expected"), [pytest.param(*c[1:], id=c[0]) for c in GROUP_KEYS]
)
def test_decision_groups_to_group_keys(
    groups: list[MandatoryGroup], expected: list[GroupKey]
) -> None:
    assert _mandatory_keys(groups) == expected
