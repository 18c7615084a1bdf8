"""What route --watch reads: each file checked as route checks it, the last good version
in force after a bad edit, one file as a watched folder, and an unreadable file that is
removed no longer holding the writes back."""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml

from clusterplace.federation import ANNOTATION
from clusterplace.fedsync import RouteInputs


def later() -> float:
    """A moment by which every file written so far has settled."""
    return time.time() + 60


def manifest(name: str, region: str | None = None, replicas: object = 1) -> str:
    meta: dict[str, object] = {"name": name, "namespace": "shop"}
    if region is not None:
        selector = [{"key": "region", "operator": "In", "values": [region]}]
        meta["annotations"] = {ANNOTATION: json.dumps(selector)}
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta}
    body["spec"] = {"replicas": replicas}
    return yaml.safe_dump(body)


def fleet(*names: str) -> str:
    return yaml.safe_dump_all(
        [
            {
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": n, "labels": {"region": "eu"}},
            }
            for n in names
        ]
    )


def scan(inputs: RouteInputs) -> bool:
    changed = False
    for folder in inputs.folders:
        changed |= bool(folder.scan(now=later()))
    return changed


def test_a_bad_edit_keeps_the_last_good_version_and_is_reported(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    web = tmp_path / "m" / "web.yaml"
    web.write_text(manifest("web", "eu"))
    (tmp_path / "fleet.yaml").write_text(fleet("a", "b"))
    reports: list[str] = []
    inputs = RouteInputs([tmp_path / "m"], [tmp_path / "fleet.yaml"], None, report=reports.append)
    assert scan(inputs)
    state = inputs.snapshot()
    assert list(state.objects) == ["deployment.apps_shop_web.yaml"]
    assert sorted(state.labels) == ["a", "b"]  # one file as a watched folder
    for bad, why in (
        (manifest("web", "eu").replace('"In"', '"Within"'), "operator 'Within'"),
        (manifest("web", "eu", replicas="three"), "spec.replicas: must be an integer"),
        ("kind: [\n", "invalid YAML"),
    ):
        web.write_text(bad)
        time.sleep(0.01)
        assert not scan(inputs)
        assert why in reports[-1] and f"{web}:" in reports[-1], reports[-1]
        assert "stays in force" in reports[-1]
        assert inputs.snapshot().objects["deployment.apps_shop_web.yaml"].data == (
            state.objects["deployment.apps_shop_web.yaml"].data
        )
    assert inputs.unknown == []


def test_a_file_never_read_holds_writes_back_until_fixed_or_removed(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    broken = tmp_path / "m" / "broken.yaml"
    broken.write_text("kind: [\n")
    (tmp_path / "fleet.yaml").write_text(fleet("a"))
    inputs = RouteInputs([tmp_path / "m"], [tmp_path / "fleet.yaml"], None)
    scan(inputs)
    assert inputs.unknown == [broken]
    broken.unlink()
    scan(inputs)
    assert inputs.unknown == []


def test_an_object_under_two_paths_is_taken_from_the_first(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "web.yaml").write_text(manifest("web", folder))
    (tmp_path / "fleet.yaml").write_text(fleet("a"))
    reports: list[str] = []
    inputs = RouteInputs(
        [tmp_path / "one", tmp_path / "two"],
        [tmp_path / "fleet.yaml"],
        None,
        report=reports.append,
    )
    scan(inputs)
    (doc,) = inputs.snapshot().objects.values()
    assert doc.source.name == str(tmp_path / "one" / "web.yaml")
    inputs.snapshot()
    assert [r for r in reports if "defined twice" in r] == [
        f"{tmp_path / 'two'}: Deployment/shop/web is defined twice (also under an earlier "
        "path); the first one is in force"
    ]


def test_observed_objects_are_read_per_cluster_folder(tmp_path: Path) -> None:
    observed = tmp_path / "observed"
    (observed / "a" / "deep").mkdir(parents=True)
    (observed / "a" / "deep" / "x.yaml").write_text(manifest("web"))
    (observed / "stray.yaml").write_text(manifest("web"))
    (tmp_path / "fleet.yaml").write_text(fleet("a"))
    (tmp_path / "m").mkdir()
    reports: list[str] = []
    inputs = RouteInputs(
        [tmp_path / "m"], [tmp_path / "fleet.yaml"], observed, report=reports.append
    )
    scan(inputs)
    state = inputs.snapshot()
    assert state.observed is not None and list(state.observed) == ["a"]
    assert f"warning: {observed / 'stray.yaml'}: not a cluster folder; ignored" in reports
