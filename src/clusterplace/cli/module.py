"""``validate-module``, ``gen-module``, ``apply-module`` and ``plan-module``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    load,
    output_option,
    parse_labels,
    print_table,
    warn,
)
from clusterplace.cli._progress import progress
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.defkit.apply import CONFLICT_STRATEGIES, ApplyOptions, apply_module
from clusterplace.defkit.hooks import check_hook_manifests
from clusterplace.defkit.module import TYPE_DIRS, load_module
from clusterplace.defkit.placement import (
    CLUSTER_IDENTITY_CONFIGMAP,
    CLUSTER_IDENTITY_NAMESPACE,
    ValidationError,
    get_cluster_labels,
    get_effective_placement,
    validate_placement,
)
from clusterplace.defkit.plan import plan
from clusterplace.defkit.stores import DefinitionStore, DirectoryStore, MemoryStore
from clusterplace.outputs import format_table, open_output
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.safepath import resolve_inside

__all__ = ["apply_module_command", "gen_module", "plan_module", "validate_module"]

_TYPES = ("component", "trait", "policy", "workflow-step")


@click.command("validate-module")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--strict", is_flag=True, help="Also prove each placement can ever be eligible.")
def validate_module(directory: str, strict: bool) -> None:
    """Load a module and check its definitions and placement."""
    module = load_module(directory)
    for warning in module.warnings + check_hook_manifests(module.path, module.hooks()):
        warn(warning)
    errors: list[str] = []
    for loaded in module.definitions:
        definition = loaded.definition
        effective = get_effective_placement(module.placement, definition.placement)
        try:
            validate_placement(effective, strict=strict)
        except ValidationError as err:
            errors.append(f"{definition.KIND} {definition.name} ({loaded.path}): {err.message}")
    if errors:
        click.echo(f"Validation failed with {len(errors)} error(s):")
        for error in errors:
            click.echo(f"  - {error}")
        raise SystemExit(1)
    click.echo("Module validation passed.")


def _refuse_output(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    # -o is an output format in every command; gen-module prints none, and a folder
    # given there must not be taken for one.
    if value is not None:
        raise click.UsageError(
            f"-o is the output format, which gen-module does not take; the folder is "
            f"--output-dir {value}",
            ctx,
        )


@click.command("gen-module")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--output-dir",
    "out",
    default="cue-generated",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write the CUE files into.",
)
@click.option(
    "-o",
    "--output",
    "refused_output",
    hidden=True,
    expose_value=False,
    callback=_refuse_output,
    help="Refused: gen-module prints no format; the folder is --output-dir.",
)
def gen_module(directory: str, out: Path) -> None:
    """Write each definition's CUE to OUT/<type dir>/<name>.cue (placement never changes CUE)."""
    module = load_module(directory)
    by_type = {cls.TYPE: folder for folder, cls in TYPE_DIRS.items()}
    with open_output(out) as tx:
        for loaded in module.definitions:
            definition = loaded.definition
            target = resolve_inside(
                out, by_type[definition.TYPE], f"{definition.name}.cue", what="definition file"
            )
            tx.write(target, definition.to_cue())
        tx.commit()
    click.echo(f"Generated {len(module.definitions)} definition(s) in {out}")


def _labels_from(path: str) -> dict[str, str]:
    fleet = load_fleet(expand_sources([path]))
    found = fleet.config_maps.get((CLUSTER_IDENTITY_NAMESPACE, CLUSTER_IDENTITY_CONFIGMAP))
    if found is None:
        warn(
            f"{path}: no ConfigMap {CLUSTER_IDENTITY_NAMESPACE}/{CLUSTER_IDENTITY_CONFIGMAP}; "
            "the cluster has no labels"
        )
    return get_cluster_labels(found)


@click.command("apply-module")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--labels", "labels_text", metavar="K=V,...", help="The cluster's identity labels.")
@click.option(
    "--labels-from", metavar="FILE", help="A file with the vela-cluster-identity ConfigMap."
)
@click.option(
    "--output-dir",
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write applied definitions here as manifests (--out is the older name).",
)
@click.option(
    "--kubeconfig", metavar="PATH", help="Apply to a live cluster (reads its identity ConfigMap)."
)
@click.option("--context", "kube_context", metavar="NAME", help="The kubeconfig context to use.")
@click.option("--dry-run", is_flag=True, help="Evaluate placement and print what would be applied.")
@click.option(
    "-n",
    "--namespace",
    default="vela-system",
    show_default=True,
    help="The namespace definitions are installed in.",
)
@click.option(
    "-t", "--types", multiple=True, type=click.Choice(_TYPES), help="Only these definition types."
)
@click.option("-p", "--prefix", default="", help="Prefix every definition name.")
@click.option(
    "-c",
    "--conflict",
    type=click.Choice(CONFLICT_STRATEGIES),
    default="fail",
    show_default=True,
    help="What to do with a definition that already exists.",
)
@click.option("--ignore-placement", is_flag=True, help="Apply without evaluating placement.")
@click.option("--skip-hooks", is_flag=True, help="Run no hooks.")
@click.option("--skip-pre-apply", is_flag=True, help="Run no pre-apply hooks.")
@click.option("--skip-post-apply", is_flag=True, help="Run no post-apply hooks.")
@click.option("--stats", is_flag=True, help="Print detailed statistics.")
def apply_module_command(
    directory: str,
    labels_text: str | None,
    labels_from: str | None,
    out: Path | None,
    kubeconfig: str | None,
    kube_context: str | None,
    dry_run: bool,
    namespace: str,
    types: tuple[str, ...],
    prefix: str,
    conflict: str,
    ignore_placement: bool,
    skip_hooks: bool,
    skip_pre_apply: bool,
    skip_post_apply: bool,
    stats: bool,
) -> None:
    """Apply the module's definitions whose placement matches the cluster's identity.

    The identity comes from --labels, --labels-from FILE, or the live cluster
    (--kubeconfig); definitions go to --output-dir DIR, or to the live cluster.
    """
    options = ApplyOptions(
        namespace=namespace,
        types=types,
        prefix=prefix,
        conflict=conflict,
        ignore_placement=ignore_placement,
        dry_run=dry_run,
        skip_hooks=skip_hooks,
        skip_pre_apply=skip_pre_apply,
        skip_post_apply=skip_post_apply,
        stats=stats,
    )
    sources = [
        s for s in (labels_text is not None, labels_from is not None, kubeconfig is not None) if s
    ]
    if len(sources) > 1:
        raise click.UsageError("give only one of --labels, --labels-from and --kubeconfig")
    module = load_module(directory)
    for warning in module.warnings:
        warn(warning)
    if kubeconfig is not None:
        from clusterplace.hub.kubernetes.api import SyncHubApi

        with SyncHubApi.from_kubeconfig(kubeconfig, kube_context) as cluster:
            apply_module(
                module, directory, options, lambda: get_cluster_labels(cluster), cluster, click.echo
            )
        return
    given = parse_labels(labels_text) if labels_text is not None else None
    if labels_from is not None:
        given = _labels_from(labels_from)
    if given is None and not ignore_placement:
        raise click.UsageError(
            "where do the cluster's labels come from? give --labels, --labels-from or "
            "--kubeconfig (or --ignore-placement)"
        )
    fixed = given or {}
    read_labels = lambda: fixed  # noqa: E731
    if out is None and not dry_run:
        raise click.UsageError("give --output-dir DIR to write the definitions (or --dry-run)")
    if out is not None and not dry_run:
        # The folder is locked for the whole run: what exists there decides conflicts.
        with open_output(out) as tx:
            apply_module(
                module, directory, options, read_labels, DirectoryStore(out, tx), click.echo
            )
        return
    store: DefinitionStore = DirectoryStore(out) if out is not None else MemoryStore()
    apply_module(module, directory, options, read_labels, store, click.echo)


@click.command("plan-module")
@click.argument("directory", type=click.Path(file_okay=False))
@filename_options("Fleet files or directories holding the ManagedClusters.")
@output_option()
def plan_module(directory: str, filenames: tuple[str, ...], recursive: bool, output: str) -> None:
    """Which ManagedClusters of a fleet each definition would be installed on.

    Each cluster's labels are its identity. table: a ✓/✗ matrix and a count per
    definition; wide: one line per definition and cluster with the reason; name: the
    definitions (kind.core.oam.dev/name); jsonpath and custom-columns read the
    ModulePlan that json prints (a row per definition).
    """
    module = load_module(directory)
    with progress("reading the fleet") as bar:
        fleet = load(filenames, recursive)
        clusters = sorted(fleet.clusters)
        bar.phase("planning clusters", total=len(clusters))
        plans = {}
        for name in clusters:
            plans[name] = plan(module, fleet.clusters[name].labels)
            bar.advance()
    rows: list[dict[str, Any]] = [
        {
            "kind": loaded.definition.KIND,
            "name": loaded.definition.name,
            "clusters": [
                {
                    "cluster": name,
                    "eligible": plans[name][i].eligible,
                    "reason": plans[name][i].reason,
                }
                for name in clusters
            ],
        }
        for i, loaded in enumerate(module.definitions)
    ]
    data = {
        "apiVersion": "clusterplace.io/v1alpha1",
        "kind": "ModulePlan",
        "metadata": {"name": module.name},
        "definitions": rows,
    }
    names = [f"{r['kind'].lower()}.core.oam.dev/{r['name']}" for r in rows]
    if emit_template_or_name(output, document=data, rows=rows, names=names):
        return
    if output in ("yaml", "json"):
        click.echo(dump_yaml_stream([data]) if output == "yaml" else dump_json(data), nl=False)
        return
    if output == "wide":
        table = [
            [f"{r['kind']}/{r['name']}", v["cluster"], "✓" if v["eligible"] else "✗", v["reason"]]
            for r in rows
            for v in r["clusters"]
        ]
        print_table(["DEFINITION", "CLUSTER", "ELIGIBLE", "REASON"], table)
        return
    click.echo(_plan_matrix(rows, clusters), nl=False)


PIVOT_AT = 8  # more clusters than this (and than definitions): one row per cluster


def _plan_matrix(rows: list[dict[str, Any]], clusters: list[str]) -> str:
    """The ✓/✗ matrix: definitions down and clusters across while that fits a terminal;
    with many clusters, turned around (clusters down), so it never grows sideways."""
    marks = [["✓" if v["eligible"] else "✗" for v in r["clusters"]] for r in rows]
    if len(clusters) > PIVOT_AT and len(clusters) > len(rows):
        names = [f"{r['kind'].removesuffix('Definition').lower()}/{r['name']}" for r in rows]
        table = [
            [cluster, *(m[i] for m in marks), f"{sum(m[i] == '✓' for m in marks)}/{len(rows)}"]
            for i, cluster in enumerate(clusters)
        ]
        return format_table(["CLUSTER", *names, "DEFINITIONS"], table, upper=False)
    # Cluster names head their columns as they are written, not upper-cased.
    table = [
        [f"{r['kind']}/{r['name']}", *m, f"{m.count('✓')}/{len(m)}"]
        for r, m in zip(rows, marks, strict=True)
    ]
    return format_table(["DEFINITION", *clusters, "CLUSTERS"], table, upper=False)
