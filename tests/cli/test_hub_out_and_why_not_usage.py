"""Commands that read a directory hub follow a controller run that wrote elsewhere
(``--out``); ``explain --why-not`` refuses a second cluster and ``-o wide`` instead of
ignoring them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import Result
from tests.support.paths import ROOT

FLEET = ROOT / "examples" / "fleet"
NOW = "2026-11-22T12:00:00Z"


@pytest.fixture
def hub_and_out(run: Callable[..., Result], tmp_path: Path) -> tuple[Path, Path]:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    out = tmp_path / "elsewhere"
    result = run("controller", "--hub", str(hub), "--out", str(out), "--once", "--now", NOW)
    assert result.code == 0, result.stderr
    return hub, out


def test_get_placements_follows_the_controllers_out(
    run: Callable[..., Result], hub_and_out: tuple[Path, Path]
) -> None:
    hub, out = hub_and_out
    followed = run("get", "placements", "-A", "--hub", str(hub), "--out", str(out))
    assert followed.code == 0, followed.stderr
    line = next(x for x in followed.stdout.splitlines() if " analytics " in x)
    assert line.split()[2:] == ["True", "AllDecisionsScheduled", "3"]
    # Without --out the default folder is read, where this controller wrote nothing.
    default = run("get", "placements", "-A", "--hub", str(hub))
    line = next(x for x in default.stdout.splitlines() if " analytics " in x)
    assert line.split()[2:] == ["<none>", "<none>", "<none>"]


@pytest.mark.parametrize(
    "command",
    [
        ["get", "placementdecisions", "-n", "apps"],
        ["describe", "placement", "analytics", "-n", "apps"],
        ["explain", "placement", "analytics", "-n", "apps", "--now", NOW],
        ["what-if", "--set", "cluster/aws-prod-use1:labels.a=b", "--now", NOW],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_every_hub_reader_takes_out(
    run: Callable[..., Result], hub_and_out: tuple[Path, Path], command: list[str]
) -> None:
    hub, out = hub_and_out
    result = run(*command, "--hub", str(hub), "--out", str(out))
    assert result.code == 0 and "Traceback" not in result.stderr, result.stderr
    if command[0] == "get":
        assert "analytics-decision-1" in result.stdout


def test_out_without_hub_and_a_missing_out(
    run: Callable[..., Result], hub_and_out: tuple[Path, Path], tmp_path: Path
) -> None:
    hub, _ = hub_and_out
    result = run("get", "placements", "-A", "-f", str(FLEET), "--out", str(tmp_path))
    assert result.code == 2 and "--out goes with --hub" in result.stderr
    missing = tmp_path / "missing"
    result = run("get", "placements", "-A", "--hub", str(hub), "--out", str(missing))
    assert result.code == 1 and "Traceback" not in result.stderr
    assert result.stderr == (
        f"error: {missing}: the controller's output folder (--out) does not exist\n"
    )


def test_a_second_why_not_is_refused(run: Callable[..., Result]) -> None:
    result = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", str(FLEET), "--now", NOW,
        "--why-not", "azure-prod-weu", "--why-not", "aws-prod-euw1",
    )  # fmt: skip
    assert result.code == 2 and result.stdout == ""
    assert "Error: --why-not is given 2 times (azure-prod-weu, aws-prod-euw1); give one " \
        "cluster per run" in result.stderr  # fmt: skip


def test_why_not_refuses_wide(run: Callable[..., Result]) -> None:
    result = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", str(FLEET), "--now", NOW,
        "--why-not", "azure-prod-weu", "-o", "wide",
    )  # fmt: skip
    assert result.code == 2 and result.stdout == ""
    assert "Error: -o wide is not a --why-not format; give table, yaml, json" in result.stderr
