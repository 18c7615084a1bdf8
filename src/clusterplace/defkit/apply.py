"""``apply-module``: evaluate each definition's placement against the cluster's identity
and install only the eligible ones, with upstream's flow and lines.

Differences from upstream (docs/defkit.md): dry-run evaluates placement too; if the
cluster labels cannot be read, nothing is applied (fail closed) unless placement is
ignored; composite conditions are never dropped; the labels line is sorted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterplace.api.metadata import quote
from clusterplace.defkit.hooks import run_hooks
from clusterplace.defkit.module import Module
from clusterplace.defkit.placement import format_cluster_labels
from clusterplace.defkit.plan import plan
from clusterplace.defkit.stores import DefinitionStore
from clusterplace.errors import ClusterplaceError
from clusterplace.labels.validation import dns1123_label_errors, dns1123_subdomain_errors
from clusterplace.outputs.dumpers import dump_yaml_stream

__all__ = [
    "CONFLICT_STRATEGIES",
    "ApplyError",
    "ApplyOptions",
    "ApplyStats",
    "apply_module",
    "summary",
]

CONFLICT_STRATEGIES = ("skip", "overwrite", "fail", "rename")


class ApplyError(ClusterplaceError):
    """apply-module stopped (a conflict with ``--conflict=fail``, unreadable labels, ...)."""


@dataclass
class ApplyOptions:
    namespace: str = "vela-system"
    types: Sequence[str] = ()
    prefix: str = ""
    conflict: str = "fail"
    ignore_placement: bool = False
    dry_run: bool = False
    skip_hooks: bool = False
    skip_pre_apply: bool = False
    skip_post_apply: bool = False
    stats: bool = False

    def __post_init__(self) -> None:
        reasons = dns1123_label_errors(self.namespace)
        if reasons:
            raise ApplyError(f"namespace {quote(self.namespace)} is invalid: {'; '.join(reasons)}")
        if self.conflict not in CONFLICT_STRATEGIES:
            raise ApplyError(
                f'invalid conflict strategy "{self.conflict}"; valid values: '
                + ", ".join(CONFLICT_STRATEGIES)
            )


@dataclass
class ApplyStats:
    created: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    placement_evaluated: int = 0
    placement_eligible: int = 0
    placement_skipped: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    hook_created: int = 0
    hook_updated: int = 0
    optional_hooks_failed: int = 0


def summary(module: Module, ref: str) -> str:
    """Upstream's ``LoadedModule.Summary()``."""
    lines = [f"Module: {ref}"]
    description = module.metadata.spec.description if module.metadata else None
    if description:
        lines.append(f"Description: {description}")
    lines += [
        "",
        "Definitions:",
        f"  Components:     {module.count('component')}",
        f"  Traits:         {module.count('trait')}",
        f"  Policies:       {module.count('policy')}",
        f"  Workflow Steps: {module.count('workflow-step')}",
    ]
    return "\n".join(lines) + "\n"


LabelsReader = Callable[[], dict[str, str]]


def apply_module(
    module: Module,
    ref: str,
    options: ApplyOptions,
    read_labels: LabelsReader,
    store: DefinitionStore,
    echo: Callable[[str], None],
) -> ApplyStats:
    """Apply ``module`` into ``store``. ``read_labels`` returns the cluster identity (``{}``
    when absent) or raises; it is called only when some placement must be checked.

    Raises :class:`ApplyError` when the run must stop; definitions that fail count as
    failures and the run goes on, as upstream.
    """
    _check_names(module, options)
    stats = ApplyStats()
    echo(f"Loading module from {ref}...")
    echo("")
    echo(summary(module, ref))
    definitions = [
        d for d in module.definitions if not options.types or d.definition.TYPE in options.types
    ]
    module_placement = module.placement
    check = not options.ignore_placement
    labels: dict[str, str] = {}
    if check:
        needed = not module_placement.is_empty() or any(
            not d.definition.placement.is_empty() for d in definitions
        )
        if needed:
            try:
                labels = read_labels()
            except Exception as err:  # any failure but "not found": fail closed
                raise ApplyError(
                    f"could not read the cluster labels: {err}; nothing was applied "
                    "(use --ignore-placement to apply without placement checks)"
                ) from None
            echo("Checking placement constraints...")
            echo(f"Cluster labels: {format_cluster_labels(labels)}")
            echo("")
        else:
            check = False
    if options.ignore_placement:
        echo("Warning: Ignoring placement constraints (--ignore-placement)")
        echo("")

    hooks = module.metadata.spec.hooks if module.metadata else None
    if hooks and hooks.pre_apply and not (options.skip_hooks or options.skip_pre_apply):
        _count_hooks(
            stats,
            run_hooks(
                "pre-apply",
                hooks.pre_apply,
                module.path,
                store,
                options.namespace,
                options.dry_run,
                echo,
            ),
        )

    for verdict in plan(module, labels, options.types):
        definition = verdict.loaded.definition
        manifest = definition.to_manifest(options.namespace)
        name = options.prefix + definition.name
        manifest["metadata"]["name"] = name
        kind = definition.KIND
        if check and verdict.checked:
            stats.placement_evaluated += 1
            if not verdict.eligible:
                echo(f"  ✗ {kind} {name}: skipped ({verdict.reason})")
                stats.placement_skipped += 1
                continue
            stats.placement_eligible += 1
            echo(f"  ✓ {kind} {name}: eligible")
        stats.by_type[definition.TYPE] = stats.by_type.get(definition.TYPE, 0) + 1
        if options.dry_run:
            echo(dump_yaml_stream([manifest]).rstrip("\n"))
            echo("---")
            stats.created += 1
            continue
        _install(manifest, kind, name, options, store, stats, echo)

    if hooks and hooks.post_apply and not (options.skip_hooks or options.skip_post_apply):
        _count_hooks(
            stats,
            run_hooks(
                "post-apply",
                hooks.post_apply,
                module.path,
                store,
                options.namespace,
                options.dry_run,
                echo,
            ),
        )
    if not options.dry_run:
        store.commit()
    _print_summary(stats, options.dry_run, echo)
    if options.stats:
        _print_stats(stats, echo)
    if stats.failed:
        raise ApplyError(f"{stats.failed} definitions failed to apply")
    return stats


def _check_names(module: Module, options: ApplyOptions) -> None:
    """Every name to install (prefix included) is valid, before anything runs: names
    become file names and API paths."""
    problems = []
    for loaded in module.definitions:
        name = options.prefix + loaded.definition.name
        reasons = dns1123_subdomain_errors(name)
        if reasons:
            problems.append(
                f"{loaded.definition.KIND} name {quote(name)} (prefix {quote(options.prefix)}) "
                f"is invalid: {'; '.join(reasons)}"
            )
    if problems:
        raise ApplyError("; ".join(problems) + "; nothing was applied")


def _count_hooks(stats: ApplyStats, result: Any) -> None:
    stats.hook_created += result.created
    stats.hook_updated += result.updated
    stats.optional_hooks_failed += result.optional_failed


def _install(
    manifest: dict[str, Any],
    kind: str,
    name: str,
    options: ApplyOptions,
    store: DefinitionStore,
    stats: ApplyStats,
    echo: Callable[[str], None],
) -> None:
    api_version, ns = manifest["apiVersion"], options.namespace
    try:
        exists = store.get(api_version, kind, ns, name) is not None
    except Exception as err:
        stats.failed += 1
        stats.failures.append(f"{name}: {err}")
        return
    if exists:
        if options.conflict == "skip":
            echo(f"Skipping {kind} {name} (already exists)")
            stats.skipped += 1
            return
        if options.conflict == "fail":
            raise ApplyError(
                f"definition {kind} {name} already exists in namespace {ns} "
                "(use --conflict=overwrite to update)"
            )
        if options.conflict == "rename":
            for i in range(1, 101):
                candidate = f"{name}-{i}"
                if store.get(api_version, kind, ns, candidate) is None:
                    manifest["metadata"]["name"] = name = candidate
                    exists = False
                    break
            else:
                raise ApplyError(
                    f"failed to find unique name for {name} (tried {name}-1 to {name}-100)"
                )
    try:
        if exists:
            store.update(manifest)
            echo(f"{kind} {name} updated in namespace {ns}")
            stats.updated += 1
        else:
            store.create(manifest)
            echo(f"{kind} {name} created in namespace {ns}")
            stats.created += 1
    except Exception as err:
        stats.failed += 1
        stats.failures.append(f"{name}: {err}")


def _print_summary(stats: ApplyStats, dry_run: bool, echo: Callable[[str], None]) -> None:
    echo("")
    parts = []
    if dry_run:
        if stats.created:
            parts.append(f"would apply: {stats.created}")
    else:
        if stats.created:
            parts.append(f"created: {stats.created}")
        if stats.updated:
            parts.append(f"updated: {stats.updated}")
    if stats.skipped:
        parts.append(f"skipped: {stats.skipped}")
    if stats.placement_skipped:
        parts.append(f"placement-skipped: {stats.placement_skipped}")
    if stats.failed:
        parts.append(f"failed: {stats.failed}")
    if dry_run:
        echo(
            f"Dry-run complete: {', '.join(parts)}"
            if parts
            else "Dry-run complete: no definitions to apply"
        )
    else:
        echo(f"Complete: {', '.join(parts)}" if parts else "Complete: no definitions applied")
    for failure in stats.failures:
        echo(f"  - {failure}")


def _print_stats(stats: ApplyStats, echo: Callable[[str], None]) -> None:
    echo("")
    echo("─────────────────────────────────────────")
    echo("Detailed Statistics")
    echo("─────────────────────────────────────────")
    labels = {
        "component": "Components",
        "trait": "Traits",
        "policy": "Policies",
        "workflow-step": "Workflow Steps",
    }
    if stats.by_type:
        echo("")
        echo("Definitions by type:")
        for key, label in labels.items():
            if stats.by_type.get(key):
                echo(f"  {label + ':':<19}{stats.by_type[key]}")
    echo("")
    echo("Definitions by action:")
    for label, value in (
        ("Created", stats.created),
        ("Updated", stats.updated),
        ("Skipped", stats.skipped),
        ("Failed", stats.failed),
    ):
        echo(f"  {label + ':':<19}{value}")
    if stats.placement_evaluated:
        echo("")
        echo("Placement:")
        echo(f"  {'Evaluated:':<19}{stats.placement_evaluated}")
        echo(f"  {'Eligible:':<19}{stats.placement_eligible}")
        echo(f"  {'Skipped:':<19}{stats.placement_skipped}")
