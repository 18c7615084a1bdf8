"""Progress for long work, on a terminal only: a transient bar on stderr.

Commands that can run for more than a few seconds (``plan-module`` over a large fleet,
``controller --hub DIR --once``, and ``route`` over thousands of clusters when it adopts
this) show what they are doing, how far they are and how long it has taken::

    with progress("reading the fleet") as bar:      # a spinner: how much is not known
        fleet = load(...)
        bar.phase("planning clusters", total=len(clusters))
        for name in clusters:
            ...
            bar.advance()

Nothing is drawn unless the stream (stderr by default) is a terminal that is not
``TERM=dumb``: never in a pipe, a file, CI's log or a test's captured output. The bar
appears only once the work has taken :data:`DELAY` seconds (quick runs never flash one)
and is erased when the work ends. Lines printed while it shows (warnings on stderr, rows
on stdout when stdout is the terminal too) appear above it; a stdout that is a pipe or a
file gets exactly what the command prints, with or without a bar. The bar is drawn by
``rich``, imported only when one is shown.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

__all__ = ["DELAY", "Progress", "progress", "shows_progress"]

DELAY = 0.5  # seconds of work before a bar is shown


class Progress(Protocol):
    """What a command tells the bar (every call is cheap when nothing is shown)."""

    def phase(self, description: str, total: int | None = None) -> None:
        """A new step of the work: ``description``, none of ``total`` done yet (None:
        how much is not known). The time shown keeps counting from the start."""

    def update(self, completed: int) -> None:
        """``completed`` of this phase's total are done."""

    def advance(self, step: int = 1) -> None:
        """``step`` more are done."""


class _Quiet:
    """No terminal: nothing is drawn."""

    def phase(self, description: str, total: int | None = None) -> None:
        return None

    def update(self, completed: int) -> None:
        return None

    def advance(self, step: int = 1) -> None:
        return None


def shows_progress(stream: TextIO) -> bool:
    """Whether a bar would be drawn on ``stream``: a terminal, and not a dumb one."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    return terminal and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


@contextlib.contextmanager
def progress(
    description: str,
    total: int | None = None,
    *,
    stream: TextIO | None = None,
    delay: float = DELAY,
) -> Iterator[Progress]:
    """A bar for the work of the ``with`` block: ``description``, ``completed`` of
    ``total`` (None: not known, a spinner) and the time taken, on ``stream`` (default:
    stderr as it is when called) if that is a terminal, after ``delay`` seconds."""
    out = sys.stderr if stream is None else stream
    if not shows_progress(out):
        yield _Quiet()
        return
    bar = _Bar(out, description, total, delay)
    try:
        yield bar
    finally:
        bar.close()


class _Bar:
    """rich's Progress with one task, started by a timer after the delay."""

    def __init__(self, stream: TextIO, description: str, total: int | None, delay: float):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RichProgress

        self._progress: RichProgress = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(file=stream, force_terminal=True),
            transient=True,
            # Lines printed while the bar shows appear above it. stdout only when it is a
            # terminal too: a pipe or a file gets exactly what the command prints.
            redirect_stdout=shows_progress(sys.stdout),
            redirect_stderr=True,
        )
        self._task: TaskID = self._progress.add_task(description, total=total)
        self._lock = threading.Lock()
        self._shown = self._closed = False
        self._timer: threading.Timer | None = None
        if delay > 0:
            self._timer = threading.Timer(delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        else:
            self._show()

    def _show(self) -> None:
        with self._lock:
            if not self._closed and not self._shown:
                self._progress.start()
                self._shown = True

    def phase(self, description: str, total: int | None = None) -> None:
        for task in self._progress.tasks:
            if task.id == self._task:
                task.total = total  # rich's update() cannot make a total unknown again
        self._progress.update(self._task, description=description, completed=0)

    def update(self, completed: int) -> None:
        self._progress.update(self._task, completed=completed)

    def advance(self, step: int = 1) -> None:
        self._progress.advance(self._task, step)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._shown:
                self._progress.stop()
