"""Running the ``clusterplace`` command in tests, two ways with one result (:class:`Result`).

- :func:`run_in_process` (the ``run`` fixture): the console script's own entry point,
  ``clusterplace.cli.main.main``, called under click's ``CliRunner`` isolation (its own
  stdin, stdout, stderr and environment). No interpreter to start and nothing to import
  again: what CLI tests use unless they need a process.
- :func:`run_process` (the ``run_process`` fixture): the installed ``clusterplace``
  script as a child process. Only for what takes a process: signals, SIGKILL, locks
  held by another process, the real file descriptors (``/dev/full``, a closed stdin),
  the umask, a fresh interpreter's imports.

Both run in the repository root unless told otherwise, with ``NO_COLOR=1`` and
``COLUMNS=80``, and an empty standard input unless one is given. In process, an
exception that escapes the CLI's error handler is what a process would show: exit code
1 and a ``Traceback`` on stderr (and the exception itself in :attr:`Result.exception`);
``sys.exit(n)`` in a command is exit code ``n``.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import click.formatting
from click.testing import CliRunner

from clusterplace.cli.main import main
from tests.support.paths import GOLDEN, ROOT

__all__ = [
    "CLI_ENV",
    "Result",
    "check_golden",
    "command",
    "run_in_process",
    "run_process",
]

CLI_ENV = {"NO_COLOR": "1", "COLUMNS": "80"}


@dataclass
class Result:
    """What a run of the command left: its exit code and what it printed."""

    code: int
    stdout: str
    stderr: str
    # In process only: the exception that escaped the CLI's own error handler (a bug).
    exception: BaseException | None = None


def command() -> list[str]:
    """The installed ``clusterplace`` script (beside this interpreter, else on PATH), or
    ``python -m clusterplace``."""
    installed = Path(sys.executable).parent / "clusterplace"
    if installed.exists():
        return [str(installed)]
    found = shutil.which("clusterplace")
    return [found] if found else [sys.executable, "-m", "clusterplace"]


# One in-process run at a time: standard streams, environment and working directory
# belong to the whole process.
_ONE_AT_A_TIME = threading.Lock()
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)


def run_in_process(
    *args: str,
    stdin: str | bytes | None = None,
    cwd: Path = ROOT,
    env: Mapping[str, str | None] | None = None,
) -> Result:
    """``clusterplace ARGS`` in this process (``env``: variables to set, ``None`` to
    unset). Fails if the run left process-wide state changed (signal handlers, logging
    handlers, the recursion limit, ``sys.path``): the next run would inherit it."""
    with _ONE_AT_A_TIME:
        before = _process_state()
        here = Path.cwd()
        root = logging.getLogger()
        harness = root.handlers[:]
        # As in a process, a warning logged goes to standard error (logging's last
        # resort), not to pytest's log capture.
        root.handlers.clear()
        os.chdir(cwd)
        try:
            runner = CliRunner()  # click >= 8.2 keeps stdout and stderr apart
            with runner.isolation(input=stdin, env={**CLI_ENV, **(env or {})}) as streams:
                # Help is as wide as a process makes it from $COLUMNS, not CliRunner's 80.
                click.formatting.FORCED_WIDTH = None
                code, exception = _call(list(args))
                sys.stdout.flush()
                sys.stderr.flush()
                out, err = streams[0].getvalue(), streams[1].getvalue()
        finally:
            os.chdir(here)
            root.handlers[:] = [*harness, *root.handlers]
        changed = _restore(before)
    assert not changed, (
        f"clusterplace {' '.join(args)} left process state changed: {', '.join(changed)}"
    )
    return Result(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), exception)


def _call(argv: list[str]) -> tuple[int, BaseException | None]:
    try:
        return main(argv), None
    except SystemExit as stop:  # sys.exit(n) in a command: the process's exit code
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0, None
        print(stop.code, file=sys.stderr)  # as the interpreter does
        return 1, None
    except Exception as escaped:  # a process would print the traceback and exit 1
        traceback.print_exception(escaped)
        return 1, escaped


@dataclass(frozen=True)
class _State:
    handlers: tuple[object, ...]
    root_handlers: tuple[logging.Handler, ...]
    recursion_limit: int
    path: tuple[str, ...]


def _process_state() -> _State:
    return _State(
        tuple(signal.getsignal(s) for s in _SIGNALS),
        tuple(logging.getLogger().handlers),
        sys.getrecursionlimit(),
        tuple(sys.path),
    )


def _restore(before: _State) -> list[str]:
    """Put back what changed; say what it was."""
    after = _process_state()
    changed: list[str] = []
    for sig, old, new in zip(_SIGNALS, before.handlers, after.handlers, strict=True):
        if old != new:
            signal.signal(sig, old)  # type: ignore[arg-type]
            changed.append(f"the {signal.Signals(sig).name} handler")
    if after.root_handlers != before.root_handlers:
        logging.getLogger().handlers[:] = before.root_handlers
        changed.append("the root logger's handlers")
    if after.recursion_limit != before.recursion_limit:
        sys.setrecursionlimit(before.recursion_limit)
        changed.append("the recursion limit")
    if after.path != before.path:
        sys.path[:] = before.path
        changed.append("sys.path")
    return changed


def run_process(
    *args: str,
    stdin: str | bytes | None = None,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Result:
    """``clusterplace ARGS`` as a child process (``env``: variables added to ours)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [*command(), *args],
        input=data,
        stdin=subprocess.DEVNULL if data is None else None,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **CLI_ENV, **(env or {})},
        timeout=timeout,
        check=False,
    )
    return Result(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def check_golden(name: str, text: str) -> None:
    """``text`` is the golden file ``tests/cli/golden/NAME`` (``UPDATE_GOLDEN=1`` rewrites it)."""
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")
