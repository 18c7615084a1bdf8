"""No benchmark scenario may time an answer its own setup remembered (issue 13).

Each in-process scenario of ``benchmarks.scenarios.SCENARIOS`` is prepared at its CI
size and its timed calls are run, exactly as the harness runs them, with counters on
the places where the work is done: clusters judged by each filter, clusters given a
score by a prioritizer, label requirements evaluated, documents decoded. A call served
from a memo (a remembered filter chain, shared scores of the same placement, a cached
result) skips those places, so its counts fall below the floor the scenario's size
implies and the test fails. The last test shows that the old S2 (the same placement
scheduled twice on one snapshot, the second timed) is caught.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from benchmarks.fleets import S2_PLACEMENT, s2_fleet
from benchmarks.scenarios import NOW, SCENARIOS, Scenario
from benchmarks.timed import Timed

from benchmarks import scenarios
from clusterplace import codecs, labels
from clusterplace.api import Fleet
from clusterplace.scheduling import decisions, scheduler
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.balance import BalancePrioritizer
from clusterplace.scheduling.prioritizers.resource import ResourcePrioritizer
from clusterplace.scheduling.prioritizers.steady import SteadyPrioritizer
from clusterplace.scheduling.scheduler import schedule_one
from clusterplace.scheduling.snapshot import Snapshot

Size = dict[str, int]

# Scenarios timed in another process (the CLI, the controller, route's writer): their
# inputs are files written fresh for each run, so there is nothing in-process to memo.
OUT_OF_PROCESS = {
    "S1-e2e-json",
    "S1-e2e-yaml",
    "S6-e2e-schedule",
    "S6-e2e-explain",
    "route-writes",
    # route as its own process on inputs written fresh for each run, into a fresh folder
    # (beside a plain loop writing the same files).
    "route-1000x1000",
    "route-1000x1000-rerun",
    "route-1000x1000-one",
    # route --watch in its own process on files written fresh for each run.
    "W1-cold-start",
    "W2-relabel-p50",
    "W2-relabel-p99",
    "C1-cold-start",
    "C2-latency-p50",
    "C2-latency-p99",
    # Each a CLI process on S1 written fresh as a hub folder for the run.
    "C3-s1-once",
    "C3-s1-schedule",
    # A controller against a fresh API emulator for each run: every change is a real
    # watch event, sync and write.
    "K1-cold-start",
    "K2-latency-p50",
    "K2-latency-p99",
    "K3-throughput",
}

# Scenarios that time requests to a live explorer built for the run: each request is a
# page rendered afresh (E1: explanations not cached), a what-if of another cluster (E2:
# an edit and its undo, each rescheduling what the edit reaches) or another page of the
# heatmap (E3: every cell read from the scheduled results and encoded), or another page of
# the placement list, filtered or not (E4 the page, E5 the API: every placement filtered
# and sorted, the page's rows built), or a change to the source until the changed
# placement's page shows it (E6/E7: each change is another object, followed or the fleet
# scheduled again whole, and the page explained afresh). R1/R2 time a delivery
# controller on files: each step is a real sync that writes works, and checks that the
# rollout moved (R1: the next work written; R2: every cluster's work, and Complete).
SELF_TIMED = {
    "E1-placement-page",
    "E2-what-if",
    "E3-heatmap",
    "E4-placement-list",
    "E5-placement-list-api",
    "E6-follow-placement",
    "E6-rebuild-placement",
    "E7-follow-other",
    "E7-rebuild-other",
    "R1-status-p50",
    "R1-status-p99",
    "R2-full-rollout",
}


def _s1(size: Size) -> dict[str, int]:
    placements, clusters = size["placements"], size["clusters"]
    # S1's placements are all of one kind (same candidates, filters and policy): the run
    # filters every cluster once for all of them (the shared part of the pipeline, built
    # within the timed call), and Balance (which reads the decisions of the placements
    # before it) scores every cluster for every placement.
    return {
        "filter runs": 1,
        "taint": clusters,
        "scored": placements * clusters,
    }


def _s2(size: Size) -> dict[str, int]:
    # Every cluster is a candidate the predicate judges; both resource prioritizers
    # score at least the 100 clusters the placement asks for.
    return {"filter runs": 1, "predicate": size["clusters"], "scored": 2 * 100}


def _s3(size: Size) -> dict[str, int]:
    # Two of every three changes are to a cluster's labels or taints, which the
    # placements over it must judge again.
    return {"predicate": 2 * size["changes"] // 3}


def _s1_outputs(size: Size) -> dict[str, int]:
    # ... and every placement's status, events and PlacementDecision objects are built.
    placements = size["placements"]
    return {
        **_s1(size),
        "event lists": placements,
        "statuses": placements,
        "decision objects": placements,
    }


FLOORS: dict[str, Callable[[Size], dict[str, int]]] = {
    "S1": _s1,
    "S1-outputs": _s1_outputs,
    "S2": _s2,
    "S2-cold": _s2,
    "S3": _s3,
    "S3-global": _s3,
    "S4": lambda size: {"documents": size["clusters"], "objects": size["clusters"]},
    "S5-index": lambda size: {"requirements": 5},
    "S5-matches": lambda size: {"matches": size["calls"]},
}


def _counting(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    method: str,
    counts: Counter[str],
    count: Callable[..., dict[str, int]],
) -> None:
    """Wrap ``owner.method`` so each call adds ``count(*args)`` to ``counts``."""
    original = getattr(owner, method)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        counts.update(count(*args, **kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, method, wrapper)


def _instrument(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()

    def judged(kind: str) -> Callable[..., dict[str, int]]:
        def count(plugin: object, ctx: Context, positions: np.ndarray) -> dict[str, int]:
            if kind == "predicate" and not ctx.placement.spec.predicates:
                return {"filter runs": 1}
            return {kind: len(positions), **({"filter runs": 1} if kind == "predicate" else {})}

        return count

    def scored(plugin: object, ctx: Context, positions: np.ndarray) -> dict[str, int]:
        return {"scored": len(positions)}

    _counting(monkeypatch, PredicateFilter, "filter_positions", counts, judged("predicate"))
    _counting(monkeypatch, TaintTolerationFilter, "filter_positions", counts, judged("taint"))
    for computed in (ResourcePrioritizer, AddOnPrioritizer):  # through SharedScores
        _counting(monkeypatch, computed, "_score", counts, scored)
    for direct in (BalancePrioritizer, SteadyPrioritizer):
        _counting(monkeypatch, direct, "score_positions", counts, scored)
    _counting(
        monkeypatch,
        labels.LabelIndex,
        "_requirement",
        counts,
        lambda index, req: {"requirements": 1},
    )
    _counting(monkeypatch, labels.Selector, "matches", counts, lambda sel, lab: {"matches": 1})
    _counting(monkeypatch, scheduler, "_events", counts, lambda *args: {"event lists": 1})
    _counting(monkeypatch, scheduler, "_new_status", counts, lambda *args: {"statuses": 1})
    _counting(monkeypatch, decisions, "_build", counts, lambda *args: {"decision objects": 1})
    _counting(
        monkeypatch,
        scenarios,
        "read_documents",
        counts,
        lambda sources: {"documents": sum(s.text.count("kind: ManagedCluster") for s in sources)},
    )

    def decode(documents: Any, **kwargs: Any) -> Any:
        loaded = codecs.decode(documents, **kwargs)
        counts["objects"] += len(loaded.objects)
        return loaded

    monkeypatch.setattr("benchmarks.scenarios.decode", decode)
    return counts


def _timed_work(monkeypatch: pytest.MonkeyPatch, timed: Timed) -> Counter[str]:
    """The counts of the timed calls alone (preparation already ran, uncounted)."""
    counts = _instrument(monkeypatch)
    total: Counter[str] = Counter()
    # A step's input may be built as the next step is asked for (S3): that is not
    # timed, so only what each step itself does is added up.
    for step in timed.steps:
        counts.clear()
        step()
        total += counts
    return total


IN_PROCESS = [s for s in SCENARIOS if s.prepare is not None]


def test_every_scenario_is_checked_or_out_of_process() -> None:
    for scenario in SCENARIOS:
        if scenario.prepare is None:
            assert scenario.name in OUT_OF_PROCESS | SELF_TIMED, scenario.name
        else:
            assert scenario.name in FLOORS, f"{scenario.name}: no work floor"


@pytest.mark.parametrize("scenario", IN_PROCESS, ids=lambda s: s.name)
def test_timed_calls_do_the_work_of_a_real_run(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert scenario.prepare is not None
    timed = scenario.prepare(scenario.quick)
    counts = _timed_work(monkeypatch, timed)
    floor = FLOORS[scenario.name](scenario.quick)
    short = {k: (counts[k], v) for k, v in floor.items() if counts[k] < v}
    assert not short, f"{scenario.name}: (done, expected at least) {short}"


def test_a_timed_call_served_from_a_memo_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old S2: the same placement scheduled on the same snapshot before the clock
    starts. Its filter chain is remembered, so the timed call judges no cluster."""
    size = next(s for s in SCENARIOS if s.name == "S2").quick
    fleet = Fleet.of(s2_fleet(size["clusters"]))
    snapshot = Snapshot(fleet)
    placement = fleet.placements[S2_PLACEMENT]
    schedule_one(snapshot, placement, NOW)
    counts = _timed_work(monkeypatch, Timed.one(lambda: schedule_one(snapshot, placement, NOW), 1))
    assert counts["predicate"] < _s2(size)["predicate"]
