"""kubectl's habits on a fleet of files (the real-server comparison with kubectl itself
is tests/envtest/test_kubectl_parity.py): several kinds at once, kind/name, ``all``,
``-n``/``-A`` on a cluster-scoped kind, ``-o yaml`` of a list, AGE, and the shell
completion script."""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml

from tests.support.cli import Result
from tests.support.paths import EXAMPLES

Run = Callable[..., Result]
F = ("-f", str(EXAMPLES / "fleet"))
NOW = "2026-11-27T12:00:00Z"


def test_several_kinds_print_one_table_each_with_kind_names(run: Run) -> None:
    result = run("get", "mclset,placements", "-n", "apps", *F)
    assert result.code == 0, result.stderr
    sets, placements = result.stdout.split("\n\n")
    assert sets.splitlines()[1].startswith("managedclusterset.cluster.open-cluster-management.io/")
    assert [line.split()[0] for line in placements.splitlines()[1:]] == [
        "placement.cluster.open-cluster-management.io/analytics",
        "placement.cluster.open-cluster-management.io/canary-rollout",
        "placement.cluster.open-cluster-management.io/web-frontend",
    ]


def test_kind_slash_name_and_its_mistakes(run: Run) -> None:
    one = run("get", "placement/analytics", "mcl/onprem-dc1", "-n", "apps", *F, "-o", "name")
    assert one.stdout == (
        "placement.cluster.open-cluster-management.io/analytics\n"
        "managedcluster.cluster.open-cluster-management.io/onprem-dc1\n"
    )
    mixed = run("get", "placement/analytics", "mcl", *F)
    assert mixed.code == 2
    assert "there is no need to specify a resource type as a separate argument" in mixed.stderr
    missing = run("get", "placement/analytics", "placement/nope", "-n", "apps", *F, "-o", "name")
    assert missing.code == 1
    assert missing.stdout == "placement.cluster.open-cluster-management.io/analytics\n"
    assert 'placements.cluster.open-cluster-management.io "nope" not found' in missing.stderr
    unknown = run("get", "nokind/x", *F)
    assert unknown.code == 2
    assert 'doesn\'t have a resource type "nokind"' in unknown.stderr


def test_get_all_lists_every_kind_that_has_objects(run: Run) -> None:
    result = run("get", "all", "-A", *F, "-o", "json")
    assert result.code == 0, result.stderr
    kinds = {item["kind"] for item in yaml.safe_load(result.stdout)["items"]}
    assert kinds == {
        "ManagedCluster",
        "ManagedClusterSet",
        "ManagedClusterSetBinding",
        "Placement",
        "AddOnPlacementScore",
    }
    nothing = run("get", "all", "-n", "nowhere", "-l", "no=such", *F)
    assert nothing.stdout == ""
    assert nothing.stderr == "No resources found in nowhere namespace.\n"


def test_namespace_options_on_a_cluster_scoped_kind_are_ignored(run: Run) -> None:
    plain = run("get", "mcl", *F, "-o", "name")
    for extra in (["-A"], ["-n", "apps"]):
        assert run("get", "mcl", *F, "-o", "name", *extra).stdout == plain.stdout


def test_yaml_of_one_object_by_name_is_the_object(run: Run) -> None:
    one = yaml.safe_load(run("get", "mcl", "onprem-dc1", *F, "-o", "yaml").stdout)
    assert one["kind"] == "ManagedCluster"
    empty = yaml.safe_load(run("get", "mcl", *F, "-l", "no=such", "-o", "yaml").stdout)
    assert empty == {
        "apiVersion": "v1",
        "items": [],
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }


def test_age_counts_to_now(run: Run, tmp_path) -> None:
    fleet = tmp_path / "sets.yaml"
    fleet.write_text(
        "apiVersion: cluster.open-cluster-management.io/v1beta2\nkind: ManagedClusterSet\n"
        "metadata: {name: old, creationTimestamp: '2020-01-01T00:00:00Z'}\n"
        "spec: {clusterSelector: {selectorType: ExclusiveClusterSetLabel}}\n"
        "---\n"
        "apiVersion: cluster.open-cluster-management.io/v1beta2\nkind: ManagedClusterSet\n"
        "metadata: {name: undated}\n"
        "spec: {clusterSelector: {selectorType: ExclusiveClusterSetLabel}}\n"
    )
    result = run("get", "mclsets", "-f", str(fleet))
    header, old, undated = result.stdout.splitlines()
    assert header.split()[-1] == "AGE"
    assert re.fullmatch(r"\d+y(\d+d)?", old.split()[-1])  # years old by the clock
    assert undated.split()[-1] == "<unknown>"


def test_completion_scripts_and_what_they_complete(run: Run) -> None:
    for shell in ("bash", "zsh", "fish"):
        script = run("completion", shell)
        assert script.code == 0, script.stderr
        assert "_CLUSTERPLACE_COMPLETE" in script.stdout
    assert run("completion", "tcsh").code == 2
