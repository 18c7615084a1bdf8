"""``clusterplace route --to-kubeconfig``: each cluster's copies applied to its own API
server (emulators, one per member, one kubeconfig with a context per cluster): a label
change moves copies, another field manager's 409 is a conflict (``--force`` takes the
fields over), a 403 fails that cluster only, an object someone else made is never
touched, a member that is down is reported and caught up with later."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.members import Member, members

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
LABEL = "federation.clusterplace.io/managed-by"
SOURCE = "federation.clusterplace.io/source"
CM = "/api/v1/namespaces/shop/configmaps"


def cluster(name: str, region: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": {"region": region}},
        "spec": {"hubAcceptsClient": True},
    }


def selector(region: str) -> dict[str, str]:
    return {ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": [region]}])}


def manifests() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "eu-settings", "namespace": "shop", "annotations": selector("eu")},
            "data": {"region": "eu"},
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "everywhere", "namespace": "shop"},
            "data": {"all": "yes"},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "annotations": selector("eu")},
            "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}}},
        },
    ]


class Setup:
    def __init__(self, folder: Path, started: dict[str, Member], kubeconfig: Path) -> None:
        self.folder = folder
        self.members = started
        self.kubeconfig = kubeconfig
        self.manifests = folder / "manifests.yaml"
        self.fleet = folder / "fleet.yaml"
        self.manifests.write_text(yaml.safe_dump_all(manifests()))
        self.relabel({"a": "eu", "b": "eu", "c": "us"})

    def relabel(self, regions: dict[str, str]) -> None:
        self.fleet.write_text(yaml.safe_dump_all([cluster(n, r) for n, r in regions.items()]))

    def args(self, *extra: str) -> list[str]:
        return [
            "route",
            "-f",
            str(self.manifests),
            "--clusters",
            str(self.fleet),
            "--to-kubeconfig",
            str(self.kubeconfig),
            *extra,
        ]

    def configmaps(self, name: str) -> set[str]:
        """The ConfigMaps in namespace shop (the set's parent is in default)."""
        return {n for ns, n in self.members[name].objects("configmaps") if ns == "shop"}


@pytest.fixture(name="setup")
def setup_fixture(tmp_path: Path) -> Iterator[Setup]:
    with members(["a", "b", "c"], tmp_path) as (started, kubeconfig):
        yield Setup(tmp_path, started, kubeconfig)


def rows(result: Result) -> dict[str, list[str]]:
    lines = result.stdout.splitlines()
    return {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}


def test_copies_go_to_each_members_api_server_and_move_with_a_label(
    setup: Setup, run: Callable[..., Result]
) -> None:
    result = run(*setup.args())
    assert result.code == 0, result.stderr
    assert setup.configmaps("a") == {"eu-settings", "everywhere"}
    assert setup.configmaps("c") == {"everywhere"}
    web = setup.members["a"].objects("deployments")[("shop", "web")]
    assert web["spec"]["replicas"] == 3
    assert web["metadata"]["labels"][LABEL] == "clusterplace"
    assert web["metadata"]["annotations"][SOURCE] == "Deployment/shop/web"
    assert rows(result)["a"] == ["3", "0", "0", "0", "converged"]
    log = setup.members["a"].emulator.request_log(query=True)  # type: ignore[union-attr]
    assert any("fieldManager=clusterplace" in path for verb, path, _ in log if verb == "PATCH")

    again = run(*setup.args())
    assert again.code == 0
    assert rows(again)["a"] == ["0", "3", "0", "0", "converged"]

    setup.relabel({"a": "us", "b": "eu", "c": "eu"})
    moved = run(*setup.args())
    assert moved.code == 0, moved.stderr
    assert setup.configmaps("a") == {"everywhere"}
    assert setup.configmaps("c") == {"eu-settings", "everywhere"}
    assert "web" not in setup.members["a"].names("deployments")
    assert rows(moved)["a"][2] == "2"  # deleted: the eu ConfigMap and the Deployment


def test_an_object_someone_else_made_is_never_touched_unless_forced(
    setup: Setup, run: Callable[..., Result]
) -> None:
    theirs = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "everywhere", "namespace": "shop"},
        "data": {"all": "theirs"},
    }
    status, _ = setup.members["b"].request("POST", CM + "?fieldManager=kubectl-create", theirs)
    assert status == 201
    result = run(*setup.args())
    assert result.code == 1
    assert rows(result)["b"][-1] == "conflict"
    assert rows(result)["a"][-1] == "converged"
    assert "not made by clusterplace" in result.stderr
    kept = setup.members["b"].objects("configmaps")[("shop", "everywhere")]
    assert kept["data"] == {"all": "theirs"} and LABEL not in (kept["metadata"].get("labels") or {})

    # Relabelling b away must not delete it either: it is not clusterplace's.
    setup.relabel({"a": "eu", "b": "us", "c": "us"})
    run(*setup.args())
    assert ("shop", "everywhere") in setup.members["b"].objects("configmaps")

    forced = run(*setup.args("--force"))
    assert forced.code == 0, forced.stderr
    taken = setup.members["b"].objects("configmaps")[("shop", "everywhere")]
    assert taken["data"] == {"all": "yes"} and taken["metadata"]["labels"][LABEL] == "clusterplace"


def test_a_409_from_another_field_manager_is_a_conflict_and_force_overrides(
    setup: Setup, run: Callable[..., Result]
) -> None:
    assert run(*setup.args()).code == 0
    # Someone else applies a field of clusterplace's copy with another value.
    patch = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"all": "edited"}}
    status, _ = setup.members["c"].request(
        "PATCH", CM + "/everywhere?fieldManager=kubectl", patch, "application/merge-patch+json"
    )
    assert status == 200
    result = run(*setup.args())
    assert result.code == 1
    assert rows(result)["c"][-1] == "conflict"
    assert "conflict with" in result.stderr and "--force" in result.stderr
    forced = run(*setup.args("--force"))
    assert forced.code == 0, forced.stderr
    assert setup.members["c"].objects("configmaps")[("shop", "everywhere")]["data"] == {
        "all": "yes"
    }


def test_a_403_fails_that_cluster_and_the_others_converge(
    setup: Setup, run: Callable[..., Result]
) -> None:
    emulator = setup.members["b"].emulator
    assert emulator is not None
    emulator.forbid("patch", "configmaps")
    result = run(*setup.args())
    assert result.code == 1
    assert rows(result)["b"][-1] == "forbidden"
    assert rows(result)["a"][-1] == "converged" and rows(result)["c"][-1] == "converged"
    assert "forbidden" in result.stderr and "configmaps" in result.stderr
    assert setup.configmaps("a") == {"eu-settings", "everywhere"}


def test_a_member_that_is_down_is_reported_and_caught_up_with(
    setup: Setup, run: Callable[..., Result]
) -> None:
    setup.members["c"].stop()
    result = run(*setup.args())
    assert result.code == 1
    assert rows(result)["c"][-1] == "unreachable"
    assert rows(result)["a"][-1] == "converged"
    assert setup.configmaps("a") == {"eu-settings", "everywhere"}
    setup.members["c"].start()
    again = run(*setup.args())
    assert again.code == 0, again.stderr
    assert setup.configmaps("c") == {"everywhere"}


def test_a_cluster_without_a_context_is_skipped_and_a_context_map_names_others(
    setup: Setup, run: Callable[..., Result], tmp_path: Path
) -> None:
    setup.relabel({"a": "eu", "b": "eu", "c": "us", "d": "us"})
    result = run(*setup.args())
    assert result.code == 1
    assert rows(result)["d"][-1] == "no-context"
    assert "cluster 'd': no context 'd'" in result.stderr
    assert rows(result)["a"][-1] == "converged"
    mapping = tmp_path / "contexts.yaml"
    mapping.write_text("d: c\n")
    setup.relabel({"a": "eu", "b": "eu", "d": "us"})
    mapped = run(*setup.args("--context-map", str(mapping)))
    assert mapped.code == 0, mapped.stderr
    assert setup.configmaps("c") == {"everywhere"}


def test_observed_state_is_read_from_the_members(setup: Setup, run: Callable[..., Result]) -> None:
    # A pod of web in a, unschedulable for long: a's capacity is what runs there.
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-x",
            "namespace": "shop",
            "labels": {"app": "web"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "web-1", "controller": True}],
        },
        "status": {
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "lastTransitionTime": "2020-01-01T00:00:00Z",
                }
            ]
        },
    }
    assert setup.members["a"].request("POST", "/api/v1/namespaces/shop/pods", pod)[0] == 201
    log = setup.members["a"].emulator.request_log()  # type: ignore[union-attr]
    before = len(log)
    assert run(*setup.args()).code == 0
    reads = [p for v, p, _ in setup.members["a"].emulator.request_log()[before:] if v == "GET"]  # type: ignore[union-attr]
    assert "/api/v1/pods" in reads and "/apis/apps/v1/deployments" in reads


def test_usage_errors(setup: Setup, run: Callable[..., Result]) -> None:
    both = run(*setup.args("--output-dir", str(setup.folder / "out")))
    assert both.code == 2 and "one of" in both.stderr
    observed = run(*setup.args("--observed", str(setup.folder)))
    assert observed.code == 2 and "--observed" in observed.stderr


def test_copies_of_a_kind_routed_to_no_cluster_any_more_are_pruned_by_a_fresh_run(
    setup: Setup, run: Callable[..., Result]
) -> None:
    assert run(*setup.args()).code == 0
    assert "web" in setup.members["a"].names("deployments")
    # No cluster is in eu any more: no Deployment is desired anywhere, yet a new run
    # (which never applied one) must still find a's and b's and delete them.
    setup.relabel({"a": "us", "b": "us", "c": "us"})
    result = run(*setup.args())
    assert result.code == 0, result.stderr
    assert not setup.members["a"].names("deployments")
    assert not setup.members["b"].names("deployments")
    assert setup.configmaps("a") == {"everywhere"}
