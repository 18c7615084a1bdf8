"""``-w/--watch`` for ``get`` and ``describe``, as kubectl's: print once, then print what
changes until stopped (Ctrl-C or SIGTERM, exit 0).

What is watched is what the command read: the ``-f`` files and folders, a directory hub
(``--hub DIR`` and its controller's ``OUT``), each looked at every :data:`POLL_S`
seconds (only the files' stat signatures, :func:`clusterplace.watch.tree_signatures`:
nothing is read until one changes), or a Kubernetes hub (``--kubeconfig``), listed
again every :data:`RELIST_S` seconds. A table (and ``-o name``) prints, after the first
time, only the rows that are new or changed, without the header; other formats print
the whole output again."""

from __future__ import annotations

import contextlib
import io
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import click

from clusterplace.cli._common import no_headers, warn
from clusterplace.errors import ClusterplaceError
from clusterplace.watch import tree_signatures

__all__ = ["POLL_S", "RELIST_S", "follow", "watch_option"]

F = TypeVar("F", bound=Callable[..., Any])

POLL_S = 0.5  # how often files and hub folders are looked at
RELIST_S = 2.0  # how often a Kubernetes hub is listed again

# Formats printed as rows: after the first print, only new or changed rows.
_ROW_FORMATS = ("table", "wide", "name")


def watch_option(func: F) -> F:
    return click.option(
        "-w",
        "--watch",
        is_flag=True,
        help="After printing, keep watching the input (-f files, --hub, --kubeconfig) and "
        "print what changes, until stopped (Ctrl-C, SIGTERM).",
    )(func)


def _version_source(filenames: Sequence[str]) -> tuple[Callable[[], Hashable], float]:
    """What tells that the input changed, and how often to ask."""
    meta = click.get_current_context().meta
    if meta.get("clusterplace.kubeconfig") is not None:
        return (lambda: time.monotonic() // RELIST_S), RELIST_S
    hub = meta.get("clusterplace.hub")
    if hub is not None:
        out = meta.get("clusterplace.hub.out")
        roots = [Path(hub), Path(hub) / ".clusterplace" if out is None else Path(out)]
        return (lambda: tree_signatures(*roots)), POLL_S
    names = [n for value in filenames for n in value.split(",") if n]
    if "-" in names:
        raise click.UsageError("-w/--watch cannot watch standard input (-f -)")
    paths = [Path(n) for n in names]
    return (lambda: tree_signatures(*paths)), POLL_S


class _Stopped(Exception):
    """SIGTERM: stop watching."""


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise _Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _captured(render: Callable[[], None], *, quiet: bool = True) -> str:
    """What ``render`` prints on standard output; ``quiet``: its stderr (``No resources
    found``, warnings) is dropped, as it was said the first time."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            if quiet:
                with contextlib.redirect_stderr(err):
                    render()
            else:
                render()
    except BaseException:
        if not quiet:  # what was printed before the error is shown, as without -w
            click.echo(out.getvalue(), nl=False)
        raise
    return out.getvalue()


def _rows(text: str, *, header: bool) -> tuple[str | None, list[str]]:
    lines = text.splitlines()
    if header and lines:
        return lines[0], lines[1:]
    return None, lines


def follow(
    render: Callable[[], None],
    *,
    watch: bool,
    filenames: Sequence[str],
    output: str,
    rows: bool = True,
) -> None:
    """Run ``render`` (a command's printing); with ``watch``, keep running it as the
    input changes and print what changed. ``rows``: the command prints a list (a
    table's rows are compared); else the whole text is printed again when it changes."""
    if not watch:
        render()
        return
    version_of, every = _version_source(filenames)
    by_rows = rows and (output in _ROW_FORMATS or output.startswith("custom-columns="))
    header_expected = output != "name" and not no_headers()
    with _stop_on_sigterm():
        try:
            version = version_of()
            last = _captured(render, quiet=False)  # as without -w: its errors are the command's
            click.echo(last, nl=False)
            _flush()
            header_shown, shown = _rows(last, header=by_rows and header_expected)
            seen = {_key(row) for row in shown}
            while True:
                time.sleep(every)
                now = version_of()
                if now == version:
                    continue
                version = now
                try:
                    text = _captured(render)
                except ClusterplaceError as err:
                    warn(f"watch: {err}; the next change is read again")
                    continue
                if text == last:
                    continue
                last = text
                if not by_rows:
                    click.echo(text, nl=False)
                    _flush()
                    continue
                header, current = _rows(text, header=header_expected)
                new = [row for row in current if _key(row) not in seen]
                if new and header is not None and header_shown is None:
                    click.echo(header)
                    header_shown = header
                for row in new:
                    click.echo(row)
                seen = {_key(row) for row in current}
                _flush()
        except (KeyboardInterrupt, _Stopped):
            return


def _key(row: str) -> tuple[str, ...]:
    """A row without its padding: column widths change as rows come and go."""
    return tuple(row.split())


def _flush() -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
