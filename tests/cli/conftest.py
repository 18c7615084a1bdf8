"""Run the installed ``clusterplace`` command as a user would, and compare with golden files.

Set ``UPDATE_GOLDEN=1`` to rewrite the golden files from the current output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"


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
