"""The ``clusterplace`` command: a thin click layer over the library, kubectl style."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

import click

from clusterplace import __version__, stopping
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import SelectorError
from clusterplace.outputs.errors import TemplateError

__all__ = ["cli", "main"]

EXIT_INPUT_ERROR = 1
EXIT_USAGE_ERROR = 2

# Commands are imported when used: each command group pulls in different layers
# (the scheduler, the definition kit, the Kubernetes client), and a CLI call should
# pay only for its own.
COMMANDS = {
    # name: (where the command lives, its one-line help): `clusterplace --help` lists
    # the commands from here, so that listing them imports none of them.
    "completion": (
        "clusterplace.cli.completion:completion",
        "Print a shell completion script (bash, zsh, fish).",
    ),
    "controller": (
        "clusterplace.cli.controller:controller",
        "Keep PlacementDecisions and Placement status current.",
    ),
    "get": ("clusterplace.cli.get:get", "Display objects of a fleet."),
    "export": (
        "clusterplace.cli.export:export",
        "Write a fleet in another project's terms (ClusterProfiles).",
    ),
    "route": (
        "clusterplace.cli.route:route",
        "Route objects to clusters by their ClusterSelector.",
    ),
    "schedule": (
        "clusterplace.cli.schedule:schedule_command",
        "Schedule every Placement as an OCM hub would.",
    ),
    "explain": (
        "clusterplace.cli.explain:explain",
        "Explain placements, replica divisions and rollouts.",
    ),
    "describe": (
        "clusterplace.cli.explain:describe",
        "Show details of an object, kubectl-describe style.",
    ),
    "what-if": (
        "clusterplace.cli.what_if:what_if_command",
        "Print what changes would do to every placement.",
    ),
    "serve": (
        "clusterplace.cli.serve:serve",
        "Open the fleet explorer in a browser.",
    ),
    "validate-module": (
        "clusterplace.cli.module:validate_module",
        "Load a module and check its definitions and placement.",
    ),
    "gen-module": (
        "clusterplace.cli.module:gen_module",
        "Write each definition's CUE to a folder.",
    ),
    "apply-module": (
        "clusterplace.cli.module:apply_module_command",
        "Apply the definitions eligible on a cluster.",
    ),
    "plan-module": (
        "clusterplace.cli.module:plan_module",
        "Which clusters each definition would be installed on.",
    ),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attr = entry[0].partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        command.short_help = COMMANDS[cmd_name][1]  # one text, here and in the listing
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The listing comes from the table, not from the commands: importing them all
        # would load the scheduler and numpy only to print one line each.
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="clusterplace")
def cli() -> None:
    """Decide which clusters a workload, object or definition goes to, and explain why.

    Exit codes: 0 success, 1 invalid input (nothing written), 2 usage error,
    3 a placement is not satisfied (schedule --fail-unsatisfied).
    """


def _report(err: Exception) -> None:
    for line in str(err).splitlines() or [type(err).__name__]:
        click.echo(f"error: {line}", err=True)
    if isinstance(err, SelectorError) and err.pointer():
        click.echo(err.pointer(), err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; input errors print ``error: ...`` lines and exit 1, without a traceback."""
    with stopping.early_stop(_runs_until_stopped(sys.argv[1:] if argv is None else argv)):
        return _main(argv)


def _runs_until_stopped(args: list[str]) -> bool:
    """Whether the command runs until SIGTERM (``route --watch``, ``controller``
    without ``--once``): one SIGTERM from the start stops it with exit 0."""
    if args[:1] == ["route"]:
        return "--watch" in args
    return args[:1] == ["controller"] and "--once" not in args


def _main(argv: list[str] | None) -> int:
    try:
        cli.main(args=argv, prog_name="clusterplace", standalone_mode=False)
        sys.stdout.flush()  # a full disk behind stdout shows here, not at exit
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 130
    except click.ClickException as err:
        err.show()
        return err.exit_code
    except SelectorError as err:
        _report(err)
        return EXIT_INPUT_ERROR
    except TemplateError as err:  # an -o template found wanting only as it ran
        _report(err)
        return EXIT_USAGE_ERROR
    except ClusterplaceError as err:
        _report(err)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except OSError as err:  # writing standard output failed (ENOSPC, EIO, /dev/full)
        _drop_stdout()
        where = f"{err.filename}: " if err.filename else "standard output: "
        click.echo(f"error: {where}cannot write: {err.strerror or err}", err=True)
        return EXIT_INPUT_ERROR
    return 0


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what
    is still buffered cannot fail again (and print a traceback) at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
