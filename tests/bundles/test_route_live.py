"""The route output folder held open for a run (route --watch): change sets by the same
rules as a route run, an index kept in memory that is byte for byte a run's, and a
failure that leaves the folder to a converge."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.bundles import INDEX_NAME, route_into
from clusterplace.bundles.route_dir import RouteCopy, index_text, route_copies
from clusterplace.bundles.route_live import IndexText, LiveRouteDir
from clusterplace.errors import InputErrors
from clusterplace.federation import route
from clusterplace.outputs import OutputError
from clusterplace.outputs.lock import FolderBusyError, folder_lock

ENTRY = st.fixed_dictionaries({"object": st.text(max_size=8), "sha256": st.text(max_size=8)})


@given(
    first=st.dictionaries(st.text(min_size=1, max_size=6), ENTRY, max_size=8),
    edits=st.lists(st.tuples(st.text(min_size=1, max_size=6), st.none() | ENTRY), max_size=12),
)
def test_the_index_kept_entry_by_entry_is_the_text_a_run_writes(
    first: dict[str, dict[str, str]], edits: list[tuple[str, dict[str, str] | None]]
) -> None:
    index = IndexText(first)
    files = dict(first)
    assert index.text() == index_text(files)
    for rel, entry in edits:
        index.set(rel, entry)
        if entry is None:
            files.pop(rel, None)
        else:
            files[rel] = entry
        assert index.text() == index_text(files)


def _objects(value: str = "b") -> list[dict[str, object]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm{i}", "namespace": "shop"},
            "data": {"a": value},
        }
        for i in range(3)
    ]


CLUSTERS = {"eu": {"region": "eu"}, "us": {"region": "us"}}


def _copy(cluster: str, i: int, value: str = "b") -> RouteCopy:
    (routed,) = route([_objects(value)[i]], {cluster: {}})
    (made,) = route_copies([routed])
    return made


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def live(tmp_path: Path):
    folder = LiveRouteDir(tmp_path / "out")
    folder.open()
    folder.converge(route_copies(route(_objects(), CLUSTERS)))
    yield folder
    folder.close()


def test_a_change_set_leaves_what_a_run_writes(live: LiveRouteDir, tmp_path: Path) -> None:
    plan, refused = live.update(
        [_copy("eu", 0, "changed"), _copy("asia", 1)], [("us", "configmap_shop_cm2.yaml", "")]
    )
    assert refused == []
    assert {(c.action, c.relpath) for c in plan.changes} == {
        ("update", "eu/configmap_shop_cm0.yaml"),
        ("add", "asia/configmap_shop_cm1.yaml"),
        ("remove", "us/configmap_shop_cm2.yaml"),
    }
    once = tmp_path / "once"
    route_into(once, route(_objects(), CLUSTERS))
    run_copies = [
        *route_copies(route(_objects(), CLUSTERS)),
    ]
    # The same copies, written by one run.
    wanted = {c.relpath: c for c in run_copies}
    wanted["eu/configmap_shop_cm0.yaml"] = _copy("eu", 0, "changed")
    wanted["asia/configmap_shop_cm1.yaml"] = _copy("asia", 1)
    del wanted["us/configmap_shop_cm2.yaml"]
    fresh = LiveRouteDir(tmp_path / "fresh")
    with fresh:
        fresh.converge(wanted.values())
    assert _files(live.out_dir) == _files(tmp_path / "fresh")


def test_a_copy_edited_by_hand_is_kept_and_a_foreign_file_refused(live: LiveRouteDir) -> None:
    edited = live.out_dir / "eu" / "configmap_shop_cm0.yaml"
    edited.write_text("edited by hand\n")
    foreign = live.out_dir / "asia" / "configmap_shop_cm1.yaml"
    foreign.parent.mkdir()
    foreign.write_text("not ours\n")
    plan, refused = live.update(
        [_copy("eu", 0, "changed"), _copy("asia", 1)], [("eu", "configmap_shop_cm0.yaml", "")]
    )
    assert [(c.action, c.relpath) for c in plan.changes] == [("keep", "eu/configmap_shop_cm0.yaml")]
    assert [(copy.relpath, "never overwritten" in err.message) for copy, err in refused] == [
        ("asia/configmap_shop_cm1.yaml", True)
    ]
    assert edited.read_text() == "edited by hand\n"
    assert foreign.read_text() == "not ours\n"


def test_a_converge_refuses_a_foreign_file_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "eu").mkdir(parents=True)
    (out / "eu" / "configmap_shop_cm0.yaml").write_text("not ours\n")
    with LiveRouteDir(out) as folder, pytest.raises(InputErrors):
        folder.converge(route_copies(route(_objects(), CLUSTERS)))
    assert not (out / INDEX_NAME).exists()


def test_the_lock_is_held_for_the_whole_run(live: LiveRouteDir) -> None:
    with pytest.raises(FolderBusyError), folder_lock(live.out_dir):
        pass


def test_a_failed_write_changes_nothing_and_asks_for_a_converge(
    live: LiveRouteDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _files(live.out_dir)
    index = dict(live.index.files)

    def full(*_: object) -> None:
        raise OutputError("disk full")

    monkeypatch.setattr("clusterplace.outputs.transaction.FileTransaction.commit", full)
    with pytest.raises(OutputError):
        live.update([_copy("eu", 0, "changed")], [])
    assert live.stale
    assert live.index.files == index
    assert _files(live.out_dir) == before
    with pytest.raises(OutputError, match="converge"):
        live.update([_copy("eu", 0, "changed")], [])
    monkeypatch.undo()
    live.converge(route_copies(route(_objects(), CLUSTERS)))
    assert not live.stale
    assert _files(live.out_dir) == before


def test_its_own_writes_are_not_edits_but_someone_elses_are(live: LiveRouteDir) -> None:
    rels = [f"{c}/configmap_shop_cm{i}.yaml" for c in CLUSTERS for i in range(3)]
    assert live.edited(rels) == []
    live.update([_copy("eu", 0, "changed")], [("us", "configmap_shop_cm2.yaml", "")])
    assert live.edited(rels) == []  # rewritten and removed by the run itself
    (live.out_dir / "eu" / "configmap_shop_cm1.yaml").unlink()
    (live.out_dir / "us" / "configmap_shop_cm0.yaml").write_text("mine\n")
    assert live.edited(rels) == ["eu/configmap_shop_cm1.yaml", "us/configmap_shop_cm0.yaml"]
