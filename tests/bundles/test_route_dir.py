"""The route output directory: plan, apply, re-run, and never touch files we did not write."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusterplace.bundles import INDEX_NAME, RoutePlan, plan_route_dir, route_into
from clusterplace.bundles.route_dir import index_text, route_copies
from clusterplace.errors import InputError, InputErrors
from clusterplace.federation import route, route_and_divide
from clusterplace.outputs.dumpers import dump_yaml_stream
from tests.support.builders import annotate, req

CLUSTERS = {"eu": {"location": "europe"}, "us": {"location": "usa"}}
WEB = "deployment.apps_shop_web.yaml"
SETTINGS = "configmap_shop_settings.yaml"


def deployment(location: str | None = None, replicas: int = 1) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "web", "namespace": "shop"}
    if location:
        meta["annotations"] = annotate(req("location", "in", location))
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {"replicas": replicas},
    }


def settings() -> dict[str, Any]:
    meta = {"name": "settings", "namespace": "shop"}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"a": "b"}}


def plan(out: Path, objects: Sequence[dict[str, Any]]) -> RoutePlan:
    return plan_route_dir(out, route(objects, CLUSTERS))


def run(out: Path, objects: Sequence[dict[str, Any]], *, force: bool = False) -> RoutePlan:
    return route_into(out, route(objects, CLUSTERS), force=force)


def actions(result: RoutePlan) -> dict[str, str]:
    return {c.relpath: c.action for c in result.changes}


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (hidden ones included) and its bytes."""
    if not directory.exists():
        return {}
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def plain(directory: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(directory).items() if k != INDEX_NAME}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "out"


# --- adding, re-running, updating ----------------------------------------------------------


def test_first_run_adds_every_copy(out: Path) -> None:
    result = run(out, [deployment("europe"), settings()])
    assert actions(result) == {f"eu/{WEB}": "add", f"eu/{SETTINGS}": "add", f"us/{SETTINGS}": "add"}
    assert (result.count("add"), result.count("remove")) == (3, 0)
    assert sorted(plain(out)) == sorted(actions(result))
    assert yaml.safe_load((out / "eu" / WEB).read_text(encoding="utf-8")) == deployment("europe")


def test_second_identical_run_changes_nothing(out: Path) -> None:
    objects = [deployment("europe"), settings()]
    run(out, objects)
    before = snapshot(out)
    again = run(out, objects)
    assert set(actions(again).values()) == {"unchanged"}
    assert snapshot(out) == before


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("content", {f"eu/{WEB}": "update"}),
        ("deleted", {f"eu/{WEB}": "add"}),
    ],
)
def test_rerun_updates_changed_or_missing_copies(
    out: Path, change: str, expected: dict[str, str]
) -> None:
    run(out, [deployment("europe"), settings()])
    if change == "deleted":
        (out / "eu" / WEB).unlink()
    new = deployment("europe", replicas=3 if change == "content" else 1)
    result = run(out, [new, settings()])
    assert {k: v for k, v in actions(result).items() if v != "unchanged"} == expected
    assert yaml.safe_load((out / "eu" / WEB).read_text(encoding="utf-8")) == new


def test_changed_selector_moves_the_copy(out: Path) -> None:
    run(out, [deployment("europe")])
    result = run(out, [deployment("usa")])
    assert actions(result) == {f"eu/{WEB}": "remove", f"us/{WEB}": "add"}
    assert sorted(plain(out)) == [f"us/{WEB}"]


def test_object_no_longer_given_is_removed(out: Path) -> None:
    run(out, [deployment(), settings()])
    result = run(out, [settings()])
    assert {k for k, v in actions(result).items() if v == "remove"} == {f"eu/{WEB}", f"us/{WEB}"}
    assert sorted(plain(out)) == [f"eu/{SETTINGS}", f"us/{SETTINGS}"]


def test_hand_edited_stale_copy_is_kept(out: Path) -> None:
    run(out, [deployment("europe")])
    edited = out / "eu" / WEB
    edited.write_text("# mine now\n" + edited.read_text(encoding="utf-8"), encoding="utf-8")
    result = run(out, [deployment("usa")])
    assert actions(result) == {f"eu/{WEB}": "keep", f"us/{WEB}": "add"}
    assert edited.read_text(encoding="utf-8").startswith("# mine now\n")
    assert (out / "us" / WEB).exists()


def _edit(path: Path) -> None:
    path.write_text("# mine now\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_hand_edited_copy_still_routed_is_kept_too(out: Path) -> None:
    """Drift is treated alike both ways: an edited copy is never overwritten nor
    removed without --force."""
    run(out, [deployment("europe")])
    _edit(out / "eu" / WEB)
    result = run(out, [deployment("europe", replicas=5)])
    assert actions(result) == {f"eu/{WEB}": "keep"}
    assert (out / "eu" / WEB).read_text(encoding="utf-8").startswith("# mine now\n")


@pytest.mark.parametrize("routed_later", [["europe"], ["usa"], []])
def test_a_kept_copy_never_blocks_a_later_run(out: Path, routed_later: list[str]) -> None:
    run(out, [deployment("europe")])
    _edit(out / "eu" / WEB)
    run(out, [deployment("usa")])  # kept, and still ours in the index
    for region in [*routed_later, "europe"]:
        result = run(out, [deployment(region)])  # never "was not written by clusterplace"
        assert actions(result).get(f"eu/{WEB}") in ("keep", None)
    assert (out / "eu" / WEB).read_text(encoding="utf-8").startswith("# mine now\n")


@pytest.mark.parametrize("still_routed", [True, False])
def test_force_overwrites_or_removes_edited_copies(out: Path, still_routed: bool) -> None:
    run(out, [deployment("europe")])
    _edit(out / "eu" / WEB)
    result = run(out, [deployment("europe" if still_routed else "usa")], force=True)
    assert actions(result)[f"eu/{WEB}"] == ("update" if still_routed else "remove")
    assert (out / "eu" / WEB).exists() is still_routed
    if still_routed:
        assert yaml.safe_load((out / "eu" / WEB).read_text(encoding="utf-8")) == deployment(
            "europe"
        )


def test_force_replaces_a_file_clusterplace_did_not_write(out: Path) -> None:
    (out / "eu").mkdir(parents=True)
    (out / "eu" / WEB).write_text("hand-made\n", encoding="utf-8")
    with pytest.raises(InputError, match="give --force to replace it"):
        run(out, [deployment("europe")])
    assert actions(run(out, [deployment("europe")], force=True)) == {f"eu/{WEB}": "update"}


def test_stale_copy_already_deleted_is_not_reported(out: Path) -> None:
    run(out, [deployment("europe")])
    (out / "eu" / WEB).unlink()
    assert actions(run(out, [deployment("usa")])) == {f"us/{WEB}": "add"}


# --- the index -------------------------------------------------------------------------------


def test_index_records_every_written_file(out: Path) -> None:
    run(out, [deployment("europe"), settings()])
    index = json.loads((out / INDEX_NAME).read_text(encoding="utf-8"))
    assert index["kind"] == "RouteIndex"
    files = index["files"]
    assert sorted(files) == sorted(plain(out))
    for rel, entry in files.items():
        assert entry["sha256"] == hashlib.sha256((out / rel).read_bytes()).hexdigest()
    assert files[f"eu/{WEB}"]["object"] == "Deployment/shop/web"


CORRUPT = {
    "not-json": "{",
    "list": "[]",
    "no-files": json.dumps({"kind": "RouteIndex"}),
    "wrong-kind": json.dumps({"kind": "Other", "files": {}}),
    "files-not-mapping": json.dumps({"kind": "RouteIndex", "files": []}),
    "entry-not-mapping": json.dumps({"kind": "RouteIndex", "files": {"eu/x.yaml": 3}}),
}


@pytest.mark.parametrize("text", CORRUPT.values(), ids=CORRUPT.keys())
def test_corrupt_index_is_an_input_error(out: Path, text: str) -> None:
    out.mkdir()
    (out / INDEX_NAME).write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        plan(out, [settings()])
    assert info.value.location.file == str(out / INDEX_NAME)
    assert "is not a clusterplace route index" in info.value.message
    assert snapshot(out) == {INDEX_NAME: text.encode()}


# --- files clusterplace did not write --------------------------------------------------------


@pytest.mark.parametrize("earlier_run", [False, True], ids=["fresh", "after-a-run"])
def test_foreign_files_are_never_overwritten(out: Path, earlier_run: bool) -> None:
    if earlier_run:
        run(out, [settings()])
    foreign = {f"eu/{WEB}": "mine\n", f"us/{WEB}": "also mine\n"}
    for rel, text in foreign.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    before = snapshot(out)
    with pytest.raises(InputErrors) as info:
        plan(out, [deployment(), settings()])
    assert [p.location.file for p in info.value.problems] == [str(out / rel) for rel in foreign]
    assert all("not written by clusterplace" in p.message for p in info.value.problems)
    assert snapshot(out) == before


def test_foreign_file_beside_outputs_is_left_alone(out: Path) -> None:
    (out / "eu").mkdir(parents=True)
    (out / "eu" / "notes.md").write_text("hi\n", encoding="utf-8")
    run(out, [settings()])
    run(out, [])
    assert plain(out) == {"eu/notes.md": b"hi\n"}


def test_object_name_cannot_escape_the_output_directory(tmp_path: Path) -> None:
    """BUG: object_file_name keeps '/' and '..' of metadata.name, so a manifest named
    ``x/../../../../evil`` is written outside the output directory."""
    out = tmp_path / "a" / "b" / "out"
    evil = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x/../../../../evil"}}
    with contextlib.suppress(ValueError, InputError):
        route_into(out, route([evil], {"c1": {}}))
    assert [p for p in snapshot(tmp_path) if not p.startswith("a/b/out/")] == []


def test_index_entry_outside_the_output_directory_is_never_deleted(tmp_path: Path) -> None:
    """BUG: plan_route_dir trusts index paths, so an index listing ``../victim.txt`` with
    its digest makes the next run delete a file outside the output directory."""
    out = tmp_path / "out"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    entry = {"object": "ConfigMap/x", "sha256": hashlib.sha256(b"precious\n").hexdigest()}
    out.mkdir()
    index = {"kind": "RouteIndex", "files": {"../victim.txt": entry}}
    (out / INDEX_NAME).write_text(json.dumps(index), encoding="utf-8")
    with contextlib.suppress(InputError):
        run(out, [])
    assert snapshot(tmp_path).get("victim.txt") == b"precious\n"


# --- large folders: what is skipped must not change the outcome ------------------------------


def stamps(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file's (inode, modification time): a file written again gets new ones."""
    return {
        p.relative_to(directory).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def many(count: int, revision: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"app{i}", "namespace": "shop"},
            "data": {"revision": str(revision if i == 3 else 1)},
        }
        for i in range(count)
    ]


def test_a_rerun_with_nothing_changed_writes_no_file(out: Path) -> None:
    run(out, many(20))
    before = stamps(out)
    folder = out.stat().st_mtime_ns
    assert set(actions(run(out, many(20))).values()) == {"unchanged"}
    assert stamps(out) == before
    assert out.stat().st_mtime_ns == folder  # no temporary, journal or index either


def test_one_object_changed_rewrites_only_its_copies(out: Path) -> None:
    run(out, many(20))
    before = stamps(out)
    result = run(out, many(20, revision=2))
    after = stamps(out)
    rewritten = {rel for rel in after if after[rel] != before[rel]}
    assert rewritten == {"eu/configmap_shop_app3.yaml", "us/configmap_shop_app3.yaml", INDEX_NAME}
    assert {k for k, v in actions(result).items() if v != "unchanged"} == rewritten - {INDEX_NAME}


def test_the_index_text_is_the_json_dumps_of_it() -> None:
    files = {
        f"eu/{WEB}": {"object": "Deployment/shop/web", "sha256": "ab" * 32},
        "us/caf\u00e9_\u2603.yaml": {"object": 'ConfigMap/sh"op/x\\y\u00e9', "sha256": "cd" * 32},
        "us/odd.yaml": {"object": "ConfigMap/x", "sha256": "ef" * 32, "note": "edited"},
        "eu/few.yaml": {"object": "ConfigMap/x"},
        "eu/none.yaml": {},
    }
    for entries in (files, {}, {f"eu/{WEB}": files[f"eu/{WEB}"]}):
        index = {"apiVersion": "clusterplace.io/v1", "kind": "RouteIndex", "files": entries}
        assert index_text(entries) == json.dumps(index, indent=2, sort_keys=True) + "\n"


def test_an_index_nested_too_deeply_is_an_input_error(out: Path) -> None:
    out.mkdir()
    text = '{"kind": "RouteIndex", "files": {"eu/x.yaml": ' + "[" * 200_000 + "]" * 200_000 + "}}"
    (out / INDEX_NAME).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="is not a clusterplace route index"):
        plan(out, [settings()])


def test_a_divided_workload_is_rendered_once_per_replica_count() -> None:
    preferences = {"rebalance": True, "clusters": {"*": {"weight": 1}}}
    web = deployment(replicas=7)
    web["metadata"]["annotations"] = {
        "federation.kubernetes.io/deployment-preferences": json.dumps(preferences)
    }
    clusters: dict[str, dict[str, str]] = {f"c{i}": {} for i in range(5)}
    routed, _ = route_and_divide([web], clusters, now=datetime(2026, 11, 22, tzinfo=UTC))
    copies = list(route_copies(routed))
    texts = {copy.cluster: copy.text for copy in copies}
    assert sorted(texts) == sorted(clusters)
    for cluster, text in texts.items():  # each copy as rendered on its own
        assert text == dump_yaml_stream([dict(routed[0].copy_for(cluster))])
    counts = {routed[0].division.replicas(c) for c in clusters}  # type: ignore[union-attr]
    assert sum(counts) >= 1 and len(counts) > 1
    assert len({id(text) for text in texts.values()}) == len(counts)  # one text per count
