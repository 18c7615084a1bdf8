"""The hand-offs in examples/ run: Argo CD's ApplicationSet ``clusterDecisionResource``
generator reads exactly what ``schedule`` (and the controller) write as OCM
PlacementDecisions, and a git directory generator reads a ``route`` folder.

The generator is followed as Argo CD's duck-type generator works: the ConfigMap names
the resource (``apiVersion``, the plural ``kind``), the list under ``.status``
(``statusListKey``) and the key naming an Argo CD cluster (``matchKey``); objects are
listed in Argo CD's namespace by the generator's label selector; their lists are
concatenated; each entry matched to an Argo CD cluster by name; the parameters are the
cluster's ``name`` and ``server`` and every key of the entry."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from clusterplace.api.naming import plural
from clusterplace.labels import parse
from tests.support.builders import write_big_fleet
from tests.support.cli import run_in_process
from tests.support.paths import ROOT

ARGOCD = ROOT / "examples" / "argocd"
GITOPS = ROOT / "examples" / "route-gitops"
PARAM = re.compile(r"\{\{\s*([\w.]+)\s*\}\}")


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def generate(
    config: dict[str, str],
    generator: dict[str, Any],
    objects: list[dict[str, Any]],
    argo_clusters: dict[str, str],
    namespace: str,
) -> list[dict[str, str]]:
    """The parameter sets the clusterDecisionResource generator makes of ``objects``."""
    group_version, kind = config["apiVersion"], config["kind"]
    assert group_version.find("/") >= 1
    list_key = config.get("statusListKey") or "clusters"
    match_key = config["matchKey"]
    selector = parse(
        ",".join(f"{k}={v}" for k, v in generator["labelSelector"]["matchLabels"].items())
    )
    listed = [
        o
        for o in objects
        if o["apiVersion"] == group_version
        and plural(o["kind"]) == kind
        and o["metadata"].get("namespace") == namespace
        and selector.matches(o["metadata"].get("labels") or {})
    ]
    assert listed, "no clusterDecisionResources found"
    params = []
    for obj in listed:
        for entry in (obj.get("status") or {}).get(list_key) or ():
            name = str(entry[match_key])
            if name not in argo_clusters:
                continue  # skipped with a warning: the generator creates no cluster
            params.append(
                {
                    "name": name,
                    "server": argo_clusters[name],
                    **{k: str(v) for k, v in entry.items()},
                }
            )
    return params


def template_params(template: Any) -> set[str]:
    return set(PARAM.findall(yaml.safe_dump(template)))


def test_the_argocd_generator_reads_exactly_what_schedule_writes() -> None:
    (config,) = documents(ARGOCD / "argocd" / "configmap.yaml")
    (appset,) = documents(ARGOCD / "argocd" / "applicationset.yaml")
    (generator,) = [g["clusterDecisionResource"] for g in appset["spec"]["generators"]]
    assert generator["configMapRef"] == config["metadata"]["name"]
    result = run_in_process("schedule", "-f", str(ARGOCD / "hub"), "-o", "yaml")
    assert result.code == 0, result.stderr
    objects = list(yaml.safe_load_all(result.stdout))
    decisions = [o for o in objects if o["kind"] == "PlacementDecision"]
    # What the generator reads of each entry: every key becomes a parameter, so an
    # entry carries exactly the cluster's name (matchKey) and OCM's reason, no more.
    assert {tuple(sorted(e)) for d in decisions for e in d["status"]["decisions"]} == {
        ("clusterName", "reason")
    }
    servers = {f"cluster{i}": f"https://cluster{i}.example.com" for i in (1, 2, 3)}
    params = generate(config["data"], generator, objects, servers, appset["metadata"]["namespace"])
    assert params == [
        {"name": c, "server": servers[c], "clusterName": c, "reason": ""}
        for c in ("cluster1", "cluster2")
    ]
    # Every parameter the template uses is one the generator gives.
    assert template_params(appset["spec"]["template"]) <= set(params[0])


def test_every_page_of_a_large_placement_is_read(tmp_path: Path) -> None:
    """230 clusters: three pages, all listed by the placement label the ApplicationSet
    selects on."""
    write_big_fleet(tmp_path, clusters=230)
    (config,) = documents(ARGOCD / "argocd" / "configmap.yaml")
    result = run_in_process("schedule", "-f", str(tmp_path), "-o", "yaml")
    assert result.code == 0, result.stderr
    objects = list(yaml.safe_load_all(result.stdout))
    placements = [o for o in objects if o["kind"] == "Placement"]
    placement = placements[0]["metadata"]
    pages = [
        o
        for o in objects
        if o["kind"] == "PlacementDecision"
        and o["metadata"]["labels"]["cluster.open-cluster-management.io/placement"]
        == placement["name"]
    ]
    generator = {
        "labelSelector": {
            "matchLabels": {"cluster.open-cluster-management.io/placement": placement["name"]}
        }
    }
    everyone = {
        e["clusterName"]: "https://x" for page in pages for e in page["status"]["decisions"]
    }
    params = generate(config["data"], generator, objects, everyone, placement["namespace"])
    assert len(pages) > 1
    assert sorted(p["name"] for p in params) == sorted(everyone)


def test_a_route_folder_is_what_a_git_directory_generator_reads(tmp_path: Path) -> None:
    (appset,) = documents(GITOPS / "applicationset.yaml")
    (generator,) = [g["git"] for g in appset["spec"]["generators"]]
    (pattern,) = [d["path"] for d in generator["directories"]]
    base = pattern.removesuffix("/*")
    out = tmp_path / base
    result = run_in_process(
        "route",
        "-f",
        str(ROOT / "examples" / "manifests"),
        "--clusters",
        str(ROOT / "examples" / "fleet"),
        "--output-dir",
        str(out),
    )
    assert result.code == 0, result.stderr
    clusters = run_in_process(
        "get", "clusters", "-f", str(ROOT / "examples" / "fleet"), "-o", "name"
    )
    names = {line.rsplit("/", 1)[1] for line in clusters.stdout.split()}
    # The generator's directories: those directly under the folder (path.Match on
    # "routed/*"); the record file is a file, not a directory.
    folders = sorted(p for p in out.iterdir() if p.is_dir())
    assert {f.name for f in folders} <= names and folders
    for folder in folders:
        for path in folder.iterdir():
            assert path.suffix == ".yaml", path
            (obj,) = documents(path)
            assert {"apiVersion", "kind", "metadata"} <= set(obj)
        params = {"path": f"{base}/{folder.name}", "path.basename": folder.name}
        assert template_params(appset["spec"]["template"]) <= set(params)
