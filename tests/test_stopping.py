"""SIGTERM from the start: ``route --watch`` and ``controller`` stop with exit 0 for a
SIGTERM sent the moment the process takes SIGTERM in hand (as the kernel reports it),
before their modules are imported and their inputs read; a one-shot command keeps
Python's default (SIGTERM ends it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from clusterplace import stopping
from tests.support.cli import command
from tests.support.waiting import wait_for


def catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGTERM (its SigCgt mask, /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


def inputs(folder: Path) -> tuple[Path, Path]:
    manifests = folder / "manifests.yaml"
    manifests.write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    )
    fleet = folder / "fleet.yaml"
    fleet.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": "c0"},
            }
        )
    )
    (folder / "hub").mkdir()
    return manifests, fleet


@pytest.mark.parametrize("which", ["route --watch", "controller"])
def test_a_sigterm_the_moment_it_is_caught_stops_with_exit_0(tmp_path: Path, which: str) -> None:
    manifests, fleet = inputs(tmp_path)
    if which == "route --watch":
        args = ["route", "--watch", "-f", str(manifests), "--clusters", str(fleet)]
        args += ["--output-dir", str(tmp_path / "out")]
    else:
        args = ["controller", "--hub", str(tmp_path / "hub"), "--out", str(tmp_path / "out")]
    proc = subprocess.Popen(
        [*command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(lambda: catches_sigterm(proc.pid) or proc.poll() is not None, 60, "a handler")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_only_the_commands_that_run_until_stopped_take_sigterm_early() -> None:
    from clusterplace.cli.main import _runs_until_stopped

    assert _runs_until_stopped(["route", "--watch", "-f", "x"])
    assert _runs_until_stopped(["controller", "--hub", "h"])
    assert not _runs_until_stopped(["controller", "--hub", "h", "--once"])
    assert not _runs_until_stopped(["route", "-f", "x"])
    assert not _runs_until_stopped(["schedule", "-f", "x"])


def test_a_sigterm_while_held_is_remembered_and_the_handler_put_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with stopping.early_stop():
        assert not stopping.requested()
        os.kill(os.getpid(), signal.SIGTERM)
        wait_for(stopping.requested, 10, "the SIGTERM noted")
    assert not stopping.requested()
    assert signal.getsignal(signal.SIGTERM) is before


_STUCK = """
import asyncio, sys
from clusterplace import stopping

async def never_ends() -> None:
    await asyncio.Event().wait()  # a close that never comes, say

async def main() -> None:
    stop = asyncio.Event()
    stopping.handle(asyncio.get_running_loop(), stop, "demo", grace=float(sys.argv[1]))
    stuck = asyncio.create_task(never_ends(), name="stuck close")
    print("ready", flush=True)
    await stop.wait()
    await stuck  # ignores the stop

asyncio.run(main())
"""


def _stuck(grace: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _STUCK, str(grace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    return proc


def test_a_stop_that_does_not_end_exits_1_after_the_grace_saying_what_still_ran() -> None:
    proc = _stuck(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    lines = err.splitlines()
    assert lines[0] == "demo: still running 0.5 s after the stop signal; exiting now"
    # The await chain of each task, outermost first, down to where it waits.
    at = lines.index("task 'stuck close', awaiting:")
    assert "in never_ends" in lines[at + 1]
    assert "in wait" in lines[at + 2]  # asyncio.Event.wait
    assert "threads:" in lines
    assert any(line.startswith("Current thread") for line in lines)  # faulthandler's dump


def test_a_stop_within_the_grace_is_not_cut_short() -> None:
    script = _STUCK.replace("await stuck  # ignores the stop", "stuck.cancel()")
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (0, b"")


def test_only_the_first_stop_arms_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[float] = []

    class Timer:
        def __init__(self, grace: float, *_: object) -> None:
            started.append(grace)
            self.daemon = False

        def start(self) -> None:
            assert self.daemon  # never holds the process up

    monkeypatch.setattr(stopping, "_armed", [])
    monkeypatch.setattr("threading.Timer", Timer)
    stopping.bound("x", 5.0)
    stopping.bound("x", 1.0)
    assert started == [5.0]
