"""Test-wide settings and fixtures: hypothesis without timing deadlines (deterministic in
CI), and ``run``/``golden``: the installed ``clusterplace`` command run as a user would,
compared with golden files (``UPDATE_GOLDEN=1`` rewrites them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None)
# CI must not fail on a random draw that no developer ever saw: derandomize there.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "cli" / "golden"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def _command() -> list[str]:
    installed = Path(sys.executable).parent / "clusterplace"
    if installed.exists():
        return [str(installed)]
    found = shutil.which("clusterplace")
    return [found] if found else [sys.executable, "-m", "clusterplace"]


@pytest.fixture
def run() -> Callable[..., Result]:
    def _run(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> Result:
        proc = subprocess.run(
            [*_command(), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd,
            env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80"},
            check=False,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return _run


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    def _check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"missing golden file {path}; run with UPDATE_GOLDEN=1"
        assert text == path.read_text(encoding="utf-8")

    return _check
