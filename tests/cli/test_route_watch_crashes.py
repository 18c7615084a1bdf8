"""``route --watch`` killed at any instant, then restarted, converges to exactly what a
one-shot ``route`` of the same inputs writes (the journal of each change set is the
commit point). Kills come two ways: SIGKILL at random moments during bursts of edits,
and death at the Nth file-system call of the process (initial write or a change set)."""

from __future__ import annotations

import functools
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import command
from tests.support.waiting import wait_for as wait_until

pytestmark = pytest.mark.slow

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
REGIONS = ("eu", "us", "ap")
CLUSTERS = 12

# The CLI in a child that dies (os._exit: no cleanup, as SIGKILL) at the Nth call that
# changes files: counted from the start ("start"), or from the first change set after
# the initial write ("change").
_DIE_AT = r"""
import os, sys
phase, die_at = sys.argv[1], int(sys.argv[2])
calls = [0]
counting = [phase == "start"]
real_exit = os._exit
def wrap(name):
    real = getattr(os, name)
    def call(*args, **kwargs):
        if counting[0]:
            calls[0] += 1
            if calls[0] == die_at:
                real_exit(137)
        return real(*args, **kwargs)
    return call
for name in ("write", "replace", "rename", "unlink", "fsync", "rmdir"):
    setattr(os, name, wrap(name))
from clusterplace.bundles.route_live import LiveRouteDir
update = LiveRouteDir.update
def counted(self, *args, **kwargs):
    counting[0] = True
    return update(self, *args, **kwargs)
LiveRouteDir.update = counted
from clusterplace.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


wait_for = functools.partial(wait_until, timeout=30.0, poll=0.01)


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (hidden ones included) with its bytes, and every folder (None)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def _selector(region: str) -> dict[str, str]:
    return {ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": [region]}])}


def _object(i: int, rng: random.Random) -> dict[str, Any]:
    region = rng.choice(REGIONS)
    if i % 4 == 0:
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"web{i}", "namespace": "shop", "annotations": _selector(region)},
            "spec": {"replicas": rng.randrange(0, 9)},
        }
    meta: dict[str, Any] = {"name": f"cm{i}", "namespace": "shop"}
    if i % 5:
        meta["annotations"] = _selector(region)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"v": str(i)}}


def _cluster(i: int, region: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": f"c{i:02d}", "labels": {"region": region}},
    }


def _write(path: Path, text: str, rng: random.Random) -> None:
    """In place (as an editor saves) or by rename (as GitOps does), at random."""
    if rng.random() < 0.5:
        path.write_text(text)
    else:
        temporary = path.with_name(f".{path.name}.edit")
        temporary.write_text(text)
        temporary.replace(path)


class Inputs:
    def __init__(self, root: Path, rng: random.Random) -> None:
        self.rng = rng
        self.manifests = root / "manifests"
        self.fleet = root / "fleet"
        self.manifests.mkdir()
        self.fleet.mkdir()
        for i in range(16):
            self.put(i)
        for i in range(CLUSTERS):
            self.relabel(i)

    def put(self, i: int) -> None:
        _write(self.manifests / f"{i:02d}.yaml", yaml.safe_dump(_object(i, self.rng)), self.rng)

    def relabel(self, i: int) -> None:
        text = yaml.safe_dump(_cluster(i, self.rng.choice(REGIONS)))
        _write(self.fleet / f"c{i:02d}.yaml", text, self.rng)

    def edit(self) -> None:
        choice = self.rng.random()
        if choice < 0.6:
            self.relabel(self.rng.randrange(CLUSTERS))
        elif choice < 0.9:
            self.put(self.rng.randrange(16))
        else:
            path = self.manifests / f"{self.rng.randrange(16):02d}.yaml"
            if path.exists():
                path.unlink()
            else:
                self.put(int(path.stem))

    def args(self, out: Path) -> list[str]:
        return [
            "route",
            "-f",
            str(self.manifests),
            "--clusters",
            str(self.fleet),
            "--output-dir",
            str(out),
        ]


def route_once(inputs: Inputs, out: Path) -> dict[str, bytes | None]:
    done = subprocess.run(
        [*command(), *inputs.args(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return tree(out)


class Watch:
    def __init__(self, argv: list[str], log: Path) -> None:
        self.log = log
        self._handle = log.open("w")
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self._handle)

    def text(self) -> str:
        return self.log.read_text()

    def watching(self) -> bool:
        return "route: watching" in self.text()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(30)
        self._handle.close()
        return code


def _restart_converges(inputs: Inputs, out: Path, tmp: Path, trial: int) -> None:
    """A restarted watch finishes what the killed one left, and the folder is what a
    one-shot route writes; nothing temporary is left."""
    watch = Watch(
        [*command(), *inputs.args(out)[:1], "--watch", *inputs.args(out)[1:]],
        tmp / f"restart-{trial}.log",
    )
    try:
        wait_for(lambda: watch.watching() or watch.proc.poll() is not None, what="the restart")
        assert watch.proc.poll() is None, watch.text()
    finally:
        assert watch.stop() == 0, watch.text()
    expected = route_once(inputs, tmp / f"once-{trial}")
    assert tree(out) == expected, trial
    assert not [name for name in expected if ".clusterplace-tmp-" in name or "journal" in name]


def test_kill_9_during_bursts_of_edits_then_a_restart_converges(tmp_path: Path) -> None:
    rng = random.Random(20261125)
    inputs = Inputs(tmp_path, rng)
    out = tmp_path / "out"
    for trial in range(12):
        watch = Watch(
            [*command(), "route", "--watch", *inputs.args(out)[1:]], tmp_path / f"w{trial}.log"
        )
        wait_for(watch.watching, what="the watch")
        deadline = time.monotonic() + rng.uniform(0.0, 0.4)
        while time.monotonic() < deadline:
            inputs.edit()
            time.sleep(rng.uniform(0.0, 0.04))
        time.sleep(rng.uniform(0.0, 0.15))
        assert watch.stop(signal.SIGKILL) == -signal.SIGKILL
        # Whatever the moment, every copy visible is whole.
        for path in out.rglob("*.yaml"):
            if not path.name.startswith("."):
                assert yaml.safe_load(path.read_text())["metadata"]["name"], path
        _restart_converges(inputs, out, tmp_path, trial)


@pytest.mark.parametrize(
    ("phase", "die_at"),
    [
        *(("start", n) for n in (3, 11, 40, 90, 130, 220, 300)),
        *(("change", n) for n in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89)),
    ],
)
def test_death_at_any_file_call_then_a_restart_converges(
    tmp_path: Path, phase: str, die_at: int
) -> None:
    rng = random.Random(die_at)
    inputs = Inputs(tmp_path, rng)
    out = tmp_path / "out"
    if die_at % 2:  # the killed watch changes a folder written before
        route_once(inputs, out)
        inputs.edit()
    argv = [sys.executable, "-c", _DIE_AT, phase, str(die_at), "route", "--watch"]
    argv += inputs.args(out)[1:]
    watch = Watch(argv, tmp_path / "dying.log")
    # It dies in its first write, or watches: then change sets follow until it dies.
    for _ in range(40):
        if watch.proc.poll() is not None:
            break
        if watch.watching():
            inputs.edit()
        time.sleep(0.1)
    code = watch.stop(signal.SIGKILL)
    assert code in (137, -signal.SIGKILL), watch.text()
    if phase == "change":
        assert code == 137 and watch.watching(), "it died in a change set"
    _restart_converges(inputs, out, tmp_path, die_at)
