"""``get -w`` and ``describe -w`` as kubectl's watch: print once, then the rows that
change (no header again); a real process following a directory hub its controller
writes, stopped by SIGTERM with exit 0."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.cli import CLI_ENV, Result, command
from tests.support.paths import FLEET
from tests.support.waiting import wait_for

NOW = "2026-06-01T12:00:00Z"


class Watching:
    """A live ``clusterplace ... -w`` process; its output goes to files."""

    def __init__(self, *args: str, cwd: Path) -> None:
        stamp = len(list(cwd.glob("watch-*.out")))
        self.out, self.err = cwd / f"watch-{stamp}.out", cwd / f"watch-{stamp}.err"
        self._handles = (self.out.open("w"), self.err.open("w"))
        self.proc = subprocess.Popen(
            [*command(), *args],
            stdout=self._handles[0],
            stderr=self._handles[1],
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, **CLI_ENV},
        )

    def text(self) -> str:
        return self.out.read_text()

    def wait_for(self, text: str) -> None:
        wait_for(lambda: text in self.text() or self.proc.poll() is not None, 30.0, text)
        assert text in self.text(), (self.text(), self.err.read_text())

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(20)
        for handle in self._handles:
            handle.close()
        return code


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    folder = tmp_path / "hub"
    shutil.copytree(FLEET, folder)
    return folder


def _controller(hub: Path) -> None:
    done = subprocess.run(
        [*command(), "controller", "--hub", str(hub), "--once", "--now", NOW],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **CLI_ENV},
    )
    assert done.returncode == 0, done.stderr


def _relabel(hub: Path, old: str, new: str) -> None:
    path = hub / "clusters.yaml"
    text = path.read_text()
    assert old in text
    temporary = path.with_name(".clusters.yaml.edit")
    temporary.write_text(text.replace(old, new))
    temporary.replace(path)


@pytest.fixture
def watching(hub: Path, tmp_path: Path) -> Iterator[Watching]:
    _controller(hub)
    running = Watching("get", "placementdecisions", "--hub", str(hub), "-A", "-w", cwd=tmp_path)
    try:
        yield running
    finally:
        running.stop(signal.SIGKILL)


def test_get_w_prints_the_changed_row_after_the_controller_writes(
    hub: Path, watching: Watching
) -> None:
    watching.wait_for("dev-sandbox-decision-1")
    first = watching.text()
    assert first.splitlines()[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert first.count("dev-sandbox-decision-1") == 1
    _relabel(hub, "environment: development", "environment: retired")
    _controller(hub)
    wait_for(lambda: watching.text().count("dev-sandbox-decision-1") == 2, 30.0, "the new row")
    added = watching.text()[len(first) :].splitlines()
    assert [line.split()[:2] for line in added] == [["team-a", "dev-sandbox-decision-1"]]
    assert added[0].split()[-2] == "0"  # no cluster chosen any more; no header again
    assert watching.stop() == 0


def test_sigint_exits_0(watching: Watching) -> None:
    watching.wait_for("NAME")
    assert watching.stop(signal.SIGINT) == 0


def test_w_cannot_watch_standard_input(run: Callable[..., Result]) -> None:
    result = run("get", "placements", "-f", "-", "-w")
    assert result.code == 2
    assert "standard input" in result.stderr


def test_describe_w_on_files_prints_the_description_again_when_it_changes(
    hub: Path, tmp_path: Path
) -> None:
    running = Watching(
        "describe", "placement", "dev-sandbox", "-n", "team-a", "-f", str(hub), "--now", NOW,
        "-w", cwd=tmp_path,
    )  # fmt: skip
    try:
        running.wait_for("Decisions:")
        first = running.text()
        kind = "Kind:         Placement"
        assert first.count(kind) == 1
        _relabel(hub, "environment: development", "environment: retired")
        wait_for(lambda: running.text().count(kind) == 2, 30.0, "the new description")
        assert "azure-dev-eus" not in running.text()[len(first) :]
        assert running.stop() == 0
    finally:
        running.stop(signal.SIGKILL)


def test_w_with_a_missing_name_prints_the_others_then_fails(run: Callable[..., Result]) -> None:
    names = ("web-frontend", "nope")
    result = run("get", "placements", *names, "-n", "apps", "-f", str(FLEET), "-w")
    assert result.code == 1
    assert "web-frontend" in result.stdout
    assert '"nope" not found' in result.stderr
