"""``clusterplace route``: copy objects into per-cluster folders by their ClusterSelector."""

from __future__ import annotations

from pathlib import Path

import click

from clusterplace.bundles import route_into
from clusterplace.cli._common import filename_options, load
from clusterplace.codecs import expand_sources, read_documents
from clusterplace.codecs.loader import require_unique_identities
from clusterplace.errors import InputError, InputErrors
from clusterplace.federation import ANNOTATION, RoutingError
from clusterplace.federation import route as route_objects
from clusterplace.outputs import format_table

__all__ = ["route"]


@click.command()
@filename_options("Manifests to route (any kinds).")
@click.option(
    "--clusters",
    "cluster_files",
    multiple=True,
    required=True,
    metavar="FILE|DIR",
    help="Fleet files or directories holding the ManagedClusters.",
)
@click.option(
    "-o",
    "--output-dir",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write OUT_DIR/<cluster>/<object>.yaml into.",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite or remove copies edited by hand, and replace files clusterplace did not "
    "write, instead of keeping them.",
)
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for another run writing the same output directory.",
)
def route(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    out_dir: Path,
    dry_run: bool,
    force: bool,
    lock_timeout: float,
) -> None:
    """Route objects to clusters with the Federation ClusterSelector annotation.

    Objects without the annotation go to every cluster. Copies written by an
    earlier run whose selector no longer matches are removed; files clusterplace
    did not write are never touched.
    """
    fleet = load(cluster_files, recursive)
    if not fleet.clusters:
        # Routing to no cluster would remove every copy an earlier run wrote.
        raise InputError(
            "no ManagedCluster found in the --clusters input; nothing is routed, and "
            f"nothing in {out_dir} is removed"
        )
    documents = read_documents(expand_sources(filenames, recursive=recursive))
    require_unique_identities(documents)
    labels = {name: cluster.labels for name, cluster in fleet.clusters.items()}
    try:
        routed = route_objects([d.data for d in documents], labels)
    except RoutingError as err:
        raise InputErrors(
            [
                InputError(msg, documents[i].location(("metadata", "annotations", ANNOTATION)))
                for i, msg in err.problems
            ]
        ) from None
    plan = route_into(out_dir, routed, force=force, dry_run=dry_run, lock_timeout=lock_timeout)
    for item in routed:
        targets = ", ".join(item.clusters) or "(no cluster)"
        click.echo(f"{item.file_name.removesuffix('.yaml')} -> {targets}")
    rows = [[c.action, c.cluster, c.file, c.obj] for c in plan.changes if c.action != "unchanged"]
    if rows:
        click.echo()
        click.echo(format_table(["ACTION", "CLUSTER", "FILE", "OBJECT"], rows), nl=False)
    summary = ", ".join(
        f"{plan.count(a)} {a}"
        for a in ("add", "update", "remove", "unchanged", "keep")
        if plan.count(a)
    )
    verb = "Dry run: would write to" if dry_run else "Wrote"
    click.echo(f"\n{verb} {out_dir}: {summary or 'nothing'}")
    for change in plan.changes:
        if change.action == "keep":
            path = out_dir / change.relpath
            click.echo(
                f"warning: {path}: edited by hand since clusterplace wrote it; kept as it is "
                "(--force overwrites it)",
                err=True,
            )
