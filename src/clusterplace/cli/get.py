"""``clusterplace get clusters``: the ManagedClusters that match label and claim selectors."""

from __future__ import annotations

from collections.abc import Sequence

import click

from clusterplace.api import CLUSTERSET_LABEL, ManagedCluster
from clusterplace.cli._common import filename_options, load, output_option
from clusterplace.labels import Selector, SelectorError, parse
from clusterplace.outputs import print_objects

__all__ = ["get"]

# Labels OCM sets on every cluster; the default table leaves them out (-o wide shows all).
_SYSTEM_PREFIXES = ("cluster.open-cluster-management.io/", "feature.open-cluster-management.io/")


def _labels(cluster: ManagedCluster, *, everything: bool) -> str:
    items = sorted(cluster.labels.items())
    if not everything:
        items = [(k, v) for k, v in items if not k.startswith(_SYSTEM_PREFIXES)]
    return ",".join(f"{k}={v}" for k, v in items) or "<none>"


def _resource(cluster: ManagedCluster, which: str, name: str) -> str:
    status = cluster.status
    table = getattr(status, which, None) if status else None
    value = (table or {}).get(name)
    return str(value) if value is not None else "<none>"


def _taints(cluster: ManagedCluster) -> str:
    taints = cluster.taints
    if not taints:
        return "<none>"
    return ",".join(
        f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in taints
    )


def _claims(cluster: ManagedCluster) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(cluster.claims.items())) or "<none>"


COLUMNS = [
    ("NAME", lambda c: c.name),
    ("LABELS", lambda c: _labels(c, everything=False)),
    ("CLAIMS", lambda c: str(len(c.claims))),
    ("TAINTS", lambda c: str(len(c.taints))),
    ("CPU", lambda c: _resource(c, "allocatable", "cpu")),
    ("MEMORY", lambda c: _resource(c, "allocatable", "memory")),
]
WIDE_COLUMNS = [
    ("NAME", lambda c: c.name),
    ("CLUSTERSET", lambda c: c.labels.get(CLUSTERSET_LABEL, "<none>")),
    ("CPU", lambda c: _resource(c, "allocatable", "cpu")),
    ("MEMORY", lambda c: _resource(c, "allocatable", "memory")),
    ("CPU-CAPACITY", lambda c: _resource(c, "capacity", "cpu")),
    ("MEMORY-CAPACITY", lambda c: _resource(c, "capacity", "memory")),
    (
        "KUBERNETES",
        lambda c: (
            (c.status.version.kubernetes if c.status and c.status.version else None) or "<none>"
        ),
    ),
    ("TAINTS", _taints),
    ("CLAIMS", _claims),
    ("LABELS", lambda c: _labels(c, everything=True)),
]


def select_clusters(
    clusters: Sequence[ManagedCluster], label_selector: Selector, claim_selector: Selector
) -> list[ManagedCluster]:
    """The clusters whose labels and claims both match, sorted by name."""
    return sorted(
        (
            c
            for c in clusters
            if label_selector.matches(c.labels) and claim_selector.matches(c.claims)
        ),
        key=lambda c: c.name,
    )


def _parse_option(option: str, text: str) -> Selector:
    try:
        return parse(text)
    except SelectorError as err:
        raise SelectorError(
            f"invalid {option} {text!r}: {err.message}", text=err.text, position=err.position
        ) from None


@click.group()
def get() -> None:
    """Display objects of a fleet."""


@get.command("clusters")
@filename_options("Fleet files or directories (ManagedClusters are read; other kinds ignored).")
@click.option(
    "-l",
    "--selector",
    default="",
    metavar="SELECTOR",
    help="Label selector, e.g. 'env in (prod),!deprecated'.",
)
@click.option(
    "--claims", default="", metavar="SELECTOR", help="Selector over cluster claims, same syntax."
)
@output_option()
def get_clusters(
    filenames: tuple[str, ...], recursive: bool, selector: str, claims: str, output: str
) -> None:
    """List the ManagedClusters whose labels (and claims) match."""
    label_selector = _parse_option("-l/--selector", selector)
    claim_selector = _parse_option("--claims", claims)
    fleet = load(filenames, recursive)
    chosen = select_clusters(list(fleet.clusters.values()), label_selector, claim_selector)
    if not chosen and output in ("table", "wide"):
        click.echo("No resources found", err=True)
        return
    click.echo(print_objects(chosen, output, columns=COLUMNS, wide_columns=WIDE_COLUMNS), nl=False)
