"""``clusterplace route``: copy objects into per-cluster folders by their ClusterSelector."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from clusterplace.bundles import RoutePlan, route_into
from clusterplace.bundles.route_dir import object_ref
from clusterplace.cli._common import filename_options, lock_timeout_option
from clusterplace.cli._division import clusters_option, division_options, read_route_and_divide
from clusterplace.cli._progress import Progress, progress
from clusterplace.federation import Routed
from clusterplace.outputs import format_table
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream

__all__ = ["route"]

FORMATS = ("table", "wide", "yaml", "json")


class PlanFormat(click.Choice):  # type: ignore[type-arg]
    """-o is the plan's format, as everywhere; a folder given there says where it goes."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value not in self.choices:
            self.fail(
                f"{value!r} is not a format ({', '.join(FORMATS)}); the output folder is "
                f"--output-dir {value}",
                param,
                ctx,
            )
        return value


@click.command()
@filename_options("Manifests to route (any kinds).")
@clusters_option
@click.option(
    "--output-dir",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write OUT_DIR/<cluster>/<object>.yaml into (or --to-kubeconfig).",
)
@click.option(
    "--to-kubeconfig",
    "to_kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Apply each cluster's copies to its API server instead (server-side apply, field "
    "manager clusterplace): the context named after the ManagedCluster, or as "
    "--context-map says. Workloads and pods are read from the members for the replica "
    "planner. Exit code 1 unless every cluster converged.",
)
@click.option(
    "--context-map",
    "context_map",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="With --to-kubeconfig: a YAML or JSON file mapping cluster names to context names.",
)
@click.option(
    "--applyset",
    "applyset",
    metavar="[NAMESPACE/]NAME",
    help="With --to-kubeconfig: the name of this route's set of copies (its parent "
    "ConfigMap in each member, namespace default unless given). Only the set's own copies "
    "are ever pruned; two routes sharing a member need two names. Default: "
    "clusterplace-route- and a hash of the -f paths.",
)
@click.option(
    "--member-timeout",
    "member_timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="With --to-kubeconfig: how long one member may go without answering before its work "
    "is cancelled and it is reported unreachable; the other members never wait for it.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan, with each workload's replicas per cluster and why; write nothing.",
)
@click.option(
    "-o",
    "--output",
    "--format",
    "output_format",
    type=PlanFormat(FORMATS),
    default="table",
    show_default=True,
    help="How the plan is printed: wide adds the replica division with its reasons and "
    "inputs; yaml and json print it as a RoutePlan object (the folder is --output-dir).",
)
@division_options
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite or remove copies edited by hand, and replace files clusterplace did not "
    "write, instead of keeping them.",
)
@lock_timeout_option(
    "How long to wait for another run writing the same output directory.", default=0
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print only the summary line (with --to-kubeconfig: clusters by state, copies by "
    "result), not a line per object and change.",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Keep OUT_DIR current until stopped (SIGTERM, Ctrl-C): the manifests, --clusters "
    "and --observed are watched, and each change is written as a run would write it.",
)
def route(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    out_dir: Path | None,
    to_kubeconfig: Path | None,
    context_map: Path | None,
    applyset: str | None,
    member_timeout: float,
    dry_run: bool,
    output_format: str,
    observed_dir: Path | None,
    division: str,
    now: datetime,
    force: bool,
    lock_timeout: float,
    quiet: bool,
    watch: bool,
) -> None:
    """Route objects to clusters with the Federation ClusterSelector annotation.

    Objects without the annotation go to every cluster. Copies written by an
    earlier run whose selector no longer matches are removed; files clusterplace
    did not write are never touched. The replicas of each Deployment and ReplicaSet
    are divided among its clusters as the Federation replica scheduler did, by its
    replica-set-preferences or deployment-preferences annotation.

    With --watch it keeps running: each change of the inputs is written within a
    moment, and a line per change set is logged to stderr. See docs/cli.md.
    """
    if (out_dir is None) == (to_kubeconfig is None):
        raise click.UsageError("give one of --output-dir and --to-kubeconfig")
    if context_map is not None and to_kubeconfig is None:
        raise click.UsageError("--context-map: only with --to-kubeconfig")
    ctx = click.get_current_context()
    if (
        to_kubeconfig is None
        and ctx.get_parameter_source("member_timeout") == click.core.ParameterSource.COMMANDLINE
    ):
        raise click.UsageError("--member-timeout: only with --to-kubeconfig")
    if applyset is not None and to_kubeconfig is None:
        raise click.UsageError("--applyset: only with --to-kubeconfig")
    if to_kubeconfig is not None:
        from clusterplace.cli._route_members import route_to_members

        if dry_run or output_format != "table":
            raise click.UsageError("--dry-run and --format: not with --to-kubeconfig")
        ctx = click.get_current_context()
        if watch and ctx.get_parameter_source("now") == click.core.ParameterSource.COMMANDLINE:
            raise click.UsageError(
                "--now: not with --watch (replicas are divided at the time of each change)"
            )
        code = route_to_members(
            filenames,
            recursive,
            cluster_files,
            to_kubeconfig,
            context_map,
            observed_dir=observed_dir,
            division=division,
            now=now,
            force=force,
            watch=watch,
            log=_log,
            member_timeout=member_timeout,
            applyset=applyset,
            quiet=quiet,
        )
        sys.exit(code)
    assert out_dir is not None
    if watch:
        _watch(
            filenames,
            recursive,
            cluster_files,
            out_dir,
            observed_dir,
            division,
            force,
            lock_timeout,
        )
        return
    if quiet and output_format != "table":
        raise click.UsageError("-q/--quiet: only with the table output")
    # Thousands of objects to thousands of clusters take a while: on a terminal, a bar.
    with progress("reading the manifests and the fleet") as bar:
        routed, _ = read_route_and_divide(
            filenames,
            recursive,
            cluster_files,
            observed_dir=observed_dir,
            division=division,
            now=now,
            # Routing to no cluster would remove every copy an earlier run wrote.
            empty_fleet="no ManagedCluster found in the --clusters input; nothing is routed, "
            f"and nothing in {out_dir} is removed",
        )
        plan = route_into(
            out_dir,
            routed,
            force=force,
            dry_run=dry_run,
            lock_timeout=lock_timeout,
            progress=_RouteBar(bar, sum(len(item.clusters) for item in routed)),
        )
    if output_format in ("yaml", "json"):
        data = _plan_object(routed, plan, out_dir, dry_run)
        text = dump_yaml_stream([data]) if output_format == "yaml" else dump_json(data)
        click.echo(text, nl=False)
    elif quiet:
        click.echo(_summary(plan, out_dir, dry_run))
    else:
        _print_table(routed, plan, out_dir, dry_run, wide=output_format == "wide")
    for change in plan.changes:
        if change.action == "keep":
            path = out_dir / change.relpath
            click.echo(
                f"warning: {path}: edited by hand since clusterplace wrote it; kept as it is "
                "(--force overwrites it)",
                err=True,
            )


def _log(message: str) -> None:
    for line in message.splitlines():
        click.echo(f"route: {line}", err=True)
    sys.stderr.flush()


def _watch(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    out_dir: Path,
    observed_dir: Path | None,
    division: str,
    force: bool,
    lock_timeout: float,
) -> None:
    ctx = click.get_current_context()
    given = {
        name
        for name in ("dry_run", "output_format", "now")
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    }
    if given:
        flags = {"dry_run": "--dry-run", "output_format": "--format", "now": "--now"}
        shown = ", ".join(flags[name] for name in sorted(given))
        raise click.UsageError(
            f"{shown}: not with --watch (it writes as it goes, logs to stderr, and divides "
            "replicas at the time of each change)"
        )
    from clusterplace.fedsync import WatchOptions, run_route_watch

    options = WatchOptions(
        filenames=filenames,
        cluster_files=cluster_files,
        out_dir=out_dir,
        recursive=recursive,
        observed_dir=observed_dir,
        division=division,
        force=force,
        lock_timeout=lock_timeout,
    )
    run_route_watch(options, report=_log)


def _targets(item: Routed) -> str:
    if not item.clusters:
        return "(no cluster)"
    if item.division is None:
        return ", ".join(item.clusters)
    return ", ".join(f"{c}={item.division.replicas(c)}" for c in item.clusters)


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _replica_rows(routed: list[Routed], wide: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    for item in routed:
        if item.division is None:
            continue
        ref = object_ref(item.obj)
        reasons = item.division.reasons()
        for cluster in item.clusters:
            row = [ref, cluster, str(item.division.replicas(cluster))]
            if wide:
                state = item.observed.get(cluster)
                row += [
                    str(item.division.plan[cluster]),
                    str(item.division.overflow.get(cluster, 0)),
                    _count(state.current if state else None),
                    _count(state.capacity if state else None),
                ]
            rows.append([*row, reasons[cluster]])
    return rows


def _print_table(
    routed: list[Routed], plan: RoutePlan, out_dir: Path, dry_run: bool, *, wide: bool
) -> None:
    for item in routed:
        click.echo(f"{item.file_name.removesuffix('.yaml')} -> {_targets(item)}")
    replicas = _replica_rows(routed, wide) if dry_run or wide else []
    if replicas:
        headers = ["WORKLOAD", "CLUSTER", "REPLICAS"]
        if wide:
            headers += ["PLAN", "OVERFLOW", "CURRENT", "CAPACITY"]
        click.echo()
        click.echo(format_table([*headers, "WHY"], replicas), nl=False)
    rows = [[c.action, c.cluster, c.file, c.obj] for c in plan.changes if c.action != "unchanged"]
    if rows:
        click.echo()
        click.echo(format_table(["ACTION", "CLUSTER", "FILE", "OBJECT"], rows), nl=False)
    click.echo(f"\n{_summary(plan, out_dir, dry_run)}")


def _summary(plan: RoutePlan, out_dir: Path, dry_run: bool) -> str:
    """The last line of a run: ``Wrote OUT: 3 add, 1 remove, 40 unchanged``."""
    counts = Counter(c.action for c in plan.changes)
    summary = ", ".join(
        f"{counts[a]} {a}" for a in ("add", "update", "remove", "unchanged", "keep") if counts[a]
    )
    verb = "Dry run: would write to" if dry_run else "Wrote"
    return f"{verb} {out_dir}: {summary or 'nothing'}"


class _RouteBar:
    """The route's progress callback, drawn on a bar: planning counts up to the number
    of copies routed, writing up to the number of changes."""

    def __init__(self, bar: Progress, copies: int) -> None:
        self.bar, self.copies, self.phase = bar, copies, ""

    def __call__(self, what: str, done: int, total: int | None) -> None:
        if what != self.phase:
            self.phase = what
            self.bar.phase(what, total=self.copies if what == "planning copies" else total)
        self.bar.update(done)


def _plan_object(routed: list[Routed], plan: RoutePlan, out_dir: Path, dry_run: bool) -> Any:
    objects: list[dict[str, Any]] = []
    for item in routed:
        entry: dict[str, Any] = {
            "object": object_ref(item.obj),
            "file": item.file_name,
            "selector": item.selector,
            "clusters": list(item.clusters),
        }
        if item.division is not None:
            division = item.division.to_dict()
            for cluster, state in item.observed.items():
                division["clusters"][cluster]["observed"] = state.to_dict()
            entry["replicas"] = division
        objects.append(entry)
    return {
        "apiVersion": "clusterplace.io/v1alpha1",
        "kind": "RoutePlan",
        "outputDir": str(out_dir),
        "dryRun": dry_run,
        "objects": objects,
        "changes": [
            {"action": c.action, "cluster": c.cluster, "file": c.file, "object": c.obj}
            for c in plan.changes
        ],
    }
