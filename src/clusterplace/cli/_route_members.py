"""``route --to-kubeconfig``: each cluster's copies applied to its API server, once or
with ``--watch`` (see :mod:`clusterplace.hub.kubernetes.members`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplace.cli._common import load
from clusterplace.cli._division import read_route_and_divide
from clusterplace.codecs import Document
from clusterplace.errors import ClusterplaceError
from clusterplace.federation import object_file_name
from clusterplace.fedsync.engine import RouteSync
from clusterplace.fedsync.inputs import InputState
from clusterplace.fedsync.target import CopyOutcome
from clusterplace.outputs import format_table

if TYPE_CHECKING:
    from clusterplace.hub.kubernetes.members import ApplySet, MemberTarget

__all__ = ["RESULTS", "WATCH_PATIENCE_S", "cluster_results", "route_to_members"]

# How long a change set under --watch waits for the members before it goes on (a
# member still working is reported slow, and its outcomes come with a later one).
WATCH_PATIENCE_S = 2.0

# The columns of the per-cluster results, and the outcome actions each counts.
RESULTS = {
    "applied": ("add", "update"),
    "unchanged": ("unchanged",),
    "deleted": ("remove",),
    "conflict": ("keep",),
}


def cluster_results(
    outcomes: Iterable[CopyOutcome], clusters: Iterable[str], status: dict[str, str]
) -> list[list[str]]:
    """A row per cluster: its counts per result and its state (converged, conflict,
    unreachable, forbidden, failed, no-context, slow)."""
    counts: dict[str, dict[str, int]] = {c: dict.fromkeys(RESULTS, 0) for c in clusters}
    for o in outcomes:
        per = counts.setdefault(o.cluster, dict.fromkeys(RESULTS, 0))
        for result, actions in RESULTS.items():
            if o.action in actions and o.name:
                per[result] += 1
    rows = []
    for cluster in sorted(counts):
        state = status.get(cluster, "converged").partition(":")[0]
        rows.append([cluster, *(str(n) for n in counts[cluster].values()), state])
    return rows


def route_to_members(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    kubeconfig: Path,
    context_map_file: Path | None,
    *,
    observed_dir: Path | None,
    division: str,
    now: datetime,
    force: bool,
    watch: bool,
    log: Callable[[str], None],
    member_timeout: float = 30.0,
    applyset: str | None = None,
) -> int:
    """Route once (or watch) into the member clusters; the exit code (0: every cluster
    converged)."""
    try:
        import aiohttp  # noqa: F401  (the client's transport, in the same extra)
        from kubernetes.aio import config  # noqa: F401  (an optional dependency)
    except ImportError:
        from clusterplace.hub.kubernetes.api import KUBE_EXTRA

        raise ClusterplaceError(KUBE_EXTRA) from None
    from clusterplace.hub.kubernetes.members import MemberTarget, read_context_map

    aset = _applyset(applyset, filenames)

    if observed_dir is not None:
        raise click.UsageError(
            "--observed: not with --to-kubeconfig (the workloads and pods are read from "
            "the member clusters)"
        )
    context_map = read_context_map(context_map_file) if context_map_file is not None else {}
    if watch:
        return _watch(
            filenames,
            recursive,
            cluster_files,
            kubeconfig,
            context_map,
            observed_dir,
            division,
            force,
            log,
            member_timeout,
            aset,
        )
    fleet = load(cluster_files, recursive)
    labels = {name: cluster.labels for name, cluster in fleet.clusters.items()}
    # The inputs are checked (and their warnings printed) as a route to folders does.
    _, documents = read_route_and_divide(
        filenames,
        recursive,
        cluster_files,
        observed_dir=observed_dir,
        division=division,
        now=now,
        empty_fleet="no ManagedCluster found in the --clusters input; nothing is routed, "
        "and nothing in the member clusters is removed",
    )
    target = MemberTarget(
        kubeconfig,
        context_map=context_map,
        force=force,
        deadline=member_timeout,
        whole_run=True,
        report=log,
        applyset=aset,
    )
    target.open()
    try:
        for cluster in sorted(labels):
            target.member(cluster)  # a cluster without a context is reported here
        observed = _observed(target, labels)
        state = InputState({object_file_name(d.data): d for d in documents}, dict(labels), observed)
        target.route_kinds(d.data for d in documents)
        sync = RouteSync(target, division=division, clock=lambda: now, report=log)
        sync.update(state)
        outcomes = sync.flush()
        status = dict(target.status)
    finally:
        target.close()
    rows = cluster_results(outcomes, labels, status)
    click.echo(format_table(["CLUSTER", *(r.upper() for r in RESULTS), "STATE"], rows), nl=False)
    for o in outcomes:
        if o.action == "refused" and not o.name:
            log(f"error: {o.cluster}: {o.message}")
    converged = all(row[-1] == "converged" for row in rows)
    return 0 if converged else 1


def _applyset(given: str | None, filenames: tuple[str, ...]) -> ApplySet:
    """``--applyset [NAMESPACE/]NAME``, checked; by default ``clusterplace-route-`` and
    a hash of the -f paths (made absolute), so that a route run again from the same
    manifests is the same set and another route's manifests are another set."""
    import hashlib

    from clusterplace.hub.kubernetes.members import ApplySet
    from clusterplace.labels.validation import dns1123_label_errors, dns1123_subdomain_errors

    if given is None:
        paths = sorted(
            str(Path(part).absolute()) for value in filenames for part in value.split(",") if part
        )
        digest = hashlib.sha256("\n".join(paths).encode()).hexdigest()[:12]
        return ApplySet(f"clusterplace-route-{digest}")
    namespace, _, name = given.rpartition("/")
    problems = [f"name {name!r}: {p}" for p in dns1123_subdomain_errors(name)]
    if namespace:
        problems += [f"namespace {namespace!r}: {p}" for p in dns1123_label_errors(namespace)]
    if problems:
        raise click.UsageError(
            f"--applyset {given!r}: {'; '.join(problems)} (give [NAMESPACE/]NAME, the "
            "parent ConfigMap of the set in each member)"
        )
    return ApplySet(name, namespace or "default")


def _observed(target: MemberTarget, clusters: Iterable[str]) -> dict[str, dict[Hashable, Document]]:
    """The Deployments, ReplicaSets and Pods read from each member with a context."""
    from clusterplace.hub.kubernetes.members import observed_documents

    found = target.observe(c for c in clusters if target.context_of(c) is not None)
    return {c: observed_documents(items, c) for c, items in found.items()}


def _watch(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    kubeconfig: Path,
    context_map: dict[str, str],
    observed_dir: Path | None,
    division: str,
    force: bool,
    log: Callable[[str], None],
    member_timeout: float,
    aset: ApplySet,
) -> int:
    from clusterplace.fedsync import WatchOptions, run_route_watch
    from clusterplace.hub.kubernetes.members import MemberTarget

    target = MemberTarget(
        kubeconfig,
        context_map=context_map,
        force=force,
        deadline=member_timeout,
        patience=WATCH_PATIENCE_S,
        report=log,
        applyset=aset,
    )

    def observe(clusters: Iterable[str]) -> dict[str, dict[Hashable, Document]]:
        return _observed(target, clusters)

    options = WatchOptions(
        filenames=filenames,
        cluster_files=cluster_files,
        out_dir=Path(str(kubeconfig)),
        recursive=recursive,
        observed_dir=observed_dir,
        division=division,
        force=force,
        target=target,
        observe=observe,
        inputs_seen=lambda state: target.route_kinds(d.data for d in state.objects.values()),
    )
    run_route_watch(options, report=log)
    return 0
