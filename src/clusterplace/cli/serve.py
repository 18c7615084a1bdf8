"""``clusterplace serve``: the fleet explorer, a local read-only web app."""

from __future__ import annotations

import errno
import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplace.cli._common import (
    load_hub,
    now_option_for,
    parse_time_option,
    warn,
    warn_unknown,
)
from clusterplace.cli._progress import progress
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.errors import InputError, shorten
from clusterplace.watch import tree_signatures

if TYPE_CHECKING:
    from clusterplace.web.state import FleetSource

__all__ = ["serve"]

# What the serve extra installs: the explorer is loaded only when serve runs, so the
# rest of the CLI (and its --help) works without them.
SERVE_EXTRA = ("fastapi", "starlette", "uvicorn", "jinja2")


def require_serve_extra() -> None:
    """Import the explorer's dependencies, or say how to install them."""
    try:
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in SERVE_EXTRA:
            raise
        raise click.ClickException(
            "the fleet explorer needs the serve extra: pip install 'clusterplace[serve]' "
            f"(no module named {err.name!r})"
        ) from None


@click.command("serve")
@click.option(
    "-f", "--filename", "filenames", multiple=True, metavar="FILE|DIR", help="Fleet files."
)
@click.option("-R", "--recursive", is_flag=True, help="Also read subdirectories of -f folders.")
@click.option(
    "--hub",
    metavar="DIR",
    help="A directory hub run by 'clusterplace controller': follow its live state.",
)
@click.option(
    "--out",
    metavar="OUT",
    help="With --hub: where its controller writes (its --out) [default: DIR/.clusterplace].",
)
@click.option(
    "--kubeconfig",
    metavar="PATH",
    type=click.Path(path_type=Path),
    help="A Kubernetes hub (OCM): list its objects, again every 5 s while pages are open.",
)
@click.option("--context", metavar="NAME", help="The kubeconfig context (with --kubeconfig).")
@click.option(
    "--module",
    "module_dir",
    metavar="DIR",
    help="A definition module: show its plan matrix.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8080,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on.",
)
@now_option_for(
    "The time to schedule and explain rollouts at (default: now; rollouts then follow the clock).",
    callback=parse_time_option,
)
def serve(
    filenames: tuple[str, ...],
    recursive: bool,
    hub: str | None,
    out: str | None,
    kubeconfig: Path | None,
    context: str | None,
    module_dir: str | None,
    host: str,
    port: int,
    now: datetime | None,
) -> None:
    """Open the fleet explorer: clusters, placements (every cluster's fate, why not),
    a score heatmap, what-if, the hub's live events and a module's plan.

    Read-only: nothing is written to the hub or to disk; what-if edits stay in the
    browser tab. Listens on 127.0.0.1 unless --host says otherwise.
    """
    require_serve_extra()
    import uvicorn

    from clusterplace.defkit.module import load_module
    from clusterplace.web import Explorer, create_app, served_hosts

    if kubeconfig is not None:
        if filenames or hub is not None or out is not None:
            raise click.UsageError("give one of -f, --hub and --kubeconfig")
        source = kube_source(kubeconfig, context)
    elif context is not None:
        raise click.UsageError("--context goes with --kubeconfig")
    else:
        source = fleet_source(filenames, recursive, hub, out)
    clock = None if now is not None else (lambda: datetime.now(UTC))
    # A large fleet takes seconds to read and schedule: on a terminal, a spinner.
    with progress("loading the module") as bar:
        module = load_module(module_dir) if module_dir is not None else None
        bar.phase("reading and scheduling the fleet")
        explorer = Explorer(source, now or datetime.now(UTC), module, report=warn, clock=clock)
    warn_unknown(explorer.run.fleet.unknown)
    sock = listen(host, port)  # before saying where: a port in use is an error, exit 1
    bound, port = sock.getsockname()[:2]
    app = create_app(explorer, hosts=served_hosts(host, port, bound))
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"clusterplace explorer on http://{shown}:{port}/ (Ctrl+C stops it)", err=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    with sock:
        server.run(sockets=[sock])


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host`` (its first address) and ``port`` (0: any free
    one); an address that does not resolve or cannot be bound is an input error."""
    try:
        found = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_ADDRCONFIG
        )
    except (socket.gaierror, UnicodeError) as err:
        reason = err.strerror if isinstance(err, socket.gaierror) else str(err)
        raise InputError(
            f"--host {shorten(host)!r}: cannot resolve the address: {reason}; give an IP "
            "address or a name this machine resolves (default 127.0.0.1)"
        ) from None
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        sock.close()
        advice = (
            "; another program listens there: give another --port (0: any free port)"
            if err.errno == errno.EADDRINUSE
            else ""
        )
        raise InputError(
            f"cannot listen on {shorten(host)}:{port}: {err.strerror or err}{advice}"
        ) from None
    return sock


def fleet_source(
    filenames: tuple[str, ...], recursive: bool, hub: str | None, out: str | None = None
) -> FleetSource:
    """Where the explorer reads the fleet: ``-f`` files once, or a hub followed live
    (its controller's output in ``out``, default ``HUB/.clusterplace``)."""
    from clusterplace.hub.directory.layout import DEFAULT_OUT, OutLayout
    from clusterplace.web.events import read_event_log
    from clusterplace.web.state import FleetSource

    if out is not None and hub is None:
        raise click.UsageError("--out goes with --hub")
    if hub is not None and filenames:
        raise click.UsageError("give -f or --hub, not both")
    if hub is None:
        if not filenames:
            raise click.UsageError("give -f FILE|DIR (or --hub DIR)")
        sources = list(filenames)
        return FleetSource(
            load=lambda: load_fleet(expand_sources(sources, recursive=recursive)),
            label="-f " + " ".join(sources),
        )
    root = Path(hub)
    if not root.is_dir():
        raise InputError("the hub must be a folder of manifests")
    out_dir = root / DEFAULT_OUT if out is None else Path(out)
    events_path = OutLayout(out_dir).events
    return FleetSource(
        load=lambda: load_hub(hub, recursive, out),
        version=lambda: tree_signatures(root, out_dir),
        events=lambda offset: read_event_log(events_path, offset),
        label=f"--hub {hub}" + (f" --out {out}" if out is not None else ""),
        hub=True,
    )


KUBE_RELIST_S = 5.0  # how often the explorer lists a Kubernetes hub again, at most
KUBE_EVENTS_S = 2.0  # how often the Live page's events are listed again, at most


def kube_source(kubeconfig: Path, context: str | None) -> FleetSource:
    """A Kubernetes hub, listed when the explorer starts and again when a page asks
    after :data:`KUBE_RELIST_S`; its placement events listed for the Live page after
    :data:`KUBE_EVENTS_S` (a read-only tool: list, no watch, no lease)."""
    from clusterplace.api import Fleet
    from clusterplace.hub.kubernetes.listing import list_hub_objects, list_placement_events
    from clusterplace.hub.kubernetes.run import KubeOptions
    from clusterplace.web.events import EventFeed
    from clusterplace.web.state import FleetSource

    options = KubeOptions(kubeconfig=kubeconfig, context=context)
    feed = EventFeed(lambda: list_placement_events(options), every=KUBE_EVENTS_S)
    return FleetSource(
        load=lambda: Fleet.of(list_hub_objects(options, warn)),
        version=lambda: int(time.monotonic() // KUBE_RELIST_S),
        events=feed.after,
        label=f"--kubeconfig {kubeconfig}" + (f" --context {context}" if context else ""),
        hub=True,
    )
