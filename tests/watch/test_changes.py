"""The one answer to "has this file changed": stat signatures, and the file watch with
its rescans and its failure policy (a failing watch is reported, rescans go on)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from clusterplace.watch import Signatures, signature, tree_signatures, watch_paths


def test_a_signature_changes_with_an_edit_in_place_or_a_rename(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("one")
    known = Signatures()
    first = known.record(path)
    assert first is not None and known.unchanged(path)
    path.write_text("three")  # a new size
    assert not known.unchanged(path)
    known.record(path)
    other = tmp_path / ".a.tmp"
    other.write_text("three")
    os.utime(other, ns=(0, path.stat().st_mtime_ns))
    other.replace(path)  # same size and time, a new inode
    assert not known.unchanged(path)
    path.unlink()
    assert signature(path) is None and known.changed([]) == [path]


def test_changed_lists_new_edited_and_gone_files(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in ("a", "b", "c"))
    for p in (a, b):
        p.write_text("x")
    known = Signatures()
    for p in (a, b):
        known.record(p)
    b.write_text("longer")
    c.write_text("new")
    a.unlink()
    assert known.changed([b, c]) == [a, b, c]


def test_tree_signatures_leave_hidden_files_out(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.yaml").write_text("a")
    (tmp_path / ".hidden").write_text("h")
    before = tree_signatures(tmp_path)
    assert [Path(p).name for p, _ in before] == ["a.yaml"]
    (tmp_path / ".hidden").write_text("changed")
    assert tree_signatures(tmp_path) == before
    (tmp_path / "sub" / "a.yaml").write_text("edited")
    assert tree_signatures(tmp_path) != before


def test_an_edit_is_reported_with_its_path(tmp_path: Path) -> None:
    async def run() -> set[Path] | None:
        stop = asyncio.Event()
        stream = watch_paths([tmp_path], stop=stop, rescan_s=30.0)
        following = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0)  # the watch is installed
        await asyncio.sleep(0.2)
        (tmp_path / "a.yaml").write_text("a")
        found = await asyncio.wait_for(following, 60.0)
        stop.set()
        await stream.aclose()
        return found

    found = asyncio.run(run())
    assert found is not None
    assert tmp_path.resolve() / "a.yaml" in {p.resolve() for p in found}


def test_a_failing_watch_is_reported_once_and_rescans_go_on(tmp_path: Path) -> None:
    reports: list[str] = []

    async def run() -> list[set[Path] | None]:
        stop = asyncio.Event()
        stream = watch_paths(
            [tmp_path / "missing"], stop=stop, rescan_s=0.01, report=reports.append
        )
        got = [await asyncio.wait_for(anext(stream), 60.0) for _ in range(3)]
        stop.set()
        rest = [item async for item in stream]
        return got + rest

    found = asyncio.run(run())
    assert found[:3] == [None, None, None]  # rescans only
    assert len(reports) == 1
    assert reports[0].startswith("error: the file watch stopped (FileNotFoundError")
    assert reports[0].endswith("every input is looked at every 0.01 s instead")
