"""``route`` dividing workloads' replicas, and ``explain replicas``, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

NOW = "2026-11-20T10:00:00Z"
BASE = ("-f", "examples/manifests", "--clusters", "examples/fleet")


def _route(run, out: Path, *extra: str):
    return run("route", *BASE, "--output-dir", str(out), "--now", NOW, *extra)


def test_dry_run_shows_replicas_and_why(run, golden, tmp_path):
    out = tmp_path / "out"
    result = _route(run, out, "--dry-run", "--observed", "examples/observed")
    assert result.code == 0, result.stderr
    golden("route-replicas-dry-run.txt", result.stdout.replace(str(out), "OUT"))
    assert not out.exists()


def test_wide_shows_the_inputs(run, golden, tmp_path):
    out = tmp_path / "out"
    result = _route(run, out, "--format", "wide", "--observed", "examples/observed")
    assert result.code == 0, result.stderr
    golden("route-replicas-wide.txt", result.stdout.replace(str(out), "OUT"))


def test_copies_carry_their_share(run, tmp_path):
    out = tmp_path / "out"
    assert _route(run, out, "--observed", "examples/observed").code == 0
    shares = {
        cluster: yaml.safe_load((out / cluster / "deployment.apps_shop_web.yaml").read_text())
        for cluster in ("aws-prod-euw1", "azure-prod-weu", "onprem-dc1")
    }
    assert {c: d["spec"]["replicas"] for c, d in shares.items()} == {
        "aws-prod-euw1": 5,
        "azure-prod-weu": 2,
        "onprem-dc1": 2,
    }
    # Apart from spec.replicas each copy is the manifest as written.
    original = yaml.safe_load(Path("examples/manifests/60-deployment-web.yaml").read_text())
    for copy in shares.values():
        copy["spec"]["replicas"] = original["spec"]["replicas"]
        assert copy == original
    # Zero is written too: a selected cluster's copy exists with 0 replicas.
    checkout = yaml.safe_load(
        (out / "aws-prod-euw1" / "deployment.apps_shop_checkout.yaml").read_text()
    )
    assert checkout["spec"]["replicas"] == 0


def test_yaml_and_json_plans(run, tmp_path):
    out = tmp_path / "out"
    as_yaml = _route(run, out, "--dry-run", "--format", "yaml", "--observed", "examples/observed")
    as_json = _route(run, out, "--dry-run", "--format", "json", "--observed", "examples/observed")
    assert as_yaml.code == as_json.code == 0
    data = yaml.safe_load(as_yaml.stdout)
    assert data == json.loads(as_json.stdout)
    assert data["kind"] == "RoutePlan"
    web = next(o for o in data["objects"] if o["object"] == "Deployment/shop/web")
    azure = web["replicas"]["clusters"]["azure-prod-weu"]
    assert azure["replicas"] == 2 and azure["capacity"] == 2
    assert azure["observed"]["unschedulablePods"] == 2
    assert "kept 2 running" in azure["why"]
    namespace = next(o for o in data["objects"] if o["object"] == "Namespace/shop")
    assert "replicas" not in namespace


def test_webster_division(run, tmp_path):
    result = _route(run, tmp_path / "out", "--dry-run", "--division", "webster")
    assert result.code == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("deployment.apps_shop_web"))
    # onprem-dc1 takes its min 1; then by weight / (2 x count + 1): aws (2), azure (1),
    # aws (2/3), aws (2/5), azure and onprem tie at 1/3 (both taken, onprem reaches its
    # max 2), aws (2/7), aws (2/9 > azure's 1/5): 5, 2, 2.
    assert line == "deployment.apps_shop_web -> aws-prod-euw1=5, azure-prod-weu=2, onprem-dc1=2"


def _workload(path: Path, **meta_and_spec: object) -> None:
    annotations = meta_and_spec.pop("annotations", None)
    spec = {"selector": {"matchLabels": {"app": "x"}}, **meta_and_spec}
    meta: dict[str, object] = {"name": "x", "namespace": "shop"}
    if annotations:
        meta["annotations"] = annotations
    doc = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def test_invalid_preferences_warn_and_use_the_defaults(run, tmp_path):
    manifests = tmp_path / "m"
    manifests.mkdir()
    _workload(
        manifests / "rs.yaml",
        replicas=10,
        annotations={"federation.kubernetes.io/replica-set-preferences": '{"clusters": 1}'},
    )
    result = run(
        "route",
        "-f",
        str(manifests),
        "--clusters",
        "examples/fleet",
        "--output-dir",
        str(tmp_path / "out"),
        "--dry-run",
    )
    assert result.code == 0
    assert result.stderr == (
        f"warning: {manifests / 'rs.yaml'}:7: ReplicaSet/shop/x: "
        "metadata.annotations.federation.kubernetes.io/replica-set-preferences: invalid "
        "replica preferences (clusters: cannot decode number 1 as an object); using the "
        'defaults {"clusters": {"*": {"weight": 1}}}\n'
    )
    line = result.stdout.splitlines()[0]
    assert sum(int(part.split("=")[1]) for part in line.split(" -> ")[1].split(", ")) == 10


def test_bad_replicas_is_an_error_and_nothing_is_written(run, tmp_path):
    manifests, out = tmp_path / "m", tmp_path / "out"
    manifests.mkdir()
    _workload(manifests / "rs.yaml", replicas="3")
    result = run(
        "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
    )
    assert result.code == 1
    assert result.stderr == (
        f"error: {manifests / 'rs.yaml'}:10: ReplicaSet/shop/x: spec.replicas: must be an "
        "integer, not '3'\n"
    )
    assert "Traceback" not in result.stderr and not out.exists()
    _workload(manifests / "rs.yaml", replicas=-2)
    result = run(
        "route", "-f", str(manifests), "--clusters", "examples/fleet", "--output-dir", str(out)
    )
    assert result.code == 1 and "must not be negative, not -2" in result.stderr
    assert not out.exists()


def test_observed_objects_that_do_not_parse_are_errors(run, tmp_path):
    observed, out = tmp_path / "obs", tmp_path / "out"
    (observed / "aws-prod-euw1").mkdir(parents=True)
    (observed / "aws-prod-euw1" / "pods.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nstatus:\n"
        "  conditions:\n  - {type: PodScheduled, lastTransitionTime: yesterday}\n"
    )
    result = _route(run, out, "--observed", str(observed))
    assert result.code == 1
    assert "pods.yaml:6: Pod/shop/p: status.conditions[0].lastTransitionTime:" in result.stderr
    assert "not an RFC 3339 timestamp" in result.stderr and not out.exists()


def test_observed_folders_of_unknown_clusters_are_ignored_with_a_warning(run, tmp_path):
    observed = tmp_path / "obs"
    (observed / "mars-1").mkdir(parents=True)
    result = _route(run, tmp_path / "out", "--dry-run", "--observed", str(observed))
    assert result.code == 0
    assert f"warning: {observed / 'mars-1'}: no ManagedCluster named 'mars-1'; ignored" in (
        result.stderr
    )


def test_explain_replicas(run, golden):
    result = run(
        "explain",
        "replicas",
        "web",
        "-n",
        "shop",
        *BASE,
        "--observed",
        "examples/observed",
        "--now",
        NOW,
    )
    assert result.code == 0, result.stderr
    golden("explain-replicas-web.txt", result.stdout)


def test_explain_replicas_yaml_and_unknown_names(run):
    result = run("explain", "replicas", "checkout", "-n", "shop", *BASE, "-o", "yaml")
    assert result.code == 0, result.stderr
    data = yaml.safe_load(result.stdout)
    assert data["kind"] == "ReplicaExplanation" and data["replicas"] == 3
    assert sum(c["replicas"] for c in data["result"]["clusters"].values()) == 3
    assert data["steps"]["rounds"][0]["weightSum"] == 8
    missing = run("explain", "replicas", "nope", "-n", "shop", *BASE)
    assert missing.code == 1
    assert missing.stderr.startswith(
        'error: no Deployment or ReplicaSet "nope" in namespace "shop"'
    )
