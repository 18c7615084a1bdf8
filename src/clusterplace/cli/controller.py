"""``clusterplace controller``: keep placement decisions current on a live hub."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from clusterplace.cli._common import (
    lock_timeout_option,
    now_option_for,
    parse_time_option,
    warn,
)
from clusterplace.cli._progress import Progress, progress
from clusterplace.cli._sig import decision_format_option

__all__ = ["controller"]


def _log(message: str) -> None:
    for line in message.splitlines():
        click.echo(f"controller: {line}", err=True)
    sys.stderr.flush()


def _listen(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"{value!r}: give HOST:PORT (port 0: any free port)")
    return (host or "0.0.0.0", int(port))


_DIR_ONLY = ("out_dir", "once", "recursive", "now", "lock_timeout")
_KUBE_ONLY = (
    "context",
    "namespace",
    "listen",
    "lease_duration",
    "renew_deadline",
    "retry_period",
    "disable_leader_election",
    "cluster_profile_namespace",
    "shards",
)


F = TypeVar("F", bound=Callable[..., Any])


def _seconds(flag: str, dest: str, default: int, help_text: str) -> Callable[[F], F]:
    """A leader-election duration option: whole seconds, at least 1."""
    return click.option(
        flag,
        dest,
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        metavar="SECONDS",
        help=help_text,
    )


@click.command()
@click.option(
    "--hub",
    "hub_dir",
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
@now_option_for(
    "With --once: the time to schedule at (default: now), for reproducible runs.",
    callback=parse_time_option,
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
    "--expectation-timeout",
    type=click.FloatRange(min=1),
    default=300,
    show_default=True,
    metavar="SECONDS",
    help="How long a placement or ManifestWorkReplicaSet waits for the echoes of its "
    "last writes before it is planned again without them (upstream's "
    "ControllerExpectations: 5 minutes). A create the hub named waits for its echo.",
)
@lock_timeout_option(
    "How long to wait while another controller holds the output folder "
    "[default: for ever, as a standby replica].",
    default=None,
)
@click.option(
    "--kubeconfig",
    metavar="PATH",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Run on the Kubernetes hub this kubeconfig points at.",
)
@click.option("--context", metavar="NAME", help="With --kubeconfig: the context to use.")
@click.option(
    "--in-cluster",
    is_flag=True,
    help="Run on the Kubernetes hub the pod runs on (its service account).",
)
@click.option(
    "--namespace",
    metavar="NS",
    help="Kubernetes hub: the namespace of the leader-election Lease [default: the pod's, "
    "else open-cluster-management-hub].",
)
@click.option(
    "--listen",
    default="0.0.0.0:8080",
    show_default=True,
    callback=_listen,
    metavar="HOST:PORT",
    help="Kubernetes hub: where /healthz, /readyz, /metrics and /debug/placements/ are served.",
)
@_seconds(
    "--leader-election-lease-duration",
    "lease_duration",
    137,
    "How long a standby waits after the leader's last renewal before taking over (and how "
    "long a refused Lease, e.g. in a missing namespace, is retried before exiting).",
)
@_seconds(
    "--leader-election-renew-deadline",
    "renew_deadline",
    107,
    "How long after its last successful renewal the leader stops writing and steps down.",
)
@_seconds(
    "--leader-election-retry-period",
    "retry_period",
    26,
    "How often the Lease is renewed, or tried by a standby.",
)
@click.option(
    "--disable-leader-election",
    is_flag=True,
    help="Act at once, without a Lease (only when one replica runs).",
)
@decision_format_option("the controller writes (ocm or both)")
@click.option(
    "--cluster-profile-namespace",
    metavar="NS",
    help="Kubernetes hub: read ClusterProfiles in this inventory namespace only "
    "[default: every namespace].",
)
@click.option(
    "--shards",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="N",
    help="Kubernetes hub: split the placements into N shards by namespace, each with its "
    'own Lease; every replica holds its share of them (docs/controller.md, "Sharded '
    'controllers"). Give every replica the same N.',
)
@click.pass_context
def controller(
    ctx: click.Context,
    hub_dir: Path | None,
    out_dir: Path | None,
    once: bool,
    recursive: bool,
    now: datetime | None,
    resync: float,
    expectation_timeout: float,
    lock_timeout: float | None,
    kubeconfig: Path | None,
    context: str | None,
    in_cluster: bool,
    namespace: str | None,
    listen: tuple[str, int],
    lease_duration: int,
    renew_deadline: int,
    retry_period: int,
    disable_leader_election: bool,
    decision_format: str,
    cluster_profile_namespace: str | None,
    shards: int,
) -> None:
    """Keep PlacementDecisions and Placement status current as the hub changes.

    Upstream's placement controller, on a folder of manifests (--hub DIR) or on a
    Kubernetes hub (--kubeconfig PATH, or --in-cluster): changes enqueue the placements
    they affect (upstream's rules), each is synced as upstream syncs it, and only what
    changed is written. Stops on SIGTERM or Ctrl-C after the sync in progress. See
    docs/controller.md.
    """
    if decision_format == "sig":
        raise click.UsageError(
            "--decision-format sig: the controller always writes OCM's PlacementDecisions "
            "(its own state, Balance and ManifestWorkReplicaSets read them); use "
            "--decision-format both to write SIG-Multicluster's beside them"
        )
    hubs = [
        flag
        for flag, given in (
            ("--hub", hub_dir),
            ("--kubeconfig", kubeconfig),
            ("--in-cluster", in_cluster),
        )
        if given
    ]
    if len(hubs) != 1:
        which = " and ".join(hubs) if hubs else "none was given"
        raise click.UsageError(
            f"give exactly one hub: --hub DIR, --kubeconfig PATH or --in-cluster ({which})"
        )
    explicit = {
        name
        for name in ctx.params
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    }
    if hub_dir is None:
        misplaced = sorted(explicit.intersection(_DIR_ONLY))
        if misplaced:
            raise click.UsageError(f"{', '.join(_flag(m) for m in misplaced)}: only with --hub DIR")
        if context is not None and kubeconfig is None:
            raise click.UsageError("--context goes with --kubeconfig")
        if shards > 1 and disable_leader_election:
            raise click.UsageError(
                f"--shards {shards}: each shard is held through its Lease, so it needs "
                "leader election (leave out --disable-leader-election, or use --shards 1)"
            )
        if shards > 1 and decision_format == "both":
            raise click.UsageError(
                f"--shards {shards}: SIG-Multicluster PlacementDecisions are written by an "
                "unsharded controller only (use --decision-format ocm, or --shards 1)"
            )
        _run_kubernetes(
            kubeconfig,
            context,
            namespace,
            listen,
            (lease_duration, renew_deadline, retry_period),
            not disable_leader_election,
            resync,
            expectation_timeout,
            decision_format,
            cluster_profile_namespace,
            shards,
        )
        return
    misplaced = sorted(explicit.intersection(_KUBE_ONLY))
    if misplaced:
        raise click.UsageError(
            f"{', '.join(_flag(m) for m in misplaced)}: only with --kubeconfig or --in-cluster"
        )
    from clusterplace.controller.reconciler import synced_text
    from clusterplace.hub.directory import run_directory_controller

    if now is not None and not once:
        raise click.UsageError("--now is only for --once runs")
    # A cold start over many placements takes a while: --once shows how far it is (on a
    # terminal only); a watching controller's progress is its log.
    with progress("starting") if once else contextlib.nullcontext(None) as bar:
        summary = run_directory_controller(
            hub_dir,
            out_dir,
            once=once,
            now=now,
            recursive=recursive,
            resync=resync,
            expectation_timeout=expectation_timeout,
            lock_timeout=float("inf") if lock_timeout is None else lock_timeout,
            report=_log if not once else warn,
            progress=_phases(bar) if bar is not None else None,
            decision_format=decision_format,
        )
    if once:
        deliveries = (
            f"; {_count(summary.work_sets, 'ManifestWorkReplicaSet')}: {summary.work_writes} writes"
            if summary.work_sets
            else ""
        )
        slices = (
            f"; SIG PlacementDecisions: {summary.sig_writes} writes"
            if decision_format == "both"
            else ""
        )
        click.echo(
            f"{synced_text(summary.syncs, summary.placements)}: "
            f"{summary.writes} writes, {summary.events} events{deliveries}{slices}"
        )
        failed = False
        if summary.invalid_files:
            warn(f"{_count(summary.invalid_files, 'hub file')} could not be read (see above)")
            failed = True
        if summary.errors:
            warn(f"{_count(summary.errors, 'error')} syncing or writing (see above)")
            failed = True
        if failed:
            sys.exit(1)


def _phases(bar: Progress) -> Callable[[str, int, int | None], None]:
    """The directory hub's (phase, done, total) reports, drawn on ``bar``."""
    shown = [""]

    def told(what: str, done: int, total: int | None) -> None:
        if what != shown[0]:
            shown[0] = what
            bar.phase(what, total)
        if done:
            bar.update(done)

    return told


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"


def _flag(name: str) -> str:
    renamed = {
        "out_dir": "out",
        "lock_timeout": "lock-timeout",
        "lease_duration": "leader-election-lease-duration",
        "renew_deadline": "leader-election-renew-deadline",
        "retry_period": "leader-election-retry-period",
    }
    return "--" + renamed.get(name, name.replace("_", "-"))


def _run_kubernetes(
    kubeconfig: Path | None,
    context: str | None,
    namespace: str | None,
    listen: tuple[str, int],
    times: tuple[int, int, int],
    leader_election: bool,
    resync: float,
    expectation_timeout: float,
    decision_format: str,
    profile_namespace: str | None,
    shards: int = 1,
) -> None:
    try:
        from clusterplace.hub.kubernetes.election import ElectionTimes
        from clusterplace.hub.kubernetes.run import KubeOptions, run_kubernetes_controller
    except ImportError as err:
        raise click.ClickException(
            f"the Kubernetes hub needs the kube extra: pip install 'clusterplace[kube]' ({err})"
        ) from None
    options = KubeOptions(
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        listen=listen,
        times=ElectionTimes(*times),
        leader_election=leader_election,
        resync=resync,
        expectation_timeout=expectation_timeout,
        decision_format=decision_format,
        profile_namespace=profile_namespace,
        shards=shards,
    )
    code = run_kubernetes_controller(options, report=_log)
    if code:
        sys.exit(code)
