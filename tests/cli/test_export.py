"""``clusterplace export clusterprofiles``: OCM's lifecycle (one profile per namespace
binding a set of the cluster) or one inventory namespace; read back, the same fleet."""

from __future__ import annotations

from pathlib import Path

import yaml

from clusterplace.api import KubeObject
from clusterplace.codecs import load_fleet
from tests.support.builders import binding, cluster, cluster_set
from tests.support.cli import run_in_process


def write(path: Path, *objects: KubeObject) -> Path:
    path.write_text(yaml.safe_dump_all([o.to_dict() for o in objects], sort_keys=False))
    return path


def profiles(text: str) -> list[tuple[str, str]]:
    return [
        (d["metadata"]["namespace"], d["metadata"]["name"])
        for d in yaml.safe_load_all(text)
        if d.get("kind") == "ClusterProfile"
    ]


def test_one_profile_per_binding_namespace_as_ocm_writes_them(tmp_path: Path) -> None:
    fleet = write(
        tmp_path / "fleet.yaml",
        cluster("a", cluster_set="prod"),
        cluster("b", cluster_set="dev"),
        cluster("gone", cluster_set="prod", deleting=True),
        cluster_set("prod"),
        cluster_set("dev"),
        binding("argocd", "prod"),
        binding("kueue-system", "prod"),
        binding("kueue-system", "dev"),
        binding("nowhere", "missing"),  # its set does not exist: not Bound
    )
    result = run_in_process("export", "clusterprofiles", "-f", str(fleet))
    assert result.code == 0, result.stderr
    assert profiles(result.stdout) == [
        ("argocd", "a"),
        ("kueue-system", "a"),
        ("kueue-system", "b"),
    ]


def test_one_inventory_namespace_and_back(tmp_path: Path) -> None:
    fleet = write(
        tmp_path / "fleet.yaml",
        cluster("a", labels={"region": "eu"}, claims={"platform": "AWS"}),
        cluster("b"),
    )
    result = run_in_process(
        "export", "clusterprofiles", "-f", str(fleet), "-n", "inventory", "--with-labels"
    )
    assert result.code == 0, result.stderr
    assert profiles(result.stdout) == [("inventory", "a"), ("inventory", "b")]
    (tmp_path / "profiles.yaml").write_text(result.stdout)
    back = load_fleet(tmp_path / "profiles.yaml")
    assert back.clusters["a"].labels["region"] == "eu"
    assert back.clusters["a"].claims == {"platform": "AWS"}


def test_without_bindings_nothing_is_written_and_that_is_said(tmp_path: Path) -> None:
    fleet = write(tmp_path / "fleet.yaml", cluster("a"))
    result = run_in_process("export", "clusterprofiles", "-f", str(fleet))
    assert result.code == 0
    assert profiles(result.stdout) == []
    assert "give --namespace NS to write them all there" in result.stderr


def test_a_bad_namespace_is_a_usage_error(tmp_path: Path) -> None:
    fleet = write(tmp_path / "fleet.yaml", cluster("a"))
    result = run_in_process("export", "clusterprofiles", "-f", str(fleet), "-n", "Not_OK")
    assert result.code == 2
    assert "--namespace" in result.stderr
