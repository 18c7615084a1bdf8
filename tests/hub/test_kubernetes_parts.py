"""The Kubernetes hub's parts on their own, and the CLI's refusals (no server needed)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from clusterplace.hub.kubernetes.api import ApiError, HubApi
from clusterplace.hub.kubernetes.election import (
    ElectionTimes,
    LeaderElector,
    LeaseLost,
    Tenure,
    micro_time,
    refusal,
)
from clusterplace.hub.kubernetes.metrics import exponential_buckets
from clusterplace.hub.kubernetes.resources import (
    CONTROLLER,
    EVENTS,
    EXPLORER,
    LEASES,
    PLACEMENTS_STATUS,
    WATCHED,
    ApiResource,
)
from clusterplace.hub.kubernetes.source import decode_object


def test_every_request_is_declared_and_refusals_name_the_rule() -> None:
    assert CONTROLLER.permission(PLACEMENTS_STATUS, "patch").scope == "cluster"
    with pytest.raises(AssertionError, match="not declared in the controller's"):
        CONTROLLER.permission(PLACEMENTS_STATUS, "update")
    assert CONTROLLER.rbac_rule(LEASES, "update") == (
        '{apiGroups: ["coordination.k8s.io"], resources: [leases], verbs: [update]} '
        "in the Role in the controller's namespace"
    )
    for role in (CONTROLLER, EXPLORER):
        resources = [p.resource for p in role.permissions]
        assert len(resources) == len(set(resources))  # one entry per resource
    assert str(ApiResource("g.io", "v1", "things/status", "Thing", True)) == "things/status.g.io"


def test_the_explorer_may_only_list() -> None:
    assert EXPLORER.rbac_rule(EVENTS, "list") == (
        '{apiGroups: ["events.k8s.io"], resources: [events], verbs: [list]} in the ClusterRole'
    )
    with pytest.raises(AssertionError, match="not declared in the explorer's"):
        EXPLORER.permission(EVENTS, "create")  # the controller's, not the explorer's
    assert {verb for p in EXPLORER.permissions for verb in p.verbs} == {"list"}


def test_buckets_are_upstreams() -> None:
    # controllers/metrics/metrics.go: ExponentialBuckets(10e-7, 10, 10), Go's arithmetic.
    buckets = exponential_buckets(10e-7, 10, 10)
    assert [repr(b) for b in buckets[:3]] == [
        "1e-06",
        "9.999999999999999e-06",
        "9.999999999999999e-05",
    ]
    assert len(buckets) == 10


def test_the_fence_stops_writes_once_the_renew_deadline_passed() -> None:
    now = [100.0]
    elector = LeaderElector(
        HubApi(None), "hub", ElectionTimes(6, 5, 1), lambda _: None, clock=lambda: now[0]
    )
    with pytest.raises(LeaseLost, match="not sent: lease hub/placement-lock lost"):
        elector.fence("patch", "placements/status ns/p")  # not leading yet
    elector.renewed_at = 96.0
    first = elector.lead()
    elector.fence("patch", "placements/status ns/p")  # renewed 4 s ago: within 5 s
    now[0] = 101.0
    with pytest.raises(LeaseLost, match=r"not renewed for 5\.0 s \(renew deadline 5 s\)"):
        elector.fence("patch", "placements/status ns/p")
    assert elector.doubt(first.epoch) is not None
    # A renewal that lands late (the renewing side had not stepped down yet) does not
    # open the fence again for that tenure: nothing more of it is sent.
    elector._won({"spec": {"holderIdentity": elector.identity}}, 101.0)
    assert elector.tenure == Tenure(first.epoch, 101.0)
    with pytest.raises(LeaseLost, match=r"not renewed for 5\.0 s"):
        elector.fence("create", "events.events.k8s.io in namespace ns")
    elector.step_down("held by another now")
    with pytest.raises(LeaseLost, match=r"lost \(held by another now\)"):
        elector.fence("create", "events.events.k8s.io in namespace ns")
    # Taken again later: a new tenure, with writes of its own.
    second = elector.lead()
    assert second.epoch == first.epoch + 1
    elector.fence("patch", "placements/status ns/p")
    assert elector.doubt(first.epoch) == "lost, and taken again since"
    assert elector.doubt(second.epoch) is None


@pytest.mark.parametrize(
    ("verb", "status", "refused"),
    [
        ("create", 404, True),  # the Lease's namespace does not exist
        ("create", 422, True),
        ("get", 401, True),
        ("update", 404, False),  # deleted meanwhile: the next try creates it
        ("update", 409, False),  # another replica wrote first
        ("get", 429, False),
        ("get", 408, False),
        ("get", 500, False),
        ("get", 0, False),  # not reached
    ],
)
def test_which_answers_count_as_refusals(verb: str, status: int, refused: bool) -> None:
    assert refusal(ApiError(verb, "leases.coordination.k8s.io hub/x", status, "")) is refused


def test_lease_times_are_micro_times() -> None:
    from datetime import UTC, datetime

    moment = datetime(2024, 5, 6, 7, 8, 9, 12, tzinfo=UTC)
    assert micro_time(moment) == "2024-05-06T07:08:09.000012Z"


def test_election_times_are_checked_as_the_library_checks_them() -> None:
    assert ElectionTimes().problem() is None  # upstream's 137/107/26
    assert ElectionTimes(3, 2, 1).problem() is None
    assert "longer than the renew deadline" in (ElectionTimes(2, 2, 1).problem() or "")
    assert "1.2 x the retry period" in (ElectionTimes(10, 6, 5).problem() or "")


def test_an_object_from_the_server_is_decoded_as_a_file_would_be() -> None:
    raw = {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": "c1",
            "resourceVersion": "5",
            "uid": "u",
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {"hubAcceptsClient": True},
    }
    obj = decode_object(raw)
    assert obj.metadata.resource_version == "5"
    assert obj.metadata.managed_fields is None  # dropped: never read, large


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give exactly one hub: --hub DIR, --kubeconfig PATH or --in-cluster (none was given)"),
        (("--hub", ".", "--in-cluster"), "(--hub and --in-cluster)"),
        (("--in-cluster", "--out", "x"), "--out: only with --hub DIR"),
        (("--in-cluster", "--once"), "--once: only with --hub DIR"),
        (("--hub", ".", "--listen", "0:1"), "--listen: only with --kubeconfig or --in-cluster"),
        (("--in-cluster", "--context", "c"), "--context goes with --kubeconfig"),
        (("--in-cluster", "--listen", "nope"), "give HOST:PORT"),
        (
            ("--in-cluster", "--leader-election-lease-duration", "5",
             "--leader-election-renew-deadline", "5"),
            "the lease duration must be longer than the renew deadline",
        ),
    ],
)  # fmt: skip
def test_usage_errors(run, args: tuple[str, ...], message: str) -> None:
    result = run("controller", *args)
    assert result.code in (1, 2), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_kubeconfig_problems_are_clear(run, tmp_path: Path) -> None:
    missing = run("controller", "--kubeconfig", str(tmp_path / "nope"))
    assert missing.code == 1
    assert f"error: kubeconfig {tmp_path / 'nope'}: no such file" in missing.stderr
    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nkind: Config\ncontexts: []\n")
    result = run("controller", "--kubeconfig", str(bad), "--context", "nope")
    assert result.code == 1
    assert f"error: cannot load kubeconfig {bad}:" in result.stderr
    assert "Traceback" not in result.stderr


def test_in_cluster_outside_a_pod(run) -> None:
    result = run("controller", "--in-cluster")
    assert result.code == 1
    assert "cannot use the in-cluster configuration" in result.stderr
    assert "give --kubeconfig" in result.stderr


class _FakeEvents:
    """The watch client's stream: each ``next()`` raises or returns the next item;
    the same error for ever once the list is spent."""

    def __init__(self, items: list[object]) -> None:
        self.items = items
        self.calls = 0

    async def next(self) -> object:
        self.calls += 1
        item = self.items.pop(0) if len(self.items) > 1 else self.items[0]
        if isinstance(item, BaseException):
            raise item
        return item


def _watch_with(monkeypatch: pytest.MonkeyPatch, events: _FakeEvents) -> HubApi:
    from kubernetes.aio import client, watch

    class FakeWatch:
        def stream(self, *args: object, **kwargs: object) -> _FakeEvents:
            return events

        async def close(self) -> None:
            return None

    monkeypatch.setattr(watch, "Watch", FakeWatch)

    class FakeCustomObjects:
        def __init__(self, api_client: object) -> None:
            self.list_cluster_custom_object = None

    monkeypatch.setattr(client, "CustomObjectsApi", FakeCustomObjects)
    return HubApi(None)


def test_a_closed_client_ends_the_watch_instead_of_skipping_lines_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """aiohttp says "Session is closed" (a RuntimeError) once the API client is closed,
    at every call: skipped as an unreadable line, it was asked again at once, for ever,
    and the event loop never ran again (a stopping controller hung)."""

    events = _FakeEvents([RuntimeError("Session is closed")])
    api = _watch_with(monkeypatch, events)

    async def consume() -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        async for event in api.watch(WATCHED[0], "1"):
            seen.append(event)
            if len(seen) == 100:  # skipping for ever: fail, do not hang
                break
        return seen

    with pytest.raises(ApiError, match="connection lost: Session is closed"):
        asyncio.run(asyncio.wait_for(consume(), timeout=10))
    assert events.calls == 1


def test_an_unreadable_line_is_skipped_and_the_loop_runs_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The client's errors for a line it could not decode are skipped, one event each,
    and the event loop runs after each (another task gets its turn)."""
    from clusterplace.hub.kubernetes.api import MALFORMED

    event = {"type": "ADDED", "raw_object": {"metadata": {"name": "c0"}}}
    events = _FakeEvents(
        [Exception("Malformed JSON response"), KeyError("code"), event, StopAsyncIteration()]
    )
    api = _watch_with(monkeypatch, events)
    turns: list[int] = []

    async def consume() -> list[tuple[str, int]]:
        async def other() -> None:
            while True:
                turns.append(len(turns))
                await asyncio.sleep(0)

        beside = asyncio.create_task(other())
        await asyncio.sleep(0)
        seen = [(str(found["type"]), len(turns)) async for found in api.watch(WATCHED[0], "1")]
        beside.cancel()
        return seen

    seen = asyncio.run(asyncio.wait_for(consume(), timeout=10))
    assert [kind for kind, _ in seen] == [MALFORMED, MALFORMED, "ADDED"]
    # The other task ran after each skipped line: its turns grew from event to event.
    assert seen[0][1] < seen[1][1] < seen[2][1]
