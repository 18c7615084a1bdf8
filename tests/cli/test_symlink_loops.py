"""A symlink loop inside (or as) an output folder is a clear error naming the path, exit
1: never a "Symlink loop" traceback, never mistaken for another run holding the lock."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from clusterplace.safepath import SymlinkLoopError, is_inside, resolve_inside
from tests.support.cli import Result
from tests.support.paths import ROOT

FLEET = str(ROOT / "examples" / "fleet")
MANIFESTS = str(ROOT / "examples" / "manifests")
NOW = "2026-11-22T12:00:00Z"
LOOP = "cannot be resolved: its symlinks form a loop"


def _loop(path: Path, via: Path) -> None:
    """``path`` -> ``via`` -> ``path``."""
    path.symlink_to(via.name)
    via.symlink_to(path.name)


def test_route_into_a_folder_with_a_looping_cluster_folder(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _loop(out / "aws-prod-use1", out / "other")
    result = run("route", "-f", MANIFESTS, "--clusters", FLEET, "--output-dir", str(out))
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"error: {out / 'aws-prod-use1'}: {LOOP}" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["aws-prod-use1", "other"]


def test_route_into_a_looping_output_folder(run: Callable[..., Result], tmp_path: Path) -> None:
    out = tmp_path / "out"
    _loop(out, tmp_path / "back")
    result = run("route", "-f", MANIFESTS, "--clusters", FLEET, "--output-dir", str(out))
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert str(out) in result.stderr and "symbolic links" in result.stderr


def test_controller_with_a_loop_inside_its_output_folder(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    (hub / ".clusterplace").mkdir()
    (hub / ".clusterplace" / "placements").symlink_to("placements")
    result = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{hub / '.clusterplace' / 'placements'}: {LOOP}" in result.stderr


@pytest.mark.parametrize("once", [True, False])
def test_controller_with_a_looping_output_folder(
    run: Callable[..., Result], tmp_path: Path, once: bool
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    out = tmp_path / "out"
    _loop(out, tmp_path / "back")
    flags = ["--once", "--now", NOW] if once else ["--lock-timeout", "0"]
    result = run("controller", "--hub", str(hub), "--out", str(out), *flags)
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{out}: cannot write: Too many levels of symbolic links" in result.stderr
    assert "another controller" not in result.stderr


def test_resolve_inside_names_the_loop(tmp_path: Path) -> None:
    _loop(tmp_path / "a", tmp_path / "b")
    with pytest.raises(SymlinkLoopError, match=f"^{tmp_path / 'a' / 'x'}: {LOOP}"):
        resolve_inside(tmp_path, "a", "x")
    assert not is_inside(tmp_path, "a", "x")
