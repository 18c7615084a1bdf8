"""``clusterplace controller``: keep placement decisions current on a live hub."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

from clusterplace.api.base import parse_time
from clusterplace.cli._common import warn

__all__ = ["controller"]


def _now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


def _log(message: str) -> None:
    for line in message.splitlines():
        click.echo(f"controller: {line}", err=True)
    sys.stderr.flush()


@click.command()
@click.option(
    "--hub",
    "hub_dir",
    required=True,
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder of manifests that is the hub (clusters, sets, bindings, placements, "
    "scores); watched for edits.",
)
@click.option(
    "--out",
    "out_dir",
    metavar="OUT",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where PlacementDecisions, Placement statuses and events.jsonl are written "
    "[default: DIR/.clusterplace].",
)
@click.option("--once", is_flag=True, help="Sync every placement once, then exit.")
@click.option("-R", "--recursive", is_flag=True, help="Also read subfolders of the hub folder.")
@click.option(
    "--now",
    metavar="RFC3339",
    callback=_now,
    help="With --once: the time to schedule at (default: now), for reproducible runs.",
)
@click.option(
    "--resync",
    type=click.FloatRange(min=1),
    default=600,
    show_default=True,
    metavar="SECONDS",
    help="Sync every placement again this often (upstream's informer resync).",
)
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="How long to wait while another controller holds the output folder "
    "[default: for ever, as a standby replica].",
)
def controller(
    hub_dir: Path,
    out_dir: Path | None,
    once: bool,
    recursive: bool,
    now: datetime | None,
    resync: float,
    lock_timeout: float | None,
) -> None:
    """Keep PlacementDecisions and Placement status current as the hub changes.

    Upstream's placement controller, on a folder of manifests: edits in DIR enqueue the
    placements they affect (upstream's rules), each is synced as upstream syncs it, and
    only what changed is written, atomically. Stops on SIGTERM or Ctrl-C after the sync
    in progress. See docs/controller.md.
    """
    from clusterplace.hub.directory import run_directory_controller

    if now is not None and not once:
        raise click.UsageError("--now is only for --once runs")
    summary = run_directory_controller(
        hub_dir,
        out_dir,
        once=once,
        now=now,
        recursive=recursive,
        resync=resync,
        lock_timeout=float("inf") if lock_timeout is None else lock_timeout,
        report=_log if not once else warn,
    )
    if once:
        click.echo(
            f"synced {summary.syncs} placements: {summary.writes} writes, {summary.events} events"
        )
