"""The benchmark scenarios. Each takes a size and returns (seconds, work units) for one
run; the harness runs it in a fresh process per repeat and takes the median.

Every timed call does the work a real run does. Work that is warm before the clock
starts is only work another placement or an earlier run really shares, and each such
scenario says which in its ``prepare`` function."""

from __future__ import annotations

import random
import resource
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from benchmarks import fleets
from benchmarks.controller import run_change_latency, run_cold_start, run_s1_process
from benchmarks.controller_kube import run_kube
from benchmarks.end_to_end import run_s1_e2e, run_s6_e2e
from benchmarks.rollout import run_full_rollout, run_status_latency
from benchmarks.route_big import run_route_big, run_route_big_one, run_route_big_rerun
from benchmarks.route_watch import run_watch_cold, run_watch_relabel
from benchmarks.route_writes import run_route_writes
from benchmarks.timed import Timed, run_timed
from clusterplace import labels
from clusterplace.api import Fleet, KubeObject, ManagedCluster
from clusterplace.codecs import Source, decode, read_documents
from clusterplace.collector import collector_paused
from clusterplace.scheduling import PlacementResult, ScheduleResult, schedule
from clusterplace.scheduling.incremental import IncrementalSchedule
from clusterplace.scheduling.scheduler import schedule_one
from clusterplace.scheduling.snapshot import Snapshot

NOW = datetime(2026, 11, 22, tzinfo=UTC)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    unit: str
    sizes: dict[str, int]  # full size
    quick: dict[str, int]  # CI size
    # -> (seconds, units of work), and with ``versus`` the baseline's seconds in that run
    run: Callable[[dict[str, int]], tuple[float, float] | tuple[float, float, float]]
    target: float | None = None  # seconds, at full size (with ``versus``: times the baseline)
    # In-process scenarios: what ``run`` times, prepared (the honesty test runs it too).
    prepare: Callable[[dict[str, int]], Timed] | None = None
    versus: str | None = None  # the baseline each run also measures, if any


def in_process(
    name: str,
    description: str,
    unit: str,
    sizes: dict[str, int],
    quick: dict[str, int],
    prepare: Callable[[dict[str, int]], Timed],
    target: float | None = None,
) -> Scenario:
    """A scenario whose run is ``prepare`` (untimed) and then its timed calls."""
    run = lambda size: run_timed(prepare(size))  # noqa: E731
    return Scenario(name, description, unit, sizes, quick, run, target, prepare)


def prepare_s1(size: dict[str, int]) -> Timed:
    fleet = Fleet.of(fleets.s1_fleet(size["clusters"], size["placements"]))
    return Timed.one(lambda: schedule(fleet, now=NOW), size["placements"])


def prepare_s1_outputs(size: dict[str, int]) -> Timed:
    """S1, then every placement's new status, decisions and events read, as the
    controller and ``-o yaml`` do (all are built when first read, so S1 alone builds
    none of them: its decisions are counted by cluster)."""
    fleet = Fleet.of(fleets.s1_fleet(size["clusters"], size["placements"]))

    def call() -> int:
        results = schedule(fleet, now=NOW).placements
        return sum(len(r.events) + len(r.decisions) + bool(r.placement.status) for r in results)

    return Timed.one(call, size["placements"])


def prepare_s2(size: dict[str, int]) -> Timed:
    """The indexes another placement really shares (candidate list, allocatable
    amounts, label and claim columns) are built by scheduling S2's warm-up placement,
    whose predicates differ (other region, other platforms): nothing the timed
    placement computes is remembered from it."""
    objects = fleets.s2_fleet(size["clusters"])
    fleet = Fleet.of([*objects, fleets.s2_warm_placement()])
    snapshot = Snapshot(fleet)
    schedule_one(snapshot, fleet.placements[fleets.S2_WARM], NOW)
    placement = fleet.placements[fleets.S2_PLACEMENT]

    def call() -> PlacementResult:
        # As schedule() runs every placement: with the cyclic collector paused (else a
        # collection the setup's allocations left due can land in the timed call).
        with collector_paused():
            return schedule_one(snapshot, placement, NOW)

    return Timed.one(call, 1)


def prepare_s2_cold(size: dict[str, int]) -> Timed:
    """The whole run of S2's one placement: the snapshot, every index, the schedule."""
    fleet = Fleet.of(fleets.s2_fleet(size["clusters"]))
    return Timed.one(lambda: schedule(fleet, now=NOW), size["clusters"])


def _changed_cluster(cluster: ManagedCluster, k: int, rng: random.Random) -> ManagedCluster:
    """Cluster ``cluster`` after change ``k``: its environment label, its taints, in turn."""
    body = cluster.to_dict()
    if k % 2 == 0:
        labels = body["metadata"]["labels"]
        labels["environment"] = rng.choice(
            [e for e in fleets.ENVIRONMENTS if e != labels.get("environment")]
        )
    else:
        spec = body.setdefault("spec", {})
        unreachable = {"key": f"{fleets.G}/unreachable", "effect": "NoSelect"}
        spec["taints"] = [] if spec.get("taints") else [unreachable]
    return ManagedCluster.model_validate(body)


def prepare_s3(size: dict[str, int], scoped: bool = True) -> Timed:
    """Each step is one change (a label, a taint or an add-on score, in turn) to an
    already scheduled fleet: the engine's earlier run is what a live hub really keeps.
    The run's figure is the median step; afterwards the result is checked against a
    full reschedule."""
    fleet = Fleet.of(fleets.s3_fleet(size["clusters"], size["placements"], scoped))
    engine = IncrementalSchedule(fleet, now=NOW)
    rng = random.Random(17)

    def steps() -> Iterator[Callable[[], object]]:
        for k in range(size["changes"]):
            i = rng.randrange(size["clusters"])
            if k % 3 == 2:
                change: KubeObject = fleets.score_object(i, rng.randint(0, 100))
            else:
                change = _changed_cluster(engine.fleet.clusters[f"cluster{i}"], k, rng)
            yield partial(engine.apply, change)

    def check() -> None:
        full = schedule(engine.fleet, now=NOW)
        if _observed(engine.result) != _observed(full):
            raise AssertionError("S3: the incremental result differs from a full reschedule")

    return Timed.median_of(steps(), check)


def _observed(result: ScheduleResult) -> list[object]:
    return [
        (r.placement.model_dump(), [pd.model_dump() for pd in r.decisions], r.events)
        for r in result.placements
    ]


def prepare_s4(size: dict[str, int]) -> Timed:
    text = fleets.clusters_yaml(size["clusters"])
    return Timed.one(
        lambda: decode(read_documents([Source("clusters.yaml", text)])), size["clusters"]
    )


SELECTOR_5 = "provider in (aws,gcp),environment!=development,tier,!deprecated,kubernetes-minor>28"


def prepare_s5_matches(size: dict[str, int]) -> Timed:
    selector = labels.parse(SELECTOR_5)
    rng = random.Random(3)
    sets = [
        {
            "provider": rng.choice(fleets.PROVIDERS),
            "environment": rng.choice(fleets.ENVIRONMENTS),
            "tier": "gold",
            "kubernetes-minor": str(rng.randint(27, 31)),
        }
        for _ in range(1000)
    ]
    n = size["calls"]

    def call() -> None:
        matches = selector.matches
        for i in range(n):
            matches(sets[i % 1000])

    return Timed.one(call, n)


def _label_sets(count: int, seed: int = 5) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [
        {
            "provider": rng.choice(fleets.PROVIDERS),
            "region": fleets.REGIONS[i % 3],
            "environment": rng.choice(fleets.ENVIRONMENTS),
            "tier": rng.choice(fleets.TIERS),
            "kubernetes-minor": str(rng.randint(27, 31)),
            **({"deprecated": "true"} if i % 50 == 0 else {}),
        }
        for i in range(count)
    ]


def prepare_s5_index(size: dict[str, int]) -> Timed:
    """The index is built beforehand (untimed): it is what every selector shares."""
    index = labels.LabelIndex(_label_sets(size["clusters"]))
    selector = labels.parse(SELECTOR_5)
    return Timed.one(lambda: index.positions(selector), size["clusters"])


def _explorer_page(size: dict[str, int]) -> tuple[float, float]:
    """Server time of one placement page (every cluster's fate, rendered) on S1."""
    from benchmarks.explorer import placement_page_seconds

    return placement_page_seconds(size), 1


def _explorer_list(size: dict[str, int]) -> tuple[float, float]:
    """Server time of a page of the Placements list (HTML), filtered or not, on S1."""
    from benchmarks.explorer import placement_list_seconds

    return placement_list_seconds(size, api=False), 1


def _explorer_list_api(size: dict[str, int]) -> tuple[float, float]:
    """Server time of a page of GET /api/placements, filtered or not, on S1."""
    from benchmarks.explorer import placement_list_seconds

    return placement_list_seconds(size, api=True), 1


def _explorer_heatmap(size: dict[str, int]) -> tuple[float, float]:
    """Server time of a heatmap page (250 placements x every cluster) on S1."""
    from benchmarks.explorer import heatmap_seconds

    return heatmap_seconds(size), 1


def _explorer_what_if(size: dict[str, int]) -> tuple[float, float]:
    """Median what-if (a label edit, diffed, undone) on the S3 fleet."""
    from benchmarks.explorer import what_if_seconds

    return what_if_seconds(size), 1


def _explorer_follow(kind: str, rebuild: bool) -> Callable[[dict[str, int]], tuple[float, float]]:
    """A change to the source until the changed placement's page: followed, or rebuilt."""

    def run(size: dict[str, int]) -> tuple[float, float]:
        from benchmarks.explorer import follow_seconds

        return follow_seconds(size, kind=kind, rebuild=rebuild), 1

    return run


SCENARIOS = [
    in_process(
        "S1",
        "OCM benchmark: schedule every placement (one run, nothing warmed; outputs built on read)",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 50},
        prepare_s1,
        0.29,  # 180 times OCM's Go scheduler on a quiet machine (51.8 s)
    ),
    in_process(
        "S1-outputs",
        "S1 with every placement's new status, decisions and events read",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 50},
        prepare_s1_outputs,
    ),
    in_process(
        "S2",
        "one placement over a large fleet; indexes warmed by a placement with other predicates",
        "schedules",
        {"clusters": 100000},
        {"clusters": 2000},
        prepare_s2,
        0.05,
    ),
    in_process(
        "S2-cold",
        "S2's whole run: snapshot, indexes and schedule of its one placement",
        "clusters",
        {"clusters": 100000},
        {"clusters": 2000},
        prepare_s2_cold,
        0.5,
    ),
    in_process(
        "S3",
        "one change to a scheduled fleet (team cluster sets), median",
        "changes",
        {"clusters": 5000, "placements": 5000, "changes": 60},
        {"clusters": 200, "placements": 200, "changes": 12},
        prepare_s3,
        0.02,
    ),
    in_process(
        "S3-global",
        "the same with every cluster in one set bound everywhere",
        "changes",
        {"clusters": 5000, "placements": 5000, "changes": 60},
        {"clusters": 200, "placements": 200, "changes": 12},
        lambda size: prepare_s3(size, scoped=False),
        0.02,
    ),
    in_process(
        "S4",
        "load ManagedCluster YAML into typed objects",
        "clusters",
        {"clusters": 10000},
        {"clusters": 200},
        prepare_s4,
        1.5,
    ),
    in_process(
        "S5-index",
        "selector over an indexed fleet (5 requirements)",
        "clusters",
        {"clusters": 1000000},
        {"clusters": 20000},
        prepare_s5_index,
        0.05,
    ),
    Scenario(
        "S1-e2e-json",
        "S1 through the CLI: schedule -o json of a fleet file",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 50, "placements": 20},
        lambda size: run_s1_e2e(size, "json"),
        1.04,  # 50 times OCM's Go scheduler in process, on a quiet machine (51.8 s)
    ),
    Scenario(
        "S1-e2e-yaml",
        "S1 through the CLI: schedule -o yaml of a fleet file",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 50, "placements": 20},
        lambda size: run_s1_e2e(size, "yaml"),
        3.5,
    ),
    Scenario(
        "S6-e2e-schedule",
        "100,000 clusters x 20 placements through the CLI: schedule -o json",
        "clusters",
        {"clusters": 100000, "placements": 20},
        {"clusters": 500, "placements": 3},
        lambda size: run_s6_e2e(size, "schedule"),
        None,
    ),
    Scenario(
        "S6-e2e-explain",
        "the same fleet: explain one placement",
        "clusters",
        {"clusters": 100000, "placements": 20},
        {"clusters": 500, "placements": 3},
        lambda size: run_s6_e2e(size, "explain"),
        None,
    ),
    Scenario(
        "route-writes",
        "route: first, crash-safe write of every copy",
        "files",
        {"objects": 2000, "clusters": 30},
        {"objects": 50, "clusters": 4},
        run_route_writes,
        None,
    ),
    Scenario(
        "route-1000x1000",
        "route: 1,000 objects to 1,000 clusters into an empty folder (the CLI, start to exit)",
        "files",
        {"objects": 1000, "clusters": 1000},
        {"objects": 40, "clusters": 40},
        run_route_big,
        3.0,
        versus="plain loop",
    ),
    Scenario(
        "route-1000x1000-rerun",
        "route: the same again, nothing changed (no file written)",
        "files",
        {"objects": 1000, "clusters": 1000},
        {"objects": 40, "clusters": 40},
        run_route_big_rerun,
        None,
    ),
    Scenario(
        "route-1000x1000-one",
        "route: one Deployment changed (only its copies rewritten)",
        "files",
        {"objects": 1000, "clusters": 1000},
        {"objects": 40, "clusters": 40},
        run_route_big_one,
        None,
    ),
    Scenario(
        "W1-cold-start",
        "route --watch: process start to every copy written, watching",
        "files",
        {"clusters": 1000, "objects": 1000, "changes": 0},
        {"clusters": 50, "objects": 50, "changes": 0},
        run_watch_cold,
        None,
    ),
    Scenario(
        "W2-relabel-p50",
        "route --watch: a cluster file relabelled to its copies written, median",
        "changes",
        {"clusters": 1000, "objects": 1000, "changes": 40},
        {"clusters": 50, "objects": 50, "changes": 5},
        run_watch_relabel,
        None,
    ),
    Scenario(
        "W2-relabel-p99",
        "the same, 99th percentile",
        "changes",
        {"clusters": 1000, "objects": 1000, "changes": 40},
        {"clusters": 50, "objects": 50, "changes": 5},
        lambda size: run_watch_relabel(size, 0.99),
        1.0,
    ),
    Scenario(
        "C1-cold-start",
        "controller --hub --once: every placement scheduled and written",
        "placements",
        {"clusters": 5000, "placements": 10000},
        {"clusters": 100, "placements": 100},
        run_cold_start,
        10.0,
    ),
    Scenario(
        "C3-s1-once",
        "controller --hub --once as a process on S1 (compare C3-s1-schedule: at most 2x)",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 100},
        lambda size: run_s1_process(size, "once"),
        None,
    ),
    Scenario(
        "C3-s1-schedule",
        "schedule -f DIR -o json as a process on the same S1 hub folder",
        "placements",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 100},
        lambda size: run_s1_process(size, "schedule"),
        None,
    ),
    Scenario(
        "C2-latency-p50",
        "controller: a cluster label change to its files written, median",
        "changes",
        {"clusters": 5000, "placements": 5000, "changes": 40},
        {"clusters": 100, "placements": 100, "changes": 5},
        run_change_latency,
        None,
    ),
    Scenario(
        "C2-latency-p99",
        "the same, 99th percentile",
        "changes",
        {"clusters": 5000, "placements": 5000, "changes": 40},
        {"clusters": 100, "placements": 100, "changes": 5},
        lambda size: run_change_latency(size, 0.99),
        0.1,
    ),
    Scenario(
        "R1-status-p50",
        "rollout: a work reported done -> the next work written, median",
        "changes",
        {"clusters": 1000, "groups": 10, "concurrency": 50, "changes": 200},
        {"clusters": 100, "groups": 10, "concurrency": 5, "changes": 10},
        run_status_latency,
        None,
    ),
    Scenario(
        "R1-status-p99",
        "the same, 99th percentile",
        "changes",
        {"clusters": 1000, "groups": 10, "concurrency": 50, "changes": 200},
        {"clusters": 100, "groups": 10, "concurrency": 5, "changes": 10},
        lambda size: run_status_latency(size, 0.99),
        None,
    ),
    Scenario(
        "R2-full-rollout",
        "rollout: every cluster's work written and reported done, to Complete",
        "clusters",
        {"clusters": 1000, "groups": 10, "concurrency": 50},
        {"clusters": 100, "groups": 10, "concurrency": 5},
        run_full_rollout,
        None,
    ),
    Scenario(
        "K1-cold-start",
        "controller --kubeconfig (emulator): list, schedule and write every placement",
        "placements",
        {"clusters": 1000, "placements": 1000},
        {"clusters": 30, "placements": 30},
        lambda size: run_kube(size, "cold"),
        None,
    ),
    Scenario(
        "K2-latency-p50",
        "emulator: a cluster label PATCH to the last API write it causes, median",
        "changes",
        {"clusters": 1000, "placements": 1000, "changes": 40},
        {"clusters": 30, "placements": 30, "changes": 3},
        lambda size: run_kube(size, "p50"),
        None,
    ),
    Scenario(
        "K2-latency-p99",
        "the same, 99th percentile",
        "changes",
        {"clusters": 1000, "placements": 1000, "changes": 40},
        {"clusters": 30, "placements": 30, "changes": 3},
        lambda size: run_kube(size, "p99"),
        None,
    ),
    Scenario(
        "K3-throughput",
        "emulator: label PATCHes back to back until every write they cause is done",
        "changes",
        {"clusters": 1000, "placements": 1000, "changes": 200},
        {"clusters": 30, "placements": 30, "changes": 10},
        lambda size: run_kube(size, "throughput"),
        None,
    ),
    Scenario(
        "E1-placement-page",
        "explorer: a placement page of the S1 fleet, server time",
        "pages",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 20},
        _explorer_page,
        0.3,
    ),
    Scenario(
        "E4-placement-list",
        "explorer: a page of the Placements list (100 of 5,000), filtered or not, server time",
        "pages",
        {"clusters": 1000, "placements": 5000},
        {"clusters": 100, "placements": 300},
        _explorer_list,
        0.3,
    ),
    Scenario(
        "E5-placement-list-api",
        "explorer: a page of GET /api/placements (100 of 5,000), filtered or not, server time",
        "pages",
        {"clusters": 1000, "placements": 5000},
        {"clusters": 100, "placements": 300},
        _explorer_list_api,
        0.3,
    ),
    Scenario(
        "E3-heatmap",
        "explorer: a heatmap page (250 placements x 1,000 clusters) of the S1 fleet",
        "pages",
        {"clusters": 1000, "placements": 10000},
        {"clusters": 100, "placements": 20},
        _explorer_heatmap,
        0.3,
    ),
    Scenario(
        "E2-what-if",
        "explorer: what-if of a label edit on the S3 fleet, median",
        "what-ifs",
        {"clusters": 5000, "placements": 5000, "changes": 20},
        {"clusters": 200, "placements": 200, "changes": 4},
        _explorer_what_if,
        0.1,
    ),
    Scenario(
        "E6-follow-placement",
        "explorer: a placement edited until its page shows it, followed (S3, 5,000 x 1,000)",
        "changes",
        {"clusters": 1000, "placements": 5000, "changes": 12},
        {"clusters": 100, "placements": 300, "changes": 4},
        _explorer_follow("placement", rebuild=False),
        0.3,
    ),
    Scenario(
        "E6-rebuild-placement",
        "explorer: a placement edited until its page shows it, the fleet scheduled again whole",
        "changes",
        {"clusters": 1000, "placements": 5000, "changes": 12},
        {"clusters": 100, "placements": 300, "changes": 4},
        _explorer_follow("placement", rebuild=True),
        None,
    ),
    Scenario(
        "E7-follow-other",
        "explorer: placement created/deleted, binding, decision, until a page shows it, followed",
        "changes",
        {"clusters": 1000, "placements": 5000, "changes": 12},
        {"clusters": 100, "placements": 300, "changes": 4},
        _explorer_follow("other", rebuild=False),
        0.3,
    ),
    Scenario(
        "E7-rebuild-other",
        "explorer: the same changes, the fleet scheduled again whole",
        "changes",
        {"clusters": 1000, "placements": 5000, "changes": 12},
        {"clusters": 100, "placements": 300, "changes": 4},
        _explorer_follow("other", rebuild=True),
        None,
    ),
    in_process(
        "S5-matches",
        "Selector.matches on one label set",
        "calls",
        {"calls": 1000000},
        {"calls": 20000},
        prepare_s5_matches,
    ),
]


def run_in_child(name: str, size: dict[str, int], queue: Any) -> None:
    """Run scenario ``name`` once in this (fresh) process; report the run and the
    process's peak resident memory (KiB). One process per run: nothing a run
    remembers (memo tables, module caches) can serve the next."""
    scenario = next(s for s in SCENARIOS if s.name == name)
    queue.put((scenario.run(size), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
