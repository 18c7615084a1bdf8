"""The CLI as kubectl users type it: resource names, get for every kind, ``-o name``,
``jsonpath``, ``custom-columns``, ``--no-headers``, ``--show-labels``, decision groups
written one way, and the note on PreferNoSelect taints."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.support.cli import Result
from tests.support.paths import EXAMPLES, FLEET

Run = Callable[..., Result]
Golden = Callable[[str, str], None]
NOW = "2026-11-22T12:00:00Z"
F = ["-f", str(FLEET)]


@pytest.mark.parametrize(
    "kind",
    [
        "placements",
        "placement",
        "Placement",
        "PLACEMENTS",
        "placements.cluster.open-cluster-management.io",
        "placement.v1beta1.cluster.open-cluster-management.io",
    ],
)
def test_get_takes_kubectl_s_names(run: Run, kind: str) -> None:
    result = run("get", kind, "-n", "apps", *F, "-o", "name")
    assert result.code == 0, result.stderr
    assert result.stdout == (
        "placement.cluster.open-cluster-management.io/analytics\n"
        "placement.cluster.open-cluster-management.io/canary-rollout\n"
        "placement.cluster.open-cluster-management.io/web-frontend\n"
    )


@pytest.mark.parametrize("kind", ["clusters", "cluster", "mcl", "mcls", "ManagedCluster"])
def test_clusters_by_any_name(run: Run, kind: str) -> None:
    result = run("get", kind, "gpu-lab-usc1", *F, "-o", "name")
    assert (result.code, result.stdout) == (
        0,
        "managedcluster.cluster.open-cluster-management.io/gpu-lab-usc1\n",
    )


def test_an_unknown_resource_type_is_kubectl_s_error(run: Run) -> None:
    result = run("get", "pods", *F)
    assert result.code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == 'error: the server doesn\'t have a resource type "pods"'
    assert "  managedclusters (managedcluster, mcl, mcls, clusters, cluster)" in lines
    assert "  manifestworkreplicasets (manifestworkreplicaset, mwrs)" in lines


def test_describe_and_explain_take_names_too(run: Run) -> None:
    described = run("describe", "placements", "analytics", "-n", "apps", *F, "--now", NOW)
    assert described.code == 0, described.stderr
    assert described.stdout.startswith("Name:         analytics\n")
    explained = run(
        "explain", "placements.cluster.open-cluster-management.io", "analytics",
        "-n", "apps", *F, "--now", NOW, "--selected", "-o", "name",
    )  # fmt: skip
    assert explained.code == 0, explained.stderr
    assert explained.stdout.splitlines() == [
        "managedcluster.cluster.open-cluster-management.io/aws-prod-use1",
        "managedcluster.cluster.open-cluster-management.io/gcp-staging-euw4",
        "managedcluster.cluster.open-cluster-management.io/gpu-lab-usc1",
    ]
    refused = run("describe", "mcl", "x", *F)
    assert refused.code == 2
    assert refused.stderr.startswith(
        "error: clusterplace describe does not take managedclusters (it takes placements)"
    )


def test_explain_mwrs_is_explain_rollout(run: Run) -> None:
    files = ["-f", str(EXAMPLES / "delivery"), "-f", str(FLEET)]
    by_kind = run("explain", "mwrs", "shop-config", "-n", "apps", *files, "--now", NOW)
    by_command = run("explain", "rollout", "shop-config", "-n", "apps", *files, "--now", NOW)
    assert by_kind.code == 0, by_kind.stderr
    assert by_kind.stdout == by_command.stdout
    named = run("explain", "mwrs", "shop-config", "-n", "apps", *files, "--now", NOW, "-o", "name")
    assert named.stdout.startswith("managedcluster.cluster.open-cluster-management.io/")


@pytest.mark.parametrize(
    ("golden_name", "args"),
    [
        ("get-mclsets-wide.txt", ["get", "mclsets", "-o", "wide"]),
        ("get-mclsetbindings-all.txt", ["get", "mclsetbinding", "-A", "-o", "wide"]),
        ("get-addonplacementscores.txt", ["get", "addonplacementscores", "-A"]),
        (
            "get-placements-custom-columns.txt",
            [
                "get", "placements", "-A", "--schedule", "--now", NOW, "-o",
                "custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,"
                "SELECTED:.status.numberOfSelectedClusters,"
                "SATISFIED:.status.conditions[?(@.type==\"PlacementSatisfied\")].reason",
            ],
        ),
        (
            "get-clusters-jsonpath.txt",
            [
                "get", "mcl", "-l", "location=europe", "-o",
                'jsonpath={range .items[*]}{.metadata.name}{"\\t"}'
                '{.metadata.labels.tier}{"\\n"}{end}',
            ],
        ),
        ("get-clusters-show-labels.txt", ["get", "clusters", "-l", "tier=gold", "--show-labels"]),
        ("schedule-name.txt", ["schedule", "--now", NOW, "-o", "name"]),
        (
            "explain-canary-wide.txt",
            ["explain", "placement", "canary-rollout", "-n", "apps", "--now", NOW, "-o", "wide"],
        ),
        (
            "what-if-groups-wide.txt",
            ["what-if", "--now", NOW, "--set", "cluster/aws-prod-use1:labels.tier=silver",
             "-o", "wide"],
        ),
    ],
)  # fmt: skip
def test_golden(run: Run, golden: Golden, golden_name: str, args: list[str]) -> None:
    result = run(*args, *F)
    assert result.code == 0, result.stderr
    golden(golden_name, result.stdout)


def test_get_one_object_prints_it_not_a_list(run: Run) -> None:
    one = run("get", "placement", "web-frontend", "-n", "apps", *F, "-o", "json")
    assert json.loads(one.stdout)["kind"] == "Placement"
    two = run("get", "placement", "web-frontend", "analytics", "-n", "apps", *F, "-o", "json")
    data = json.loads(two.stdout)
    assert data["kind"] == "List"
    assert [i["metadata"]["name"] for i in data["items"]] == ["web-frontend", "analytics"]
    path = run(
        "get", "placement", "web-frontend", "-n", "apps", *F, "--schedule", "--now", NOW,
        "-o", "jsonpath={.status.numberOfSelectedClusters}",
    )  # fmt: skip
    assert (path.code, path.stdout) == (0, "3")  # kubectl adds no newline


def test_a_missing_name_is_an_error_after_the_others(run: Run) -> None:
    result = run("get", "placements", "analytics", "nope", "-n", "apps", *F, "-o", "name")
    assert result.code == 1
    assert result.stdout == "placement.cluster.open-cluster-management.io/analytics\n"
    assert result.stderr == (
        'error: placements.cluster.open-cluster-management.io "nope" not found\n'
    )


def test_no_headers(run: Run) -> None:
    with_headers = run("get", "placementdecisions", "-n", "apps", *F, "--schedule", "--now", NOW)
    without = run(
        "get", "placementdecisions", "-n", "apps", *F, "--schedule", "--now", NOW, "--no-headers"
    )
    # Columns are as wide as what is shown (kubectl's too): compare the cells.
    cells = [line.split() for line in with_headers.stdout.splitlines()]
    assert [line.split() for line in without.stdout.splitlines()] == cells[1:]
    for args in (
        ["schedule", "--now", NOW],
        ["explain", "placement", "analytics", "-n", "apps", "--now", NOW],
        ["what-if", "--now", NOW, "--set", "cluster/aws-prod-use1:labels.tier=silver"],
    ):
        full = [line.split() for line in run(*args, *F).stdout.splitlines()]
        headless = [line.split() for line in run(*args, *F, "--no-headers").stdout.splitlines()]
        assert headless == full[1:], args


def test_new_kinds_read_the_hub(run: Run, tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    shutil.copy(EXAMPLES / "delivery" / "shop-config.yaml", hub)
    done = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert done.code == 0, done.stderr
    works = run("get", "manifestworks", "-A", "--hub", str(hub))
    assert works.code == 0, works.stderr
    header, *rows = works.stdout.splitlines()
    assert header.split() == ["NAMESPACE", "NAME", "APPLIED", "AVAILABLE", "MANIFESTS", "AGE"]
    assert {r.split()[0] for r in rows} == {"aws-prod-euw1", "azure-prod-weu"}  # the canaries
    mwrs = run("get", "mwrs", "-n", "apps", "--hub", str(hub), "-o", "wide")
    assert mwrs.code == 0, mwrs.stderr
    assert mwrs.stdout.splitlines()[0].split() == [
        "NAME", "PLACEMENT", "FOUND", "MANIFESTWORKS", "APPLIED", "PLACEMENT-REFS", "SUMMARY",
    ]  # fmt: skip
    assert mwrs.stdout.splitlines()[1].startswith("shop-config ")
    # schedule reads the hub too: its decisions are the existing ones, so nothing moves.
    scheduled = run("schedule", "--hub", str(hub), "--now", NOW, "-o", "name")
    assert scheduled.code == 0, scheduled.stderr
    assert "placement.cluster.open-cluster-management.io/analytics\n" in scheduled.stdout


def test_prefer_no_select_has_no_effect_and_says_so(
    run: Run, golden: Golden, tmp_path: Path
) -> None:
    fleet = tmp_path / "fleet"
    shutil.copytree(FLEET, fleet)
    path = fleet / "clusters.yaml"
    docs = list(yaml.safe_load_all(path.read_text()))
    for doc in docs:
        if doc and doc["metadata"]["name"] == "aws-prod-use1":
            doc.setdefault("spec", {}).setdefault("taints", []).append(
                {"key": "maintenance", "value": "soon", "effect": "PreferNoSelect",
                 "timeAdded": "2026-11-01T00:00:00Z"}
            )  # fmt: skip
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    args = ["explain", "placement", "web-frontend", "-n", "apps", "--now", NOW]
    tainted = run(*args, "-f", str(fleet), "aws-prod-use1", "aws-prod-euw1")
    assert tainted.code == 0, tainted.stderr
    golden("explain-prefer-no-select.txt", tainted.stdout)
    # ... and it changes nothing: the same clusters, the same scores.
    plain = run(*args, *F, "aws-prod-use1", "aws-prod-euw1")
    assert [line.split()[:5] for line in tainted.stdout.splitlines()] == [
        line.split()[:5] for line in plain.stdout.splitlines()
    ]
    data = yaml.safe_load(run(*args, "-f", str(fleet), "aws-prod-use1", "-o", "yaml").stdout)
    (cluster,) = data["status"]["clusters"]
    assert cluster["decisionGroup"] == {"index": 0}
    assert cluster["notes"] == [
        "taint maintenance=soon:PreferNoSelect has no effect (OCM's TaintToleration filter "
        "only acts on NoSelect and NoSelectIfNew)"
    ]


def test_what_if_yaml_has_group_moves(run: Run) -> None:
    result = run(
        "what-if", *F, "--now", NOW, "--set", "cluster/aws-prod-use1:labels.tier=silver",
        "-o", "yaml",
    )  # fmt: skip
    data = yaml.safe_load(result.stdout)
    (diff,) = data["placements"]
    assert diff["placement"] == "apps/canary-rollout"
    assert (diff["gained"], diff["lost"]) == ([], [])
    assert diff["groups"] == [
        {
            "cluster": "aws-prod-use1",
            "before": {"index": 1},
            "after": {"index": 0, "name": "canary"},
        }
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "replicas", "checkout", "-n", "shop", "-f", str(EXAMPLES / "manifests"),
         "--clusters", str(FLEET)],
        ["explain", "rollout", "shop-config", "-n", "apps", "-f", str(EXAMPLES / "delivery"),
         "-f", str(FLEET)],
    ],
)  # fmt: skip
def test_text_reports_take_every_format(run: Run, args: list[str]) -> None:
    table = run(*args, "--now", NOW)
    assert table.code == 0, table.stderr
    for output in ("table", "wide", "text"):
        assert run(*args, "--now", NOW, "-o", output).stdout == table.stdout, output
    names = run(*args, "--now", NOW, "-o", "name")
    assert names.code == 0 and names.stdout
    assert all(n.startswith("managedcluster.cluster.open-cluster-management.io/")
               for n in names.stdout.splitlines())  # fmt: skip
    kind = run(*args, "--now", NOW, "-o", "jsonpath={.kind}")
    assert kind.stdout in ("ReplicaExplanation", "RolloutExplanation")
    columns = run(*args, "--now", NOW, "-o", "custom-columns=CLUSTER:.cluster", "--no-headers")
    assert columns.stdout.split() == [n.rpartition("/")[2] for n in names.stdout.split()]


def test_plan_module_takes_every_format(run: Run) -> None:
    args = ["plan-module", str(EXAMPLES / "my-platform"), *F]
    names = run(*args, "-o", "name")
    assert names.code == 0, names.stderr
    assert names.stdout.startswith("componentdefinition.core.oam.dev/")
    path = run(*args, "-o", "jsonpath={.kind}")
    assert path.stdout == "ModulePlan"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("xml", "unknown output format 'xml'"),
        ("jsonpath={.items[*", "unclosed action"),
        ("custom-columns=NAME", "expected <header>:<json-path-expr>"),
        ("jsonpath-file=/no/such/template", "jsonpath-file /no/such/template: cannot read"),
        ("jsonpath=", "template format specified but no template given"),
    ],
)
def test_bad_formats_are_usage_errors(run: Run, value: str, message: str) -> None:
    for command in (["get", "clusters"], ["schedule"], ["what-if", "--set", "x"]):
        result = run(*command, *F, "-o", value)
        assert result.code == 2 and result.stdout == "", command
        assert message in result.stderr


def test_why_not_refuses_name(run: Run) -> None:
    result = run(
        "explain", "placement", "analytics", "-n", "apps", *F, "--now", NOW,
        "--why-not", "azure-prod-weu", "-o", "name",
    )  # fmt: skip
    assert result.code == 2 and "-o name is not a --why-not format" in result.stderr
    path = run(
        "explain", "placement", "analytics", "-n", "apps", *F, "--now", NOW,
        "--why-not", "azure-prod-weu", "-o", "jsonpath={.status.stage}",
    )  # fmt: skip
    assert (path.code, path.stdout) == (0, "Predicate")
