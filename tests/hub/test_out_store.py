"""The output folder as a store: the sink's writes are published as changes, and what
someone else does to OUT is found again, by the watch or, if it missed an event, by the
periodic rescan."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clusterplace.api import PlacementDecision
from clusterplace.controller import ObjectChange, Write
from clusterplace.hub.directory.layout import OutLayout
from clusterplace.hub.directory.out_store import OutStore
from clusterplace.hub.directory.sink import DirectorySink
from tests.support.builders import NOW, decision


def test_own_writes_are_published_and_a_rescan_finds_only_others_edits(tmp_path: Path) -> None:
    layout = OutLayout(tmp_path / "out")
    store = OutStore(layout)
    published: list[ObjectChange] = []
    sink = DirectorySink(layout, lambda: NOW, store, published.extend)
    pd = decision("ns", "p-decision-1", ["c1"], placement_label="p")
    asyncio.run(sink.write_decision(Write("create", pd)))
    assert [(c.old, c.new) for c in published] == [(None, pd)]
    assert store.rescan() == []  # its own write: nothing to read again
    path = layout.decision("ns", "p-decision-1")
    path.write_text(path.read_text().replace("c1", "c9"))
    assert store.rescan() == [path]
    kind, key, now = store.reread(path) or ("", ("", ""), None)
    assert (kind, key) == ("PlacementDecision", ("ns", "p-decision-1"))
    assert isinstance(now, PlacementDecision) and now.cluster_names == ["c9"]
    assert store.rescan() == []
    path.unlink()
    assert store.rescan() == [path]
    assert store.reread(path) == ("PlacementDecision", ("ns", "p-decision-1"), None)
    assert store.decisions == {}


def test_a_relative_output_folder_is_spelled_one_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sink, the watcher and a scan name OUT's files differently (relative,
    absolute, resolved): the store's own writes still need no reading again."""
    monkeypatch.chdir(tmp_path)
    layout = OutLayout(Path("out"))
    store = OutStore(layout)
    sink = DirectorySink(layout, lambda: NOW, store)
    pd = decision("ns", "p-decision-1", ["c1"], placement_label="p")
    asyncio.run(sink.write_decision(Write("create", pd)))
    assert store.rescan() == []
    assert store.unchanged(tmp_path / "out" / "placementdecisions" / "ns" / "p-decision-1.yaml")
    assert store.reread(Path("out/placementdecisions/ns/p-decision-1.yaml")) is None
