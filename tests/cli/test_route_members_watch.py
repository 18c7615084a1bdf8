"""``clusterplace route --watch --to-kubeconfig`` as a real process, with emulators as
member clusters: a relabel moves copies between the members' API servers live, a member
stopped and started again mid-run is caught up with, and (slow) a SIGKILL during a
burst of edits followed by a restart converges."""

from __future__ import annotations

import functools
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.members import Member, members
from tests.support.route_watch import Watch
from tests.support.waiting import wait_for as wait_until

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"


# Members are emulators started in threads of this process: give them time.
wait_for = functools.partial(wait_until, timeout=30.0)


def write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.edit")
    temporary.write_text(text)
    temporary.replace(path)


def cluster(name: str, region: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": {"region": region}},
        "spec": {"hubAcceptsClient": True},
    }


def config_map(name: str, region: str | None, value: str = "1") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "shop"}
    if region is not None:
        meta["annotations"] = {
            ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": [region]}])
        }
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"v": value}}


class Setup:
    def __init__(self, folder: Path, started: dict[str, Member], kubeconfig: Path) -> None:
        self.folder = folder
        self.members = started
        self.kubeconfig = kubeconfig
        self.manifests = folder / "manifests"
        self.manifests.mkdir()
        self.fleet = folder / "fleet.yaml"
        self.put(config_map("eu-settings", "eu"))
        self.put(config_map("everywhere", None))
        self.relabel({"a": "eu", "b": "us", "c": "us"})

    def put(self, obj: dict[str, Any]) -> None:
        write_atomic(self.manifests / f"{obj['metadata']['name']}.yaml", yaml.safe_dump(obj))

    def relabel(self, regions: dict[str, str]) -> None:
        write_atomic(self.fleet, yaml.safe_dump_all([cluster(n, r) for n, r in regions.items()]))

    def start(self) -> Watch:
        watch = Watch(
            "-f",
            str(self.manifests),
            "--clusters",
            str(self.fleet),
            "--to-kubeconfig",
            str(self.kubeconfig),
            cwd=self.folder,
        )
        watch.wait_watching()
        return watch

    def data(self, member: str) -> dict[str, dict[str, str]]:
        return {
            name: obj.get("data") or {}
            for (namespace, name), obj in self.members[member].objects("configmaps").items()
            if namespace == "shop"  # the set's parent is in default
        }


@pytest.fixture(name="setup")
def setup_fixture(tmp_path: Path) -> Iterator[Setup]:
    with members(["a", "b", "c"], tmp_path) as (started, kubeconfig):
        yield Setup(tmp_path, started, kubeconfig)


def test_a_relabel_moves_copies_between_member_api_servers_live(setup: Setup) -> None:
    watch = setup.start()
    try:
        wait_for(lambda: set(setup.data("a")) == {"eu-settings", "everywhere"}, what="a")
        assert set(setup.data("b")) == {"everywhere"}
        start = time.monotonic()
        setup.relabel({"a": "us", "b": "eu", "c": "us"})
        done = wait_for(
            lambda: (
                set(setup.data("b")) == {"eu-settings", "everywhere"}
                and set(setup.data("a")) == {"everywhere"}
            ),
            what="the eu copy to move from a to b",
        )
        assert done - start < 5.0, f"took {done - start:.2f} s"
        setup.put(config_map("everywhere", None, "2"))
        wait_for(
            lambda: all(setup.data(m)["everywhere"] == {"v": "2"} for m in "abc"),
            what="the edit in every member",
        )
    finally:
        assert watch.stop() == 0, watch.text()


def test_a_member_stopped_and_started_again_mid_run_is_caught_up_with(setup: Setup) -> None:
    watch = setup.start()
    try:
        wait_for(lambda: set(setup.data("c")) == {"everywhere"}, what="c")
        setup.members["c"].stop()
        setup.put(config_map("everywhere", None, "2"))
        setup.put(config_map("more", None))
        wait_for(
            lambda: (
                setup.data("a").get("more") == {"v": "1"}
                and setup.data("b")["everywhere"] == {"v": "2"}
            ),
            what="a and b to converge while c is down",
        )
        wait_for(lambda: "c:" in watch.text() and "error" in watch.text(), what="c reported")
        setup.members["c"].start()
        wait_for(
            lambda: (
                setup.data("c").get("more") == {"v": "1"}
                and setup.data("c")["everywhere"] == {"v": "2"}
            ),
            what="c caught up",
        )
    finally:
        assert watch.stop() == 0, watch.text()


@pytest.mark.slow
def test_kill_9_during_a_burst_of_edits_then_a_restart_converges(setup: Setup) -> None:
    watch = setup.start()
    try:
        wait_for(lambda: set(setup.data("a")) == {"eu-settings", "everywhere"}, what="start")
        for i in range(30):
            setup.put(config_map(f"burst-{i % 10}", "eu" if i % 2 else "us", str(i)))
            if i == 15:
                watch.proc.send_signal(signal.SIGKILL)
            time.sleep(0.01)
    finally:
        watch.stop(signal.SIGKILL)
    setup.relabel({"a": "us", "b": "eu", "c": "us"})
    again = setup.start()
    try:
        wanted_eu = {f"burst-{i}" for i in range(10) if i % 2} | {"eu-settings", "everywhere"}
        wanted_us = {f"burst-{i}" for i in range(10) if not i % 2} | {"everywhere"}
        wait_for(
            lambda: (
                set(setup.data("b")) == wanted_eu
                and set(setup.data("a")) == wanted_us
                and set(setup.data("c")) == wanted_us
            ),
            what="every member converged after the restart",
        )
        assert setup.data("a")["burst-8"] == {"v": "28"}
        assert setup.data("b")["burst-9"] == {"v": "29"}
    finally:
        assert again.stop() == 0, again.text()


def test_a_conflict_is_reported_once_and_the_others_go_on(setup: Setup) -> None:
    theirs = config_map("everywhere", None, "theirs")
    status, _ = setup.members["b"].request(
        "POST", "/api/v1/namespaces/shop/configmaps?fieldManager=kubectl-create", theirs
    )
    assert status == 201
    watch = setup.start()
    try:
        wait_for(lambda: "not made by clusterplace" in watch.text(), what="the conflict")
        setup.put(config_map("more", None))
        wait_for(lambda: all("more" in setup.data(m) for m in "abc"), what="the others to go on")
        assert setup.data("b")["everywhere"] == {"v": "theirs"}
        assert watch.text().count("not made by clusterplace") == 1
    finally:
        assert watch.stop() == 0, watch.text()
