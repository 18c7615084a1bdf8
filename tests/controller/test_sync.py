"""One sync at a time: the writes, their order, the events, the requeues."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import KubeObject, Placement, PlacementDecision
from clusterplace.controller import Engine, ObjectChange, Reconciler
from clusterplace.controller.sync import SyncPlan, plan_sync
from clusterplace.scheduling import schedule
from tests.support.builders import (
    NOW,
    NS,
    PLACEMENT,
    addon,
    binding,
    cluster,
    cluster_set,
    decision,
    placement,
    score,
    taint,
    toleration,
    world,
)
from tests.support.sinks import Clocks, MemorySink, drain, make_reconciler
from tests.support.worlds import any_change, worlds

KubeObjectT = TypeVar("KubeObjectT", bound=KubeObject)

KEY = (NS, PLACEMENT)


def _clusters(n: int) -> list[KubeObject]:
    return [cluster(f"c{i:03d}") for i in range(n)]


def _decisions(reconciler: Reconciler) -> dict[str, list[str]]:
    return {pd.name: pd.cluster_names for pd in reconciler.state.owned(KEY)}


def _unversioned(obj: KubeObjectT | None) -> KubeObjectT | None:
    if obj is None:
        return None
    meta = obj.metadata.model_copy(update={"resource_version": None})
    return obj.model_copy(update={"metadata": meta})


def test_a_cold_start_decides_exactly_as_an_offline_run() -> None:
    objects = [
        *world(*_clusters(130)),
        placement(NS, "three", numberOfClusters=3),
        placement("other", "p"),
        binding("other"),
    ]
    reconciler, sink, _ = make_reconciler(objects)
    drain(reconciler)
    offline = schedule(objects, now=NOW)
    for result in offline.placements:
        key = (result.placement.namespace, result.placement.name)
        # The hub gave each write a resourceVersion; the objects are the offline run's.
        assert _unversioned(reconciler.state.placement(key)) == result.placement
        assert [_unversioned(pd) for pd in reconciler.state.owned(key)] == result.decisions
    assert [e for _, _, e in sink.events] == [e for r in offline.placements for e in r.events]


def test_a_converged_hub_is_synced_without_a_write_or_an_event() -> None:
    reconciler, sink, _ = make_reconciler(world(*_clusters(5)))
    drain(reconciler)
    writes, events = len(sink.log), len(sink.events)
    reconciler.engine.enqueue_all()
    assert drain(reconciler) == 1
    assert (len(sink.log), len(sink.events)) == (writes, events)


def _check_never_lost(before: dict[str, list[str]], sink: MemorySink, start: int) -> None:
    """Replay the decision writes from ``start``: a cluster selected before and after
    the sync is in some decision at every moment."""
    state = {name: set(clusters) for name, clusters in before.items()}
    writes = [w for w in sink.log[start:] if w[0] in ("create", "update", "delete")]
    after = dict(state)
    for action, _, name, obj in writes:
        if action == "delete":
            after.pop(name, None)
        else:
            assert isinstance(obj, PlacementDecision)
            after[name] = set(obj.cluster_names)
    final = set().union(*after.values()) if after else set()
    kept = set().union(*state.values()) & final if state else set()
    for action, _, name, obj in writes:
        if action == "delete":
            state.pop(name, None)
        else:
            assert isinstance(obj, PlacementDecision)
            state[name] = set(obj.cluster_names)
        present = set().union(*state.values()) if state else set()
        assert kept <= present, f"after {action} {name}: {sorted(kept - present)} missing"


def test_a_cluster_moving_between_pages_is_never_absent_from_every_decision() -> None:
    reconciler, sink, _ = make_reconciler(world(*_clusters(150)))
    drain(reconciler)
    before = _decisions(reconciler)
    start = len(sink.log)
    # c050 goes: every later cluster moves up one place, c100 from page 2 to page 1.
    reconciler.engine.observe([ObjectChange(cluster("c050"), None)])
    drain(reconciler)
    actions = [(a, n) for a, _, n, _ in sink.log[start:]]
    assert actions == [
        ("update", f"{PLACEMENT}-decision-1"),  # the union: c100 added, c050 still there
        ("update", f"{PLACEMENT}-decision-1"),  # c050 removed
        ("update", f"{PLACEMENT}-decision-2"),  # c100 removed
        ("status", PLACEMENT),
    ]
    _check_never_lost(before, sink, start)


@given(
    st.integers(min_value=90, max_value=230),
    st.lists(st.integers(min_value=0, max_value=260), min_size=1, max_size=6),
)
def test_no_change_of_membership_ever_opens_a_loss_window(n: int, flips: list[int]) -> None:
    reconciler, sink, _ = make_reconciler(world(*_clusters(n)))
    drain(reconciler)
    members = set(range(n))
    for flip in flips:
        before = _decisions(reconciler)
        start = len(sink.log)
        name = f"c{flip:03d}"
        if flip in members:
            members.discard(flip)
            reconciler.engine.observe([ObjectChange(cluster(name), None)])
        else:
            members.add(flip)
            reconciler.engine.observe([ObjectChange(None, cluster(name))])
        drain(reconciler)
        _check_never_lost(before, sink, start)
        expected = sorted(f"c{i:03d}" for i in members)
        assert sorted(c for cs in _decisions(reconciler).values() for c in cs) == expected


def test_a_page_no_longer_needed_is_deleted_last() -> None:
    reconciler, sink, _ = make_reconciler(world(*_clusters(101)))
    drain(reconciler)
    start = len(sink.log)
    reconciler.engine.observe([ObjectChange(cluster("c100"), None)])
    drain(reconciler)
    assert [(a, n) for a, _, n, _ in sink.log[start:]] == [
        ("delete", f"{PLACEMENT}-decision-2"),
        ("status", PLACEMENT),
    ]
    assert [e.reason for _, _, e in sink.events[-1:]] == ["DecisionDelete"]


def test_only_labels_differing_is_written_without_an_event() -> None:
    stale = decision(clusters=["c000"], group_name="old", group_index=0)
    reconciler, sink, _ = make_reconciler([*world(*_clusters(1)), stale])
    drain(reconciler)
    writes = [(a, n) for a, _, n, _ in sink.log if a != "status"]
    assert writes == [("update", f"{PLACEMENT}-decision-1")]
    assert [e.reason for _, _, e in sink.events] == []
    (pd,) = reconciler.state.owned(KEY)
    assert pd.labels["cluster.open-cluster-management.io/decision-group-name"] == ""


def test_a_failed_write_emits_only_what_was_written_and_retries_with_backoff() -> None:
    sink = MemorySink(fail_after=1)
    reconciler, sink, clocks = make_reconciler(world(*_clusters(150)), sink)
    drain(reconciler)
    assert [(a, n) for a, _, n, _ in sink.log] == [("create", f"{PLACEMENT}-decision-1")]
    reasons = [e.reason for _, _, e in sink.events]
    assert reasons == ["DecisionCreate", "DecisionUpdate", "ScoreUpdate"]
    # The create's echo enqueued the placement again (as upstream's watch does); that
    # sync's status write failed too, and the placement waits for its backoff.
    assert reconciler.queue.delayed == 1 and reconciler.stats.errors == 2
    sink.fail_after = None
    clocks.advance(timedelta(seconds=1))
    drain(reconciler)
    assert [(a, n) for a, _, n, _ in sink.log][1:] == [
        ("create", f"{PLACEMENT}-decision-2"),
        ("status", PLACEMENT),
    ]
    # What was written was said once: the first page's events are not repeated.
    related = [e.related for _, _, e in sink.events if e.reason == "DecisionCreate"]
    assert related == [f"{PLACEMENT}-decision-1", f"{PLACEMENT}-decision-2"]
    assert reconciler.queue.delayed == 0


def test_a_toleration_expiry_requeues_the_placement_then() -> None:
    tainted = cluster("c1", taints=[taint("gpu", effect="NoSelect", added=NOW)])
    objects = world(tainted, tolerations=[toleration("gpu", seconds=60)])
    reconciler, _, clocks = make_reconciler([*objects, decision(clusters=["c1"])])
    drain(reconciler)
    assert _decisions(reconciler) == {f"{PLACEMENT}-decision-1": ["c1"]}
    assert reconciler.queue.next_due() == 60
    clocks.advance(timedelta(seconds=61))
    assert drain(reconciler) == 2  # the write's echo syncs it once more, as upstream's
    assert _decisions(reconciler) == {f"{PLACEMENT}-decision-1": []}


def test_an_expiring_score_requeues_its_users_just_after_valid_until() -> None:
    policy = {"mode": "Exact", "configurations": [addon("usage", "cpu")]}
    objects = world(
        cluster("c1"),
        cluster("c2"),
        score("c1", "usage", {"cpu": 90}, valid_until=NOW + timedelta(seconds=30)),
        score("c2", "usage", {"cpu": 10}, valid_until=NOW + timedelta(hours=1)),
        numberOfClusters=1,
        prioritizerPolicy=policy,
    )
    reconciler, sink, clocks = make_reconciler(objects)
    drain(reconciler)
    assert _decisions(reconciler) == {f"{PLACEMENT}-decision-1": ["c1"]}
    due = reconciler.queue.next_due()
    assert due is not None and 30 < due < 30.01
    clocks.advance(timedelta(seconds=31))
    drain(reconciler)
    assert _decisions(reconciler) == {f"{PLACEMENT}-decision-1": ["c2"]}
    warning = [e for _, _, e in sink.events if e.type == "Warning"]
    assert warning and "expired" in warning[-1].note
    assert reconciler.queue.delayed == 1  # c2's score, in an hour; no retry loop


def test_a_misconfigured_placement_says_so_once() -> None:
    objects = world(*_clusters(2), prioritizerPolicy={"mode": "Nonsense"})
    reconciler, sink, clocks = make_reconciler(objects)
    drain(reconciler)
    warnings = [e for _, _, e in sink.events if e.reason == "PlacementMisconfigured"]
    assert len(warnings) == 1 and "misconfigured" in warnings[0].note
    clocks.advance(timedelta(hours=1))  # past every retry backoff
    drain(reconciler)
    reconciler.engine.enqueue_all()
    drain(reconciler)
    assert len([e for _, _, e in sink.events if e.reason == "PlacementMisconfigured"]) == 1


def test_a_deleted_placement_takes_its_decisions_along_without_a_garbage_collector() -> None:
    objects = world(*_clusters(2))
    reconciler, sink, _ = make_reconciler(objects)
    drain(reconciler)
    reconciler.engine.observe([ObjectChange(objects[-1], None)])
    drain(reconciler)
    assert [(a, n) for a, _, n, _ in sink.log[-2:]] == [
        ("delete", f"{PLACEMENT}-decision-1"),
        ("forget", PLACEMENT),
    ]
    assert reconciler.state.owned(KEY) == []


def test_with_a_garbage_collector_the_controller_leaves_deletion_to_it() -> None:
    objects = world(*_clusters(2))
    reconciler, sink, _ = make_reconciler(objects, MemorySink(collects_garbage=True))
    drain(reconciler)
    count = len(sink.log)
    reconciler.engine.observe([ObjectChange(objects[-1], None)])
    drain(reconciler)
    assert len(sink.log) == count


def test_skipped_placements_are_not_written() -> None:
    disabled = placement(
        annotations={"cluster.open-cluster-management.io/experimental-scheduling-disable": "true"}
    )
    reconciler, sink, _ = make_reconciler(world(*_clusters(2), placement_obj=disabled))
    drain(reconciler)
    assert sink.log == [] and sink.events == []


def test_an_unchanged_object_seen_again_enqueues_nothing() -> None:
    objects = [cluster_set(), binding(), cluster("c1"), placement()]
    reconciler, _, _ = make_reconciler(objects)
    drain(reconciler)
    reconciler.engine.observe([ObjectChange(objects[2], cluster("c1"))])
    assert len(reconciler.queue) == 0


def test_an_unexpected_error_in_a_sync_is_logged_and_retried_not_raised() -> None:
    class Broken(MemorySink):
        async def write_status(self, current: Placement, desired: Placement) -> Placement:
            raise RuntimeError("a fault of ours")

    logged: list[str] = []
    sink = Broken()
    reconciler = Reconciler(Engine(clock=Clocks().clock, resync=None), sink, now=Clocks().now)
    reconciler.log = logged.append
    sink.publish = reconciler.engine.observe
    reconciler.engine.boot(world(*_clusters(2)))
    drain(reconciler)  # does not raise
    assert reconciler.stats.errors >= 1 and reconciler.queue.delayed == 1
    assert any(f"sync {KEY[0]}/{KEY[1]}: unexpected error: RuntimeError" in m for m in logged)


def test_what_is_kept_per_placement_goes_with_its_decisions() -> None:
    objects = world(*_clusters(2))
    reconciler, _, _ = make_reconciler(objects)
    drain(reconciler)
    for i in range(200):
        pd = decision(NS, f"other-{i}", ["c0"], placement_label=f"other-{i}")
        reconciler.engine.observe([ObjectChange(None, pd)])
        reconciler.engine.observe([ObjectChange(pd, None)])
    assert set(reconciler.state._owned) == {KEY}
    reconciler.engine.observe([ObjectChange(objects[-1], None)])
    drain(reconciler)
    assert not reconciler.state._owned
    assert len(reconciler.expectations) == 0


def _plan_shape(plan: SyncPlan) -> list[Any]:
    """Everything a plan says, as plain values (a record's filter trail as lists)."""
    record = plan.record
    recorded: list[Any] | None = None
    if record is not None:
        recorded = [
            record.placement is plan.placement,
            record.now,
            record.until,
            record.candidates,
            None if record.trail is None else [kept.tolist() for kept in record.trail],
            record.filters_read,
            record.scoring_reads,
            record.reads_labels,
            record.balance,
            record.balance_max,
            record.addon_resources,
            {n: None if pd is None else pd.to_dict() for n, pd in record.writes.items()},
            record.status,
        ]
    return [
        plan.key,
        plan.placement is not None,
        [
            (w.action, w.decision.to_dict(), w.interim, w.current and w.current.to_dict())
            for w in plan.writes
        ],
        plan.status.to_dict() if plan.status is not None else None,
        plan.events,
        plan.requeue_after,
        plan.retry,
        plan.skipped,
        plan.error,
        recorded,
    ]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_plan_with_its_shortcuts_is_the_plan_worked_out_in_full(data: st.DataObject) -> None:
    """Cold, converged, and after changes of every kind (decisions edited or written by
    someone else among them), every placement's plan is the same with the shortcut that
    recognises decisions the hub already holds as without it."""
    world = data.draw(worlds())
    reconciler, _, clocks = make_reconciler(world.objects())
    state = reconciler.state
    for step in range(4):
        for key in state.placement_keys():
            full = plan_sync(state, key, clocks.now(), shortcuts=False)
            quick = plan_sync(state, key, clocks.now())
            assert _plan_shape(quick) == _plan_shape(full), (step, key)
        drain(reconciler)
        _, obj, deleted = data.draw(any_change(world))
        current = state.get(obj)
        if current is not None or not deleted:
            reconciler.engine.observe([ObjectChange(current, None if deleted else obj)])
