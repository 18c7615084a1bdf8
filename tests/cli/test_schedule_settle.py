"""``schedule --settle`` prints where ``controller --once`` settles; one pass says so
when the controller would settle elsewhere; what-if says it compares one pass."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from tests.support.cli import Result
from tests.support.coupled import coupled

Run = Callable[..., Result]
NOW = "2026-11-27T00:00:00Z"


def _clusters(text: str) -> dict[str, str]:
    return {line.split()[1]: line.split()[-1] for line in text.splitlines()[1:]}


def test_settle_prints_what_the_controller_writes(run_process: Run, tmp_path: Path) -> None:
    hub = coupled(tmp_path)
    one_pass = run_process("schedule", "-f", str(hub), "--now", NOW)
    assert one_pass.code == 0, one_pass.stderr
    assert _clusters(one_pass.stdout) == {"one": "c1", "web": "c1,c2"}
    assert "settles apps/one elsewhere (--settle shows where)" in one_pass.stderr
    settled = run_process("schedule", "-f", str(hub), "--now", NOW, "--settle")
    assert settled.code == 0, settled.stderr
    assert settled.stderr == ""
    assert _clusters(settled.stdout) == {"one": "c3", "web": "c1,c2"}
    controller = run_process("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert controller.code == 0, controller.stderr
    written = run_process(
        "get", "placementdecisions", "-n", "apps", "--hub", str(hub), "-o", "wide"
    )
    names = {line.split()[0]: line.split()[-1] for line in written.stdout.splitlines()[1:]}
    assert names == {"one-decision-1": "c3", "web-decision-1": "c1,c2"}


def test_what_if_says_it_compares_one_pass(run: Run, tmp_path: Path) -> None:
    hub = coupled(tmp_path)
    shutil.rmtree(hub / ".clusterplace", ignore_errors=True)
    answer = run("what-if", "-f", str(hub), "--now", NOW, "--set", "cluster/c3:labels.env=prod")
    assert answer.code == 0, answer.stderr
    assert "may settle elsewhere under the controller" in answer.stderr
