"""kubectl's habits, checked against kubectl itself: the same objects on a real API
server, read by ``kubectl get`` and by ``clusterplace get --kubeconfig``, give the same
columns, order, names and errors: OCM's ManagedCluster printer columns, ``--sort-by``,
``-L``, ``--field-selector``, several kinds at once, ``kind/name``, ``-n``/``-A`` on a
cluster-scoped kind, ``-o yaml`` of a list, and ``describe`` without a name."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import RealHub

Run = Callable[..., Result]

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")

CLUSTERS = {
    # name: (labels, leaseDurationSeconds)
    "c1": ({"env": "prod", "tier": "gold"}, 90),
    "c10": ({"env": "dev"}, 30),
    "c2": ({"env": "prod", "cluster.open-cluster-management.io/clusterset": "all"}, 60),
    "c20": ({"env": "staging", "tier": "silver"}, 120),
}


@pytest.fixture
def hub(realhub: RealHub) -> Iterator[RealHub]:
    """Four clusters (numbers that sort differently as text), one with two URLs and
    conditions, a set bound to ``ns`` and two placements there."""
    for name, (labels, lease) in CLUSTERS.items():
        spec: dict[str, Any] = {"hubAcceptsClient": name != "c10", "leaseDurationSeconds": lease}
        if name == "c1":
            spec["managedClusterClientConfigs"] = [
                {"url": "https://c1-a.example:6443"},
                {"url": "https://c1-b.example:6443"},
            ]
        realhub.create("ManagedCluster", name, metadata={"labels": labels}, spec=spec)
    condition = {
        "reason": "Test",
        "message": "set by the test",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    status, answer = realhub.request(
        "PATCH",
        realhub.path("ManagedCluster", "c1") + "/status",
        {
            "status": {
                "conditions": [
                    {"type": "ManagedClusterJoined", "status": "True", **condition},
                    {"type": "ManagedClusterConditionAvailable", "status": "Unknown", **condition},
                ]
            }
        },
    )
    assert status == 200, answer
    realhub.create(
        "ManagedClusterSet",
        "all",
        spec={"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
    )
    realhub.namespace("ns")
    realhub.create("ManagedClusterSetBinding", "all", "ns", spec={"clusterSet": "all"})
    realhub.placement("web", {"numberOfClusters": 1})
    realhub.placement("db", {}, namespace="ns")
    yield realhub


def _kubectl(hub: RealHub, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", "--kubeconfig", str(hub.kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _ours(run: Run, hub: RealHub, *args: str) -> Result:
    return run(*args, "--kubeconfig", str(hub.kubeconfig))


def _cells(text: str) -> list[list[str]]:
    """A table's rows, cells split where kubectl pads (two spaces or more); the AGE
    column (which moves with the clock) left out."""
    lines = [line for line in text.splitlines() if line.strip()]
    header = re.split(r"\s{2,}", lines[0].strip())
    starts = [lines[0].index(h) for h in header]
    rows = []
    for line in lines:
        cells = [
            line[start : starts[i + 1] if i + 1 < len(starts) else None].strip()
            for i, start in enumerate(starts)
        ]
        rows.append([c for h, c in zip(header, cells, strict=True) if h != "AGE"])
    return rows


def test_managed_clusters_show_ocms_printer_columns(hub: RealHub, run: Run) -> None:
    theirs = _kubectl(hub, "get", "managedclusters")
    ours = _ours(run, hub, "get", "managedclusters")
    assert theirs.returncode == ours.code == 0, (theirs.stderr, ours.stderr)
    assert ours.stdout.splitlines()[0].split() == theirs.stdout.splitlines()[0].split()
    assert _cells(ours.stdout) == _cells(theirs.stdout)
    # The ages are kubectl's too: seconds old, in the same format.
    assert re.search(r"\s\d+s$", ours.stdout.splitlines()[1])


@pytest.mark.parametrize(
    "args",
    [
        ["--sort-by=.spec.leaseDurationSeconds", "-o", "name"],
        ["--sort-by=.metadata.name", "-o", "name"],  # c1 c10 c2 c20: text, not numbers
        ["-L", "env", "-L", "tier,cluster.open-cluster-management.io/clusterset"],
        ["-L", "env", "--sort-by=.metadata.labels.env", "--show-labels"],
        ["--field-selector", "metadata.name=c2", "-o", "name"],
        ["--field-selector", "metadata.name!=c2,metadata.name!=c1", "-o", "name"],
        ["-l", "env=prod", "-A", "-o", "name"],
        ["-n", "elsewhere", "-o", "name"],
    ],
)
def test_list_options_match_kubectl(hub: RealHub, run: Run, args: list[str]) -> None:
    theirs = _kubectl(hub, "get", "managedclusters", *args)
    ours = _ours(run, hub, "get", "managedclusters", *args)
    assert theirs.returncode == ours.code == 0, (theirs.stderr, ours.stderr)
    if "name" in args:
        assert ours.stdout == theirs.stdout
    else:
        assert _cells(ours.stdout) == _cells(theirs.stdout)


def test_sort_by_puts_objects_without_the_field_first(hub: RealHub, run: Run) -> None:
    args = ["get", "managedclusters", "--sort-by={.metadata.labels.tier}", "-o", "name"]
    theirs = _kubectl(hub, *args).stdout.splitlines()
    ours = _ours(run, hub, *args).stdout.splitlines()
    # kubectl's sort is not stable (Go's sort.Sort), so the order among objects without
    # the field is its accident; ours keeps them by name. What is ordered is the same.
    assert set(ours[:2]) == set(theirs[:2])
    assert ours[:2] == sorted(ours[:2])
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--field-selector", "spec.x=y"], "field label not supported: spec.x"),
        (["--field-selector", "metadata.name"], "can't understand 'metadata.name'"),
        (
            ["--sort-by=.metadata.labels.nothing", "-o", "custom-columns=N:.metadata.name"],
            'couldn\'t find any field with path "{.metadata.labels.nothing}" in the list of '
            "objects",
        ),
    ],
)
def test_bad_list_options_fail_as_kubectl_does(
    hub: RealHub, run: Run, args: list[str], message: str
) -> None:
    theirs = _kubectl(hub, "get", "managedclusters", *args)
    ours = _ours(run, hub, "get", "managedclusters", *args)
    assert theirs.returncode != 0 and ours.code != 0
    assert message in theirs.stderr
    assert message in ours.stderr
    assert "Traceback" not in ours.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["managedclusters,placements", "-A", "-o", "name"],
        ["placements,managedclustersets", "-n", "ns", "-o", "name"],
        ["placement/web", "placement/db", "-n", "ns", "-o", "name"],
        ["placement/web", "managedcluster/c2", "-n", "ns", "-o", "name"],
    ],
)
def test_several_kinds_and_kind_slash_name_match_kubectl(
    hub: RealHub, run: Run, args: list[str]
) -> None:
    theirs = _kubectl(hub, "get", *args)
    ours = _ours(run, hub, "get", *args)
    assert theirs.returncode == ours.code == 0, (theirs.stderr, ours.stderr)
    assert ours.stdout == theirs.stdout


def test_several_kinds_print_a_table_each_with_kind_names(hub: RealHub, run: Run) -> None:
    args = ["managedclusters,placements", "-n", "ns"]
    theirs = _kubectl(hub, "get", *args).stdout.split("\n\n")
    ours = _ours(run, hub, "get", *args).stdout.split("\n\n")
    assert len(ours) == len(theirs) == 2
    assert _cells(ours[0]) == _cells(theirs[0])
    assert [row[0] for row in _cells(ours[1])] == [row[0] for row in _cells(theirs[1])]
    # One kind asked for by kind/name keeps plain names, as kubectl's.
    single = _ours(run, hub, "get", "placement/web", "-n", "ns").stdout
    assert single.splitlines()[1].split()[0] == "web"


def test_a_list_in_yaml_is_one_list(hub: RealHub, run: Run) -> None:
    theirs = yaml.safe_load(_kubectl(hub, "get", "managedclusters", "-o", "yaml").stdout)
    ours = yaml.safe_load(_ours(run, hub, "get", "managedclusters", "-o", "yaml").stdout)
    assert list(ours) == list(theirs) == ["apiVersion", "items", "kind", "metadata"]
    assert ours["kind"] == theirs["kind"] == "List"
    names = [i["metadata"]["name"] for i in ours["items"]]
    assert names == [i["metadata"]["name"] for i in theirs["items"]]
    one = yaml.safe_load(_ours(run, hub, "get", "managedclusters", "c2", "-o", "yaml").stdout)
    assert one["kind"] == "ManagedCluster"


def test_describe_without_a_name_describes_every_placement(hub: RealHub, run: Run) -> None:
    theirs = _kubectl(hub, "describe", "placements", "-n", "ns").stdout
    ours = _ours(run, hub, "describe", "placements", "-n", "ns").stdout

    def names(text: str) -> list[str]:
        return re.findall(r"^Name:\s+(\S+)$", text, flags=re.MULTILINE)

    assert names(ours) == names(theirs) == ["db", "web"]
    # Two blank lines between descriptions, none after the last, as kubectl prints them.
    assert ours.count("\n\n\nName:") == theirs.count("\n\n\nName:") == 1
    empty = _ours(run, hub, "describe", "placements", "-n", "nowhere")
    assert empty.code == 0
    assert empty.stderr == _kubectl(hub, "describe", "placements", "-n", "nowhere").stderr


GO_TEMPLATES = [
    '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}',
    "{{range $i, $c := .items}}{{$i}}:{{$c.metadata.name}}="
    "{{$c.spec.leaseDurationSeconds}} {{end}}",
    "{{range .items}}{{.metadata.labels.env}}|{{.metadata.labels.nope}}|{{end}}",
    '{{range .items}}{{if eq .metadata.name "c2"}}two{{else if .spec.hubAcceptsClient}}yes'
    "{{else}}no{{end}},{{end}}",
    '{{len .items}} {{printf "%s has %v" (index .items 0).metadata.name '
    "(index .items 0).spec.leaseDurationSeconds}}",
    '{{range .items}}{{range $k, $v := .metadata.labels}}{{$k}}={{$v}};{{end}}{{"\\n"}}{{end}}',
    "{{- range .items }}\n{{ .metadata.name }}\n{{- end }}",
    "{{(index .items 0).metadata.labels}} {{(index .items 0).spec}}",
    "{{range .items}}{{with .spec.managedClusterClientConfigs}}{{(index . 0).url}}{{end}}{{end}}",
    '{{range .items}}{{print .spec.leaseDurationSeconds " " .spec.hubAcceptsClient}} {{end}}',
    '{{range .items}}{{exists . "spec" "managedClusterClientConfigs"}} {{end}}',
    "{{range .items}}{{if and .spec.hubAcceptsClient (gt .spec.leaseDurationSeconds 60)}}"
    "{{.metadata.name}} {{end}}{{end}}",
    '{{range .items}}{{if eq .metadata.name "c20"}}{{break}}{{end}}{{.metadata.name}} {{end}}',
    '{{printf "%d" (len .items)}} {{printf "%5.1f|%-4s|%q" 2.25 "ab" "q\\"x"}}',
    '{{range .items}}{{.metadata.name | printf "%q"}} {{end}}',
    '{{html "<a & \'b\'>"}} {{urlquery "a b&c"}}',
    '{{index (index .items 0).metadata.labels "env"}} {{slice "abcdef" 1 3}}',
    '{{not true}} {{or "" "x"}} {{and 1.0 0.0}} {{println "end" 1}}',
    "{{range .items}}{{$n := .metadata.name}}{{$n}}{{end}}",
    "{{/* a comment */}}{{range .items}}{{.nope.deeper}}{{end}}",
    '{{range .items}}{{printf "%s %d %v" .metadata.name .spec.leaseDurationSeconds 3}} {{end}}',
]


def test_go_templates_print_what_kubectl_prints(hub: RealHub, run: Run) -> None:
    # A large whole number: an integer for Kubernetes' JSON decoding, never 1e+06.
    hub.patch("ManagedCluster", "c20", {"spec": {"leaseDurationSeconds": 1000000}})
    wrong = []
    for template in GO_TEMPLATES:
        args = ["get", "managedclusters", "-o", f"go-template={template}"]
        theirs = _kubectl(hub, *args)
        ours = _ours(run, hub, *args)
        assert theirs.returncode == 0, (template, theirs.stderr)
        if ours.code != 0 or ours.stdout != theirs.stdout:
            wrong.append((template, theirs.stdout, ours.stdout, ours.stderr))
    assert wrong == []


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{eq (index .items 0).spec.leaseDurationSeconds 60.0}}", "incompatible types"),
        ("{{.items.x}}", "can't evaluate field x"),
        ("{{range .items}}", "unexpected EOF"),
        ("{{nofunc 1}}", 'function "nofunc" not defined'),
    ],
)
def test_go_template_errors_where_kubectl_errs(
    hub: RealHub, run: Run, template: str, message: str
) -> None:
    args = ["get", "managedclusters", "-o", f"go-template={template}"]
    theirs = _kubectl(hub, *args)
    ours = _ours(run, hub, *args)
    assert theirs.returncode != 0 and ours.code != 0
    assert message in theirs.stderr
    assert message in ours.stderr
    assert "Traceback" not in ours.stderr
