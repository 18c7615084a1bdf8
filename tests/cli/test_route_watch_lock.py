"""``route --watch`` never writes an output folder it has not locked: when the folder it
locked is deleted (or replaced by another), the watch stops with an error instead of
writing a new, unlocked one, so a second run taking the new folder is never a second
writer beside it."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.cli import command
from tests.support.route_watch import Watch
from tests.support.waiting import wait_for


def write_inputs(folder: Path) -> tuple[Path, Path]:
    manifests = folder / "manifests"
    manifests.mkdir()
    (manifests / "settings.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "shop"},
                "data": {"currency": "EUR"},
            }
        )
    )
    fleet = folder / "fleet.yaml"
    fleet.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1",
                    "kind": "ManagedCluster",
                    "metadata": {"name": name},
                    "spec": {"hubAcceptsClient": True},
                }
                for name in ("c0", "c1")
            ]
        )
    )
    return manifests, fleet


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[Watch, list[str], Path]]:
    manifests, fleet = write_inputs(tmp_path)
    out = tmp_path / "out"
    args = ["-f", str(manifests), "--clusters", str(fleet), "--output-dir", str(out)]
    watch = Watch(*args, cwd=tmp_path)
    try:
        watch.wait_watching()
        wait_for(
            lambda: (out / "c1" / "configmap_shop_settings.yaml").is_file(), what="the first write"
        )
        yield watch, args, out
    finally:
        if watch.proc.poll() is None:
            watch.stop(signal.SIGKILL)


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_watch_whose_output_folder_goes_stops_and_never_writes_it_unlocked(
    running: tuple[Watch, list[str], Path], how: str
) -> None:
    watch, args, out = running
    # Moved away first, as one step (the watch puts back copies deleted inside a folder
    # it still holds: an rmtree in progress would race with it), then deleted.
    gone = out.with_name("gone")
    out.rename(gone)
    shutil.rmtree(gone)
    if how == "replaced":
        out.mkdir()  # another folder of the same name: not the one locked
    # An edit that would be written: the watch must not write it into an unlocked folder.
    manifests = Path(args[1])
    (manifests / "more.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "more"}})
    )
    watch.proc.wait(120)  # it stops by itself
    code = watch.stop()
    log = watch.text()
    assert code == 1, log
    # (a replaced folder may be seen while it is gone, between the two steps)
    seen = ("deleted", "replaced") if how == "replaced" else ("deleted",)
    assert any(f"error: {out}: the output folder was {w}" in log for w in seen), log
    assert "while this run held its lock" in log
    assert "Traceback" not in log
    assert not list(out.rglob("*.yaml"))  # nothing written after the folder went
    # The folder is free: one run, then one watch, take it (one writer at a time).
    done = subprocess.run([*command(), "route", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "c0" / "configmap_default_more.yaml").is_file()
