"""``clusterplace apply-module --kubeconfig`` on a real API server: the KubeVela
definition CRDs (core.oam.dev/v1beta1, schemas that keep every field) are installed,
with the ``vela-system`` namespace and the ``vela-cluster-identity`` ConfigMap. The
identity is read, eligible definitions are created and updated (validated and stored by
the server, written by the ``clusterplace`` field manager), ``--conflict`` decides what
an existing one becomes, a ``path`` hook's objects are applied, a cluster excluded by
``notRunOn`` keeps its copy untouched, and a user without rights is refused with the
RBAC rule to grant, nothing applied."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import RESTRICTED_USER, Envtest
from tests.support.paths import ROOT

Run = Callable[..., Result]

MODULE = ROOT / "examples/my-platform"
CASE_B = {"region": "us-west-2", "provider": "aws", "environment": "production"}
VELA = "/apis/core.oam.dev/v1beta1/namespaces/vela-system"
IDENTITY = "/api/v1/namespaces/vela-system/configmaps/vela-cluster-identity"
KINDS = ("ComponentDefinition", "TraitDefinition", "PolicyDefinition", "WorkflowStepDefinition")


def _crd(kind: str) -> dict[str, Any]:
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.core.oam.dev"},
        "spec": {
            "group": "core.oam.dev",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1beta1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


@pytest.fixture(scope="module")
def vela(envtest: Envtest, tmp_path_factory: pytest.TempPathFactory) -> Envtest:
    """The module's server with KubeVela's definition kinds and namespace."""
    folder = tmp_path_factory.mktemp("vela-crds")
    (folder / "definitions.yaml").write_text(yaml.safe_dump_all([_crd(k) for k in KINDS]))
    envtest.install_crds(folder)
    envtest.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "vela-system"}})
    return envtest


@pytest.fixture
def cluster(vela: Envtest) -> Iterator[Envtest]:
    """The cluster, its identity removed and every definition deleted after the test."""
    yield vela
    vela.request("DELETE", IDENTITY)
    vela.request("DELETE", "/api/v1/namespaces/vela-system/configmaps/platform-settings")
    for kind in KINDS:
        vela.request("DELETE", f"{VELA}/{kind.lower()}s")


def _identity(server: Envtest, labels: dict[str, str]) -> None:
    server.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "vela-cluster-identity", "namespace": "vela-system"},
            "data": labels,
        }
    )


def _apply(run: Run, kubeconfig: Path, *extra: str, module: Path = MODULE) -> Result:
    return run("apply-module", str(module), "--kubeconfig", str(kubeconfig), *extra)


def _definition(server: Envtest, name: str) -> Any:
    return server.get(f"{VELA}/componentdefinitions/{name}")


def test_definitions_are_created_then_updated_and_conflicts_decided(
    cluster: Envtest, run: Run
) -> None:
    _identity(cluster, CASE_B)
    mark = len(cluster.audit())
    created = _apply(run, cluster.kubeconfig, "-t", "component")
    assert created.code == 0, created.stderr
    assert "Cluster labels: environment=production, provider=aws, region=us-west-2" in (
        created.stdout
    )
    assert "ComponentDefinition placement-demo created in namespace vela-system" in (created.stdout)
    stored = _definition(cluster, "placement-demo")
    assert stored["spec"]["workload"]["definition"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
    }
    assert "parameter:" in stored["spec"]["schematic"]["cue"]["template"]
    assert {f["manager"] for f in stored["metadata"]["managedFields"]} == {"clusterplace"}
    writes = [
        e
        for e in cluster.audit()[mark:]
        if str(e.get("userAgent", "")).startswith("clusterplace/")
        and e["verb"] not in ("get", "list", "watch")
    ]
    assert [(e["verb"], e["objectRef"]["resource"]) for e in writes] == [
        ("create", "componentdefinitions")
    ]

    refused = _apply(run, cluster.kubeconfig, "-t", "component", "--conflict=fail")
    assert refused.code == 1
    assert "already exists in namespace vela-system (use --conflict=overwrite to update)" in (
        refused.stderr
    )
    skipped = _apply(run, cluster.kubeconfig, "-t", "component", "--conflict=skip")
    assert skipped.code == 0, skipped.stderr
    assert (
        _definition(cluster, "placement-demo")["metadata"]["resourceVersion"]
        == (stored["metadata"]["resourceVersion"])
    )

    # Someone edits the definition; overwrite brings the module's back.
    status, body = cluster.request(
        "PATCH",
        f"{VELA}/componentdefinitions/placement-demo?fieldManager=someone",
        {"spec": {"workload": {"definition": {"kind": "StatefulSet"}}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, body
    updated = _apply(run, cluster.kubeconfig, "-t", "component", "--conflict=overwrite")
    assert updated.code == 0, updated.stderr
    assert "ComponentDefinition placement-demo updated in namespace vela-system" in (updated.stdout)
    assert _definition(cluster, "placement-demo")["spec"]["workload"]["definition"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
    }


def test_every_kind_of_the_module_is_applied_and_a_path_hooks_objects_too(
    cluster: Envtest, run: Run, tmp_path: Path
) -> None:
    module = tmp_path / "module"
    shutil.copytree(MODULE, module)
    (module / "hooks").mkdir()
    (module / "hooks" / "settings.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-settings\n"
        "data:\n  tier: gold\n"
    )
    with (module / "module.yaml").open("a") as handle:
        handle.write("  hooks:\n    pre-apply:\n      - path: hooks/settings.yaml\n")
    _identity(cluster, {**CASE_B, "location": "europe"})
    result = _apply(run, cluster.kubeconfig, "--conflict=overwrite", module=module)
    assert result.code == 0, result.stderr
    assert "  ✓ hooks/settings.yaml: 1 created, 0 updated" in result.stdout
    settings = cluster.get("/api/v1/namespaces/vela-system/configmaps/platform-settings")
    assert settings["data"] == {"tier": "gold"}
    created = [
        line.split()[:2] for line in result.stdout.splitlines() if "created in namespace" in line
    ]
    assert len(created) == 2 and "placement-skipped: 1" in result.stdout
    for kind, name in created:  # each one the server holds, of the kind the line names
        assert cluster.get(f"{VELA}/{kind.lower()}s/{name}")["kind"] == kind
    again = _apply(run, cluster.kubeconfig, "--conflict=overwrite", module=module)
    assert again.code == 0, again.stderr
    assert "  ✓ hooks/settings.yaml: 0 created, 1 updated" in again.stdout


def test_a_cluster_excluded_by_not_run_on_keeps_its_copy(cluster: Envtest, run: Run) -> None:
    _identity(cluster, CASE_B)
    assert _apply(run, cluster.kubeconfig, "-t", "component", "--conflict=overwrite").code == 0
    before = _definition(cluster, "placement-demo")
    _identity(cluster, {**CASE_B, "cluster-type": "vcluster"})
    result = _apply(run, cluster.kubeconfig, "-t", "component", "--conflict=overwrite")
    assert result.code == 0, result.stderr
    assert "skipped (excluded by notRunOn: cluster-type = vcluster)" in result.stdout
    assert _definition(cluster, "placement-demo") == before


def test_a_user_without_rights_is_told_the_rule_and_nothing_is_applied(
    cluster: Envtest, run: Run
) -> None:
    _identity(cluster, CASE_B)
    result = _apply(run, cluster.restricted_kubeconfig, "-t", "component")
    assert result.code == 1
    assert "forbidden" in result.stderr
    assert "verbs: [get]" in result.stderr and "configmaps" in result.stderr
    assert "Traceback" not in result.stderr
    assert _definition(cluster, "placement-demo") is None
    assert not [
        e
        for e in cluster.audit()
        if e.get("user", {}).get("username") == RESTRICTED_USER
        and e["verb"] not in ("get", "list", "watch")
    ]
