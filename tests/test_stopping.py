"""SIGTERM from the start: ``route --watch`` and ``controller`` stop with exit 0 for a
SIGTERM sent the moment the process takes SIGTERM in hand (as the kernel reports it),
before their modules are imported and their inputs read; a one-shot command keeps
Python's default (SIGTERM ends it)."""

from __future__ import annotations

import os
import signal
import subprocess
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
