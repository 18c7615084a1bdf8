"""Times that leave Python's range once converted to UTC (or that would leave it when a
delay is added to them) are input errors where they are read, whichever command reads
them: never an OverflowError traceback."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from clusterplace.api.base import format_time, parse_time
from tests.support.cli import Result
from tests.support.paths import ROOT

FLEET = str(ROOT / "examples" / "fleet")
MANIFESTS = str(ROOT / "examples" / "manifests")
OBSERVED = ROOT / "examples" / "observed"
OUT_OF_RANGE = ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59Z"]
RANGE = "in UTC a time must lie from 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z"

NOW_COMMANDS = [
    ["schedule", "-f", FLEET],
    ["describe", "placement", "analytics", "-n", "apps", "-f", FLEET],
    ["explain", "placement", "analytics", "-n", "apps", "-f", FLEET],
    ["what-if", "-f", FLEET, "--set", "cluster/aws-prod-use1:labels.a=b"],
    ["get", "placements", "-A", "--schedule", "-f", FLEET],
    ["route", "-f", MANIFESTS, "--clusters", FLEET, "--output-dir", "OUT", "--dry-run"],
]


@pytest.mark.parametrize("stamp", OUT_OF_RANGE)
@pytest.mark.parametrize("command", NOW_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_now_out_of_range_is_an_option_error(
    run: Callable[..., Result], tmp_path: Path, command: list[str], stamp: str
) -> None:
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    result = run(*args, "--now", stamp)
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"Invalid value for '--now': '{stamp}' is out of range: {RANGE}" in result.stderr


@pytest.mark.parametrize("stamp", OUT_OF_RANGE[:2])
def test_controller_once_now_out_of_range(
    run: Callable[..., Result], tmp_path: Path, stamp: str
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    result = run("controller", "--hub", str(hub), "--once", "--now", stamp)
    assert result.code == 2 and "Traceback" not in result.stderr
    assert f"'{stamp}' is out of range" in result.stderr
    assert not (hub / ".clusterplace").exists()


def _fleet_with(tmp_path: Path, old: str, new: str, file: str) -> Path:
    fleet = tmp_path / "fleet"
    shutil.copytree(FLEET, fleet)
    text = (fleet / file).read_text()
    assert old in text
    (fleet / file).write_text(text.replace(old, new, 1))
    return fleet


@pytest.mark.parametrize("stamp", OUT_OF_RANGE)
def test_score_valid_until_out_of_range(
    run: Callable[..., Result], tmp_path: Path, stamp: str
) -> None:
    fleet = _fleet_with(tmp_path, '"2026-12-31T00:00:00Z"', f'"{stamp}"', "scores.yaml")
    for args in (["schedule"], ["explain", "placement", "analytics", "-n", "apps"]):
        result = run(*args, "-f", str(fleet))
        assert result.code == 1 and "Traceback" not in result.stderr
        assert (
            f"scores.yaml:16: AddOnPlacementScore/aws-prod-use1/resource-usage-score: "
            f"status.validUntil: '{stamp}' is out of range: {RANGE}"
        ) in result.stderr


@pytest.mark.parametrize("stamp", OUT_OF_RANGE)
def test_taint_time_added_out_of_range(
    run: Callable[..., Result], tmp_path: Path, stamp: str
) -> None:
    fleet = _fleet_with(tmp_path, '"2026-11-20T08:00:00Z"', f'"{stamp}"', "clusters.yaml")
    result = run("schedule", "-f", str(fleet), "--now", "2026-11-22T12:00:00Z")
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "spec.taints[0].timeAdded: " in result.stderr
    assert f"'{stamp}' is out of range: {RANGE}" in result.stderr


def test_observed_pod_transition_at_the_end_of_time(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    observed = tmp_path / "observed"
    shutil.copytree(OBSERVED, observed)
    objects = observed / "azure-prod-weu" / "objects.yaml"
    text = objects.read_text()
    objects.write_text(
        text.replace(
            'lastTransitionTime: "2026-11-20T09:00:00Z"',
            'lastTransitionTime: "9999-12-31T23:59:59Z"',
            1,
        )
    )
    common = ["-f", MANIFESTS, "--clusters", FLEET, "--observed", str(observed)]
    out = tmp_path / "out"
    for args in (
        ["route", *common, "--output-dir", str(out)],
        ["explain", "replicas", "checkout", "-n", "shop", *common],
    ):
        result = run(*args)
        assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
        assert (
            "objects.yaml:31: Pod/shop/web-3: status.conditions[0].lastTransitionTime: "
            f"'9999-12-31T23:59:59Z' is out of range: {RANGE}"
        ) in result.stderr
    assert not out.exists()


def test_the_range_edges_are_read_and_written_back() -> None:
    for text in ("0001-01-02T00:00:00Z", "9999-12-30T23:59:59Z", "9999-12-30T23:59:59.999999Z"):
        assert format_time(parse_time(text)) == text[:19] + "Z"
    assert format_time(parse_time("9999-12-31T00:00:00+00:01")) == "9999-12-30T23:59:00Z"
    for text in ("0001-01-01T23:59:59Z", "9999-12-31T00:00:00Z", "9999-12-30T23:59:59-00:01"):
        with pytest.raises(ValueError, match="is out of range"):
            parse_time(text)
