"""apply-module against a live cluster API (emulated by kmock; see conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clusterplace.hub.kubernetes.api import ApiError, HubApi, SyncHubApi
from clusterplace.hub.kubernetes.resources import APPLY_MODULE
from tests.support.kube_hub import ApiServer
from tests.support.paths import ROOT

MODULE = str(ROOT / "examples/my-platform")
CASE_B = {"region": "us-west-2", "provider": "aws", "environment": "production"}


def _apply(run, server: ApiServer, *extra: str):
    return run(
        "apply-module", MODULE, "--kubeconfig", str(server.kubeconfig), "-t", "component", *extra
    )


def test_case_b_creates_the_definition_in_the_cluster(run, apiserver: ApiServer) -> None:
    apiserver.put_identity(CASE_B)
    result = _apply(run, apiserver, "--conflict=overwrite")
    assert result.code == 0, result.stderr
    assert "Cluster labels: environment=production, provider=aws, region=us-west-2" in result.stdout
    assert "ComponentDefinition placement-demo created in namespace vela-system" in result.stdout
    stored = apiserver.get_definition("placement-demo")
    assert stored["spec"]["workload"]["definition"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
    }
    assert "parameter:" in stored["spec"]["schematic"]["cue"]["template"]


def test_overwrite_updates_and_fail_refuses(run, apiserver: ApiServer) -> None:
    apiserver.put_identity(CASE_B)
    assert _apply(run, apiserver, "--conflict=overwrite").code == 0
    again = _apply(run, apiserver, "--conflict=overwrite")
    assert "ComponentDefinition placement-demo updated in namespace vela-system" in again.stdout
    refused = _apply(run, apiserver)
    assert refused.code == 1
    assert "already exists in namespace vela-system (use --conflict=overwrite to update)" in (
        refused.stderr
    )


def test_case_c_leaves_an_installed_copy_untouched(run, apiserver: ApiServer) -> None:
    apiserver.put_identity(CASE_B)
    assert _apply(run, apiserver, "--conflict=overwrite").code == 0
    before = apiserver.get_definition("placement-demo")
    status, _ = apiserver.request(
        "PATCH",
        "/api/v1/namespaces/vela-system/configmaps/vela-cluster-identity",
        {"data": {"cluster-type": "vcluster"}},
    )
    assert status == 200
    result = _apply(run, apiserver, "--conflict=overwrite")
    assert "skipped (excluded by notRunOn: cluster-type = vcluster)" in result.stdout
    assert apiserver.get_definition("placement-demo") == before


def test_missing_identity_configmap_means_no_labels(run, apiserver: ApiServer) -> None:
    result = _apply(run, apiserver, "--conflict=overwrite")
    assert result.code == 0
    assert "Cluster labels: (no labels)" in result.stdout
    assert apiserver.get_definition("placement-demo") is None


def test_unreachable_cluster_fails_closed(run, tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\n"
    )
    result = run("apply-module", MODULE, "--kubeconfig", str(config), "-t", "component")
    assert result.code == 1
    assert "could not read the cluster labels" in result.stderr
    assert "nothing was applied" in result.stderr


def test_library_reads_the_identity(apiserver: ApiServer) -> None:
    apiserver.put_identity({"provider": "aws"})
    with SyncHubApi.from_kubeconfig(str(apiserver.kubeconfig)) as cluster:
        found = cluster.get_config_map("vela-system", "vela-cluster-identity")
        assert found is not None
        assert found.data == {"provider": "aws"}
        assert cluster.get_config_map("vela-system", "nope") is None


@pytest.mark.parametrize(
    ("namespace", "name"), [("ns", "../secrets/x"), ("a/b", "x"), ("ns", ".."), ("", "x")]
)
def test_request_paths_are_built_only_from_path_segments(namespace: str, name: str) -> None:
    cluster = SyncHubApi(HubApi(None, APPLY_MODULE))  # no client: nothing is sent
    with cluster, pytest.raises(ApiError, match="ConfigMap") as refused:
        cluster.get("v1", "ConfigMap", namespace, name)
    assert refused.value.status == 0
