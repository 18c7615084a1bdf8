"""The in-process runner the CLI tests use (the ``run`` fixture) gives what the installed
command gives as a process (``run_process``): the same exit code and the same output for
a success, an input error (1, without a traceback), a usage error (2), an unsatisfied
placement (3, through ``sys.exit``) and standard input. An exception that escapes the
CLI's error handler, or process state a run leaves changed, fails the test that ran it."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Callable

import click
import pytest

from clusterplace.cli import main as cli_main
from tests.support.cli import Result
from tests.support.paths import FLEET

Run = Callable[..., Result]
NOW = "2026-11-22T12:00:00Z"

CASES = {
    "success": ["get", "clusters", "-f", "examples/fleet", "-o", "wide"],
    "input error": ["get", "clusters", "-f", "examples/fleet", "-l", "env in prod"],
    "usage error": ["schedule", "-f", "examples/fleet", "-o", "xml"],
    "unsatisfied": ["schedule", "-f", "examples/fleet", "--now", NOW, "--fail-unsatisfied"],
    "help": ["route", "--help"],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_in_process_is_what_a_process_gives(run: Run, run_process: Run, args: list[str]) -> None:
    assert run(*args) == run_process(*args)


def test_a_controller_once_run_alike(
    run: Run, run_process: Run, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``controller --once`` ends with ``sys.exit(1)`` when a hub file is invalid."""
    results = []
    for runner in (run, run_process):
        hub = tmp_path_factory.mktemp("hub") / "hub"
        shutil.copytree(FLEET, hub)
        (hub / "bad.yaml").write_text("kind: [\n")
        result = runner("controller", "--hub", str(hub), "--once", "--now", NOW)
        results.append((result.code, result.stdout, result.stderr.replace(str(hub), "HUB")))
    assert results[0] == results[1]
    assert results[0][0] == 1 and "1 hub file could not be read" in results[0][2]


def test_standard_input_alike(run: Run, run_process: Run) -> None:
    text = (FLEET / "clusters.yaml").read_text()
    args = ["get", "clusters", "-f", "-", "-o", "name", "-l", "provider=aws"]
    assert run(*args, stdin=text) == run_process(*args, stdin=text)


def test_an_escaped_exception_is_a_traceback_and_exit_1(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: click.Group, ctx: click.Context, name: str) -> click.Command:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_main._LazyGroup, "get_command", broken)
    result = run("get", "clusters")
    assert result.code == 1 and isinstance(result.exception, RuntimeError)
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert result.stderr.endswith("RuntimeError: a bug\n")


def test_a_run_that_leaves_a_signal_handler_fails(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = signal.getsignal(signal.SIGTERM)

    @click.command()
    def leaky() -> None:
        signal.signal(signal.SIGTERM, lambda *_: None)

    monkeypatch.setattr(cli_main._LazyGroup, "get_command", lambda *_: leaky)
    with pytest.raises(AssertionError, match="left process state changed: the SIGTERM handler"):
        run("leaky")
    assert signal.getsignal(signal.SIGTERM) == before  # put back
