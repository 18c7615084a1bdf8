"""Every option of every command explains itself, and fixed choices are choices."""

from __future__ import annotations

import click
import pytest

from clusterplace.cli.main import COMMANDS, cli


def _commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    context = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(context, name)
        assert command is not None
        stack: list[tuple[str, click.Command]] = [(name, command)]
        while stack:
            path, current = stack.pop()
            found.append((path, current))
            if isinstance(current, click.Group):
                stack.extend(
                    (f"{path} {sub}", current.commands[sub]) for sub in sorted(current.commands)
                )
    return found


@pytest.mark.parametrize(("path", "command"), _commands(), ids=lambda v: str(v))
def test_every_option_has_help(path: str, command: click.Command) -> None:
    assert command.help, f"{path} has no help"
    missing = [
        p.opts[0]
        for p in command.params
        if isinstance(p, click.Option) and not p.help and p.name != "help"
    ]
    assert not missing, f"{path}: options without help: {missing}"


def test_conflict_is_a_fixed_choice() -> None:
    command = dict(_commands())["apply-module"]
    (conflict,) = [p for p in command.params if p.name == "conflict"]
    assert isinstance(conflict.type, click.Choice)
    assert list(conflict.type.choices) == ["skip", "overwrite", "fail", "rename"]


def test_the_command_list_imports_no_command() -> None:
    """``clusterplace --help`` lists the commands from the table in cli.main: it loads
    neither a command's module nor numpy."""
    import subprocess
    import sys

    code = (
        "import sys; from clusterplace.cli.main import main; main(['--help']); "
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith("
        "('clusterplace.scheduling', 'clusterplace.cli.') )))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    listing, _, loaded = done.stdout.rstrip().rpartition("\n")
    assert loaded == "['clusterplace.cli.main']"
    for name, (_, short) in COMMANDS.items():
        assert f"  {name}" in listing
        assert short in listing and not short.endswith("...")
