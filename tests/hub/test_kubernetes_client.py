"""The one Kubernetes client: ``SyncHubApi`` (apply-module's cluster) sends HubApi's
requests and maps their failures as HubApi does, and the sink's conflict retry (against
the API emulator of tests/hub/kube_emulator.py, not a real API server)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from clusterplace.api import Placement
from clusterplace.controller import HubWriteError
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.kubernetes.api import (
    KUBE_EXTRA,
    ApiError,
    Conflict,
    Forbidden,
    HubApi,
    NotFound,
    SyncHubApi,
    connect,
)
from clusterplace.hub.kubernetes.resources import APPLY_MODULE, PLACEMENTS, PLACEMENTS_STATUS
from clusterplace.hub.kubernetes.sink import CONFLICT_TRIES, KubernetesSink
from clusterplace.hub.kubernetes.source import decode_object
from tests.support.kube_hub import KubeHub
from tests.support.paths import ROOT

T = TypeVar("T")

IDENTITY = ("vela-system", "vela-cluster-identity")
DEFINITIONS = "/apis/core.oam.dev/v1beta1/namespaces/vela-system/componentdefinitions"


def _definition(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "core.oam.dev/v1beta1",
        "kind": "ComponentDefinition",
        "metadata": {"name": name, "namespace": "vela-system", "labels": {"a": "1"}},
        "spec": spec or {"workload": {"type": "deployments.apps"}},
    }


# -- the sync facade ---------------------------------------------------------------------


def test_the_facade_gets_creates_and_patches_through_the_hub_api(kubehub: KubeHub) -> None:
    with SyncHubApi.from_kubeconfig(str(kubehub.kubeconfig)) as cluster:
        assert cluster.api.role is APPLY_MODULE
        assert cluster.get_config_map(*IDENTITY) is None
        assert (
            cluster.get("core.oam.dev/v1beta1", "ComponentDefinition", "vela-system", "web") is None
        )
        cluster.create(_definition())
        stored = cluster.get("core.oam.dev/v1beta1", "ComponentDefinition", "vela-system", "web")
        assert stored is not None and stored["spec"] == {"workload": {"type": "deployments.apps"}}
        update = _definition(workload={"type": "statefulsets.apps"})
        update["metadata"]["labels"] = {"b": "2"}
        cluster.update(update)
        cluster.update(update)  # nothing differs: no patch
    log = [(verb, path) for verb, path, _ in kubehub.emulator.request_log()]
    assert log == [
        ("GET", "/api/v1/namespaces/vela-system/configmaps/vela-cluster-identity"),
        ("GET", f"{DEFINITIONS}/web"),
        ("POST", DEFINITIONS),
        ("GET", f"{DEFINITIONS}/web"),
        ("GET", f"{DEFINITIONS}/web"),
        ("PATCH", f"{DEFINITIONS}/web"),
        ("GET", f"{DEFINITIONS}/web"),
    ]
    patch = kubehub.emulator.request_log()[5][2]
    assert '"labels": {"a": null, "b": "2"}' in patch  # a JSON merge patch (RFC 7386)
    stored = kubehub.emulator.objects("componentdefinitions")[("vela-system", "web")]
    assert stored["metadata"]["labels"] == {"b": "2"}
    assert stored["spec"] == {"workload": {"type": "statefulsets.apps"}}


def test_a_403_names_the_rule_to_grant(kubehub: KubeHub) -> None:
    kubehub.emulator.forbid("get", "configmaps")
    kubehub.emulator.forbid("create", "componentdefinitions")
    with SyncHubApi.from_kubeconfig(str(kubehub.kubeconfig)) as cluster:
        with pytest.raises(Forbidden) as refused:
            cluster.get_config_map(*IDENTITY)
        assert refused.value.status == 403
        assert str(refused.value).startswith(
            "forbidden: cannot get configmaps vela-system/vela-cluster-identity ("
            "configmaps. is forbidden: "
        )
        assert str(refused.value).endswith(
            '; grant it with {apiGroups: [""], resources: [configmaps], verbs: [get]} in a '
            "Role in that namespace, bound to the user of apply-module's kubeconfig"
        )
        with pytest.raises(Forbidden, match=r'apiGroups: \["core.oam.dev"\], resources: '):
            cluster.create(_definition())


def test_not_found_and_other_statuses(kubehub: KubeHub) -> None:
    with SyncHubApi.from_kubeconfig(str(kubehub.kubeconfig)) as cluster:
        with pytest.raises(NotFound) as missing:
            cluster.update(_definition())  # an update needs the object
        assert str(missing.value) == (
            'get componentdefinitions.core.oam.dev vela-system/web: 404 "web" not found'
        )
        kubehub.emulator.fail_next("create", "componentdefinitions", 404)
        with pytest.raises(NotFound) as unserved:
            cluster.create(_definition())
        assert str(unserved.value) == (
            "create componentdefinitions.core.oam.dev vela-system/web: 404 the resource "
            "ComponentDefinition is not served (a scripted failure)"
        )
        kubehub.emulator.fail_next("get", "configmaps", 500)
        with pytest.raises(ApiError) as failed:
            cluster.get_config_map(*IDENTITY)
        assert type(failed.value) is ApiError and failed.value.status == 500
        assert str(failed.value) == (
            "get configmaps vela-system/vela-cluster-identity: 500 a scripted failure"
        )
        cluster.create(_definition())
        with pytest.raises(Conflict, match="409"):
            cluster.create(_definition())  # already exists


def test_an_unreachable_server(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\n"
    )
    cluster = SyncHubApi.from_kubeconfig(str(config))
    with cluster, pytest.raises(ApiError) as unreachable:
        cluster.get_config_map(*IDENTITY)
    assert unreachable.value.status == 0
    assert str(unreachable.value).startswith(
        "get configmaps vela-system/vela-cluster-identity: cannot reach the API server: "
    )


def test_kubeconfig_problems(tmp_path: Path) -> None:
    with pytest.raises(ClusterplaceError, match=r"kubeconfig .*nope: no such file"):
        SyncHubApi.from_kubeconfig(str(tmp_path / "nope"))
    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nkind: Config\ncontexts: []\n")
    with pytest.raises(ClusterplaceError, match=f"cannot load kubeconfig {bad}: "):
        SyncHubApi.from_kubeconfig(str(bad), "nope")


def test_without_the_kube_extra_the_hint_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "kubernetes.aio", None)
    with pytest.raises(ClusterplaceError) as missing:
        SyncHubApi.from_kubeconfig(str(tmp_path / "kubeconfig"))
    assert str(missing.value) == KUBE_EXTRA
    assert "pip install 'clusterplace[kube]'" in KUBE_EXTRA


def test_apply_module_reports_a_403_with_the_rule(run, kubehub: KubeHub) -> None:
    kubehub.emulator.forbid("get", "configmaps")
    module = str(ROOT / "examples/my-platform")
    result = run("apply-module", module, "--kubeconfig", str(kubehub.kubeconfig), "-t", "component")
    assert result.code == 1
    assert (
        "could not read the cluster labels: forbidden: cannot get configmaps "
        "vela-system/vela-cluster-identity"
    ) in result.stderr
    assert '{apiGroups: [""], resources: [configmaps], verbs: [get]}' in result.stderr
    assert "nothing was applied" in result.stderr
    assert kubehub.emulator.objects("componentdefinitions") == {}


# -- the sink's conflict retry -----------------------------------------------------------


def _with_sink(kubehub: KubeHub, test: Callable[[KubernetesSink], Awaitable[T]]) -> T:
    async def main() -> T:
        api_client = await connect(kubehub.kubeconfig)
        try:
            return await test(KubernetesSink(HubApi(api_client), lambda _: None))
        finally:
            await api_client.close()

    return asyncio.run(main())


async def _placement(sink: KubernetesSink, name: str = "p") -> Placement:
    found = decode_object(await sink.api.get(PLACEMENTS, "ns", name))
    assert isinstance(found, Placement)
    return found


def _selected(placement: Placement, number: int) -> Placement:
    body = placement.to_dict()
    body["status"] = {"numberOfSelectedClusters": number}
    found = decode_object(body)
    assert isinstance(found, Placement)
    return found


def test_a_conflict_is_read_again_and_the_write_made_against_what_was_read(
    kubehub: KubeHub,
) -> None:
    kubehub.placement("p")

    async def test(sink: KubernetesSink) -> tuple[Placement, int]:
        stale = await _placement(sink)
        kubehub.patch("Placement", "p", {"metadata": {"labels": {"x": "1"}}}, "ns")
        # The write carries the stale resourceVersion: 409, then a read, then success.
        return await sink.write_status(stale, _selected(stale, 2)), sink.conflicts

    result, conflicts = _with_sink(kubehub, test)
    assert conflicts == 1
    assert result.status is not None and result.status.number_of_selected_clusters == 2
    assert kubehub.status("p") == {"numberOfSelectedClusters": 2}
    assert result.labels == {"x": "1"}  # the object as read again
    patches = [r for r in kubehub.emulator.request_log() if r[1].endswith("/status")]
    assert len(patches) == 2  # refused, then made again


def test_conflicts_until_the_limit_give_up_with_a_write_error(kubehub: KubeHub) -> None:
    kubehub.placement("p")
    kubehub.emulator.fail_next("patch", "placements/status", 409, times=CONFLICT_TRIES)

    async def test(sink: KubernetesSink) -> tuple[str, int]:
        current = await _placement(sink)
        with pytest.raises(HubWriteError) as gave_up:
            await sink.write_status(current, _selected(current, 3))
        return str(gave_up.value), sink.conflicts

    message, conflicts = _with_sink(kubehub, test)
    assert message == (
        f"patch {PLACEMENTS_STATUS} ns/p: still in conflict after {CONFLICT_TRIES} tries"
    )
    assert conflicts == CONFLICT_TRIES
    assert kubehub.status("p") == {}


def test_the_retry_helper_raises_what_is_not_a_conflict(kubehub: KubeHub) -> None:
    kubehub.placement("p")

    async def test(sink: KubernetesSink) -> list[str]:
        current = await _placement(sink)
        seen: list[str] = []

        async def write(now: Placement) -> str:
            seen.append(now.metadata.resource_version or "")
            if len(seen) == 1:
                raise Conflict("patch", "placements/status", 409, "changed")
            raise NotFound("patch", "placements/status", 404, "gone")

        with pytest.raises(NotFound):
            await sink.until_no_conflict(write, current, PLACEMENTS_STATUS, PLACEMENTS)
        assert sink.conflicts == 1
        return seen

    seen = _with_sink(kubehub, test)
    assert len(seen) == 2 and seen[0] == seen[1]  # read again (nothing changed meanwhile)
