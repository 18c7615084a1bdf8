"""Every shell block of README.md and docs/*.md runs as written, so that the commands
the docs show never rot.

Each document's blocks run in order in one bash session (variables, ``cd`` and
background jobs carry over, as in a reader's terminal), in a fresh folder holding a copy
of what the repository ships (``examples/``, ``deploy/``, ``tests/data/``) and the
installed ``.venv``. Every session but README.md's starts with the venv activated, as the
README's tour leaves its reader. A command must exit 0, or the code a comment on it
says (``# exit 3 ...``), or anything when the output the document shows for it says
``error:``. A background job's output goes to a log; the next command
waits until the job printed as many lines as the document shows for it so far (a reader
sees them before typing on), and ``kill %N`` is followed by waiting for the job to end.

A block that cannot run here is marked on the line before its fence with
``<!-- not run: REASON -->`` (a live cluster, a server that runs until stopped, the
set-up or the test suite itself, a synopsis with placeholders).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.cli import CLI_ENV
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHIPPED = ("examples", "deploy", "tests/data")
_FENCE = re.compile(r"^```(console|sh|bash|shell)\s*$")
_NOT_RUN = re.compile(r"^<!-- not run: .+ -->$")
_KILL = re.compile(r"^kill (%\d+)")
_EXIT = re.compile(r"#\s*exit (\d+)\b")


@dataclass
class Command:
    text: str
    line: int
    shown: list[str] = field(default_factory=list)  # the output the document shows

    def allows(self, code: int) -> bool:
        """0; or the code its comment says (``# exit 3 ...``); or any code when the
        output shown for it says ``error:``."""
        said = _EXIT.search(self.text)
        if said:
            return code == int(said.group(1))
        return code == 0 or any(line.startswith("error:") for line in self.shown)


def commands(path: Path) -> list[Command]:
    """The commands of the runnable shell blocks of ``path``, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Command] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        skipped = i > 0 and bool(_NOT_RUN.match(lines[i - 1]))
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        if not skipped:
            found += _block(lines, i + 1, end, console=match.group(1) == "console")
        i = end + 1
    return found


def _block(lines: list[str], start: int, end: int, *, console: bool) -> list[Command]:
    out: list[Command] = []
    i = start
    while i < end:
        text = lines[i]
        if console and not text.startswith("$ "):
            if out:
                out[-1].shown.append(text)
            i += 1
            continue
        command = Command(text[2:] if console else text, i + 1)
        while command.text.endswith("\\") and i + 1 < end:
            i += 1
            command.text += "\n" + lines[i]
        if command.text.strip():
            out.append(command)
        i += 1
    return out


def _fresh_copy(folder: Path) -> None:
    for shipped in SHIPPED:
        shutil.copytree(ROOT / shipped, folder / shipped)
    (folder / ".venv").symlink_to(Path(sys.prefix))


def _fresh_env(home: Path) -> dict[str, str]:
    """Our environment as a fresh shell has it: no virtual environment active (the
    docs must activate it where they use it), HOME the copy."""
    ours = {str(Path(sys.executable).parent), str(Path(sys.prefix) / "bin")}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p not in ours]
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return {**env, **CLI_ENV, "HOME": str(home), "PATH": os.pathsep.join(path)}


class Session:
    """One bash, fed a command at a time; each answers with its exit code on a marker
    line. Background jobs write to ``log``."""

    def __init__(self, cwd: Path, log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            text=True,
            env=_fresh_env(cwd),
        )
        self.output: list[str] = []
        self.codes: list[int] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        # Job control, as in a terminal: a job has its own process group, which
        # kill %N signals whole (the command, not only the shell around it).
        self.run("set -m")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("__rc__="):
                self.codes.append(int(line.strip().split("=")[1]))
            else:
                self.output.append(line)

    def run(self, text: str, timeout: float = 300) -> tuple[int, str]:
        assert self.proc.stdin is not None
        before_codes, before_output = len(self.codes), len(self.output)
        self.proc.stdin.write(f"{text}\necho __rc__=$?\n")
        self.proc.stdin.flush()
        wait_for(lambda: len(self.codes) > before_codes, timeout=timeout, what=text)
        return self.codes[before_codes], "".join(self.output[before_output:])

    def background_lines(self) -> int:
        if not self.log.exists():
            return 0
        return len(self.log.read_text(encoding="utf-8", errors="replace").splitlines())

    def close(self) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("kill $(jobs -p) 2>/dev/null; wait; exit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=60)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


def _wait_for_lines(session: Session, wanted: int, where: str) -> None:
    wait_for(
        lambda: session.background_lines() >= wanted,
        timeout=120,
        what=f"{where}: the background job's {wanted} lines",
    )


def _runnable() -> list[Path]:
    return [d for d in DOCUMENTS if commands(d)]


@pytest.mark.parametrize("document", _runnable(), ids=lambda d: d.name)
def test_shell_blocks_run_as_written(document: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    folder.mkdir()
    _fresh_copy(folder)
    session = Session(folder, tmp_path / "background.log")
    background_shown = 0  # lines the document shows a background job printing so far
    jobs: list[str] = []  # the programs running in the background ("controller", ...)
    try:
        if document.name != "README.md":
            session.run(". .venv/bin/activate")
        for command in commands(document):
            text = command.text
            where = f"{document.relative_to(ROOT)}:{command.line}: {text}"
            if text.rstrip().endswith("&") and not text.rstrip().endswith("&&"):
                program = re.findall(r"clusterplace (\S+)", text)
                jobs.append(program[-1] if program else "")
                text = "{ " + text.rstrip()[:-1] + f" ; }} >>{session.log} 2>&1 &"
            code, out = session.run(text)
            assert command.allows(code), f"{where}\nexit {code}\n{out}"
            kill = _KILL.match(text)
            if kill:
                session.run(f"wait {kill.group(1)} 2>/dev/null; true")
            ours = [line for line in command.shown if any(line.startswith(f"{j}:") for j in jobs)]
            background_shown += len(ours)
            if ours:
                _wait_for_lines(session, background_shown, where)
    finally:
        session.close()


def test_markers_name_a_reason() -> None:
    """A skipped block says why; the marker sits right above a fence (never loose)."""
    for document in DOCUMENTS:
        lines = document.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if line.startswith("<!-- not run"):
                assert _NOT_RUN.match(line), f"{document.name}:{i + 1}: {line}"
                assert i + 1 < len(lines) and _FENCE.match(lines[i + 1]), (
                    f"{document.name}:{i + 1}: a marker not above a shell block"
                )
