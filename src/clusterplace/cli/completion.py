"""``clusterplace completion SHELL``: the shell's completion script, as kubectl's
``completion`` prints one. Commands, kinds (``get <TAB>``), options and their choices
complete; the script asks ``clusterplace`` itself, so it follows upgrades."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

__all__ = ["completion"]

SHELLS = ("bash", "zsh", "fish")
PROG = "clusterplace"
COMPLETE_VAR = "_CLUSTERPLACE_COMPLETE"  # click's name for it: _<PROG>_COMPLETE


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    bash:  source <(clusterplace completion bash)
    zsh:   source <(clusterplace completion zsh)
    fish:  clusterplace completion fish | source
    """
    from clusterplace.cli.main import cli

    found = get_completion_class(shell)
    if found is None:  # every name of SHELLS has a class in click
        raise click.UsageError(f"no completion for {shell}")
    click.echo(found(cli, {}, PROG, COMPLETE_VAR).source())
