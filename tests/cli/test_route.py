"""``clusterplace route`` end to end: plan, writes, later runs, and refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.support.paths import ROOT

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"


def _tree(root: Path) -> dict[str, str]:
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def _manifest(path: Path, name: str, selector: list[dict[str, object]] | None) -> None:
    meta: dict[str, object] = {"name": name, "namespace": "shop"}
    if selector is not None:
        meta["annotations"] = {ANNOTATION: json.dumps(selector)}
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}))


def test_dry_run_prints_the_plan_and_writes_nothing(run, golden, tmp_path):
    out = tmp_path / "out"
    result = run(
        "route",
        "-f",
        "examples/manifests",
        "--clusters",
        "examples/fleet",
        "--output-dir",
        str(out),
        "--dry-run",
    )
    assert result.code == 0, result.stderr
    golden("route-dry-run.txt", result.stdout.replace(str(out), "OUT"))
    assert not out.exists()


def test_writes_one_file_per_object_and_cluster(run, tmp_path):
    out = tmp_path / "out"
    result = run(
        "route",
        "-f",
        "examples/manifests",
        "--clusters",
        "examples/fleet",
        "--output-dir",
        str(out),
    )
    assert result.code == 0, result.stderr
    assert result.stdout.endswith(f"Wrote {out}: 39 add\n")
    europe = sorted(p.name for p in (out / "aws-prod-euw1").iterdir())
    assert "configmap_shop_gdpr-settings.yaml" in europe
    assert "configmap_shop_gdpr-settings.yaml" not in {
        p.name for p in (out / "aws-prod-use1").iterdir()
    }
    copy = yaml.safe_load((out / "aws-prod-euw1" / "configmap_shop_gdpr-settings.yaml").read_text())
    original = yaml.safe_load(
        (ROOT / "examples/manifests/10-configmap-gdpr-settings.yaml").read_text()
    )
    assert copy == original
    again = run(
        "route",
        "-f",
        "examples/manifests",
        "--clusters",
        "examples/fleet",
        "--output-dir",
        str(out),
    )
    assert again.stdout.endswith(f"Wrote {out}: 39 unchanged\n")


def test_a_later_run_removes_copies_whose_selector_no_longer_matches(run, tmp_path):
    manifests, out = tmp_path / "m", tmp_path / "out"
    manifests.mkdir()
    _manifest(
        manifests / "cm.yaml",
        "settings",
        [{"key": "location", "operator": "in", "values": ["europe"]}],
    )
    mine = out / "aws-prod-use1" / "notes.txt"
    assert (
        run(
            "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
        ).code
        == 0
    )
    assert (out / "aws-prod-euw1" / "configmap_shop_settings.yaml").exists()
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("not written by clusterplace")

    _manifest(
        manifests / "cm.yaml", "settings", [{"key": "location", "operator": "in", "values": ["us"]}]
    )
    result = run(
        "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
    )
    assert result.code == 0, result.stderr
    assert "remove   aws-prod-euw1" in result.stdout
    assert not (out / "aws-prod-euw1" / "configmap_shop_settings.yaml").exists()
    assert (out / "aws-prod-use1" / "configmap_shop_settings.yaml").exists()
    assert mine.read_text() == "not written by clusterplace"


def test_invalid_annotation_names_object_and_requirement_and_writes_nothing(run, tmp_path):
    manifests, out = tmp_path / "m", tmp_path / "out"
    shutil.copytree(ROOT / "examples/manifests", manifests)
    assert (
        run(
            "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
        ).code
        == 0
    )
    before = _tree(out)
    _manifest(
        manifests / "zz-bad.yaml", "bad", [{"key": "env", "operator": "Equals", "values": ["x"]}]
    )
    (manifests / "40-configmap-sidecar-config.yaml").unlink()  # would otherwise be removed
    result = run(
        "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
    )
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {manifests / 'zz-bad.yaml'}:5: ConfigMap/shop/bad: metadata.annotations."
        f"{ANNOTATION}: invalid "
        f"{ANNOTATION} annotation: requirement [0] "
        '{"key":"env","operator":"Equals","values":["x"]}: operator \'Equals\' is not '
        "recognized; valid operators: In, in, =, ==, NotIn, notin, Exists, exists, !=, "
        "DoesNotExist, !, Gt, gt, >, Lt, lt, <\n"
    )
    assert _tree(out) == before


def test_refuses_to_overwrite_a_file_it_did_not_write(run, tmp_path):
    manifests, out = tmp_path / "m", tmp_path / "out"
    manifests.mkdir()
    _manifest(manifests / "cm.yaml", "settings", None)
    theirs = out / "onprem-dc1" / "configmap_shop_settings.yaml"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("hand-made\n")
    result = run(
        "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
    )
    assert result.code == 1
    assert "was not written by clusterplace route; it is never overwritten" in result.stderr
    assert _tree(out) == {"onprem-dc1/configmap_shop_settings.yaml": "hand-made\n"}


def test_duplicate_manifest_names_both_places(run, tmp_path):
    manifests = tmp_path / "m"
    manifests.mkdir()
    _manifest(manifests / "a.yaml", "same", None)
    _manifest(manifests / "b.yaml", "same", None)
    result = run(
        "route",
        "-f",
        str(manifests),
        "--clusters",
        "examples/fleet",
        "--output-dir",
        str(tmp_path / "o"),
    )
    assert result.code == 1
    assert str(manifests / "a.yaml") in result.stderr
    assert str(manifests / "b.yaml") in result.stderr
    assert not (tmp_path / "o").exists()


def test_an_empty_fleet_is_refused_and_removes_nothing(run, tmp_path):
    out = tmp_path / "out"
    assert (
        run(
            "route",
            "-f",
            "examples/manifests",
            "--clusters",
            "examples/fleet",
            "--output-dir",
            str(out),
        ).code
        == 0
    )
    before = sorted(p.name for p in out.rglob("*"))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "nothing.yaml").write_text("# no clusters here\n")
    result = run(
        "route", "-f", "examples/manifests", "--clusters", str(empty), "--output-dir", str(out)
    )
    assert result.code == 1
    assert "no ManagedCluster found in the --clusters input" in result.stderr
    assert sorted(p.name for p in out.rglob("*")) == before


def test_a_cluster_cannot_be_named_like_a_control_file(run, tmp_path):
    clusters = tmp_path / "c.yaml"
    clusters.write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: .clusterplace-route.json}\nspec: {hubAcceptsClient: true}\n"
    )
    result = run(
        "route",
        "-f",
        "examples/manifests",
        "--clusters",
        str(clusters),
        "--output-dir",
        str(tmp_path / "o"),
    )
    assert result.code == 1 and "RFC 1123 label" in result.stderr
    assert not (tmp_path / "o").exists()


def test_a_cluster_that_gets_nothing_any_more_keeps_no_folder(run, tmp_path):
    """Removing a cluster's last copy removes its folder too: the folder then looks as
    a clean run to the new fleet leaves it."""
    manifests, fleet, out = tmp_path / "m", tmp_path / "fleet.yaml", tmp_path / "out"
    manifests.mkdir()
    _manifest(
        manifests / "cm.yaml", "settings", [{"key": "env", "operator": "In", "values": ["a"]}]
    )
    cluster = "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
    fleet.write_text(
        f"{cluster}metadata: {{name: one, labels: {{env: a}}}}\n---\n"
        f"{cluster}metadata: {{name: two, labels: {{env: a}}}}\n"
    )
    args = ("route", "-f", str(manifests), "--clusters", str(fleet), "--output-dir", str(out))
    assert run(*args).code == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["one", "two"]
    fleet.write_text(fleet.read_text().replace("two, labels: {env: a}", "two, labels: {env: b}"))
    result = run(*args)
    assert result.code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["one"]
    clean = tmp_path / "clean"
    assert run(*args[:-1], str(clean)).code == 0
    assert _tree(out).keys() == _tree(clean).keys()
    assert {p.name for p in out.iterdir()} == {p.name for p in clean.iterdir()}


def test_o_is_the_plan_format_and_never_a_folder(run, tmp_path):
    base = (
        "route",
        "-f",
        str(ROOT / "examples/manifests"),
        "--clusters",
        str(ROOT / "examples/fleet"),
    )
    old = run(*base, "-o", "out", cwd=tmp_path)
    assert old.code == 2
    assert "the output folder is --output-dir out" in old.stderr
    as_yaml = run(*base, "-o", "yaml", cwd=tmp_path)
    assert as_yaml.code == 2
    assert "--output-dir" in as_yaml.stderr
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / "dir"
    planned = run(*base, "--output-dir", str(out), "--dry-run", "-o", "yaml", cwd=tmp_path)
    assert planned.code == 0, planned.stderr
    assert yaml.safe_load(planned.stdout)["kind"] == "RoutePlan"
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_gen_module_takes_output_dir_and_refuses_o(run, tmp_path):
    refused = run("gen-module", str(ROOT / "examples/my-platform"), "-o", "yaml", cwd=tmp_path)
    assert refused.code == 2
    assert "the folder is --output-dir yaml" in refused.stderr
    assert list(tmp_path.iterdir()) == []
