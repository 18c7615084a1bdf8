"""The ``clusterplace`` command: a thin click layer over the library, kubectl style."""

from __future__ import annotations

import sys

import click

from clusterplace import __version__
from clusterplace.cli.get import get
from clusterplace.cli.module import apply_module_command, gen_module, plan_module, validate_module
from clusterplace.cli.placement import describe, explain
from clusterplace.cli.route import route
from clusterplace.cli.schedule import schedule_command
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import SelectorError

__all__ = ["cli", "main"]

EXIT_INPUT_ERROR = 1


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="clusterplace")
def cli() -> None:
    """Decide which clusters a workload, object or definition goes to, and explain why.

    Exit codes: 0 success, 1 invalid input (nothing written), 2 usage error,
    3 a placement is not satisfied (schedule --fail-unsatisfied).
    """


cli.add_command(get)
cli.add_command(route)
cli.add_command(schedule_command)
cli.add_command(explain)
cli.add_command(describe)
cli.add_command(validate_module)
cli.add_command(gen_module)
cli.add_command(apply_module_command)
cli.add_command(plan_module)


def _report(err: Exception) -> None:
    for line in str(err).splitlines() or [type(err).__name__]:
        click.echo(f"error: {line}", err=True)
    if isinstance(err, SelectorError) and err.pointer():
        click.echo(err.pointer(), err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; input errors print ``error: ...`` lines and exit 1, without a traceback."""
    try:
        cli.main(args=argv, prog_name="clusterplace", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 130
    except click.ClickException as err:
        err.show()
        return err.exit_code
    except SelectorError as err:
        _report(err)
        return EXIT_INPUT_ERROR
    except ClusterplaceError as err:
        _report(err)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
