"""A ``clusterplace controller`` process whose event loop a test holds, to show what a
stall of the reconcile loop (a cold listing decoding a whole hub, a long sync) does and
does not cost. The process is the usual CLI, started by :meth:`LoopHold.launcher`
instead of the installed script, with two places patched in that process only:

- ``listing``: after a cold listing (``HubSource.initial_objects``) has read the hub;
- ``write``: before a write of the controller's (a request with the fence set: not the
  Leases' own), before the fence is checked.

Each holds the loop, once per :meth:`LoopHold.arm`, with a synchronous wait (nothing
else of that loop runs meanwhile) until the test calls :meth:`LoopHold.release`.
Files in ``folder`` carry the signals, so the test and the process share nothing else.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

__all__ = ["LoopHold", "main"]

PLACES = ("listing", "write")
LONGEST_S = 900.0  # a hold nobody releases (the test died) ends by itself


class LoopHold:
    """The test's side: arm a place, see when the process began holding it, release."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def launcher(self) -> list[str]:
        """The command that runs ``clusterplace`` (its arguments follow) with the holds."""
        code = (
            f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from tests.support.held_loop import main; main({str(self.folder)!r})"
        )
        return [sys.executable, "-c", code]

    def arm(self, place: str) -> None:
        """The next time the process reaches ``place``, it holds its loop there."""
        assert place in PLACES, place
        (self.folder / f"{place}.release").unlink(missing_ok=True)
        (self.folder / f"{place}.armed").touch()

    def held(self, place: str) -> float | None:
        """When (``time.time()``) the process began holding ``place``; None: not yet."""
        marker = self.folder / f"{place}.held"
        text = marker.read_text() if marker.exists() else ""
        return float(text) if text.strip() else None

    def release(self, place: str) -> None:
        (self.folder / f"{place}.release").touch()

    def release_all(self) -> None:
        """Every place released, armed or not (before stopping the process)."""
        for place in PLACES:
            (self.folder / f"{place}.armed").unlink(missing_ok=True)
            self.release(place)


def _hold(folder: Path, place: str) -> None:
    """In the controller's process: hold the loop here if ``place`` is armed."""
    armed = folder / f"{place}.armed"
    if not armed.exists():
        return
    armed.unlink()
    release = folder / f"{place}.release"
    marker = folder / f"{place}.held"
    marker.write_text(f"{time.time()!r}")
    ends = time.monotonic() + LONGEST_S
    while not release.exists() and time.monotonic() < ends:
        time.sleep(0.05)  # synchronous: the event loop does nothing else meanwhile


def main(folder: str) -> None:
    """Patch the two places, then run the CLI with this process's arguments."""
    from clusterplace.cli.main import main as cli
    from clusterplace.hub.kubernetes.api import HubApi
    from clusterplace.hub.kubernetes.source import HubSource

    where = Path(folder)
    listing = HubSource.initial_objects
    request = HubApi._request

    async def initial_objects(self: HubSource) -> Any:
        objects = await listing(self)
        _hold(where, "listing")
        return objects

    async def _request(self: HubApi, *args: Any, **kwargs: Any) -> Any:
        method = args[4] if len(args) > 4 else kwargs.get("method")
        if method != "GET" and self.fence is not None:
            _hold(where, "write")
        return await request(self, *args, **kwargs)

    HubSource.initial_objects = initial_objects  # type: ignore[method-assign]
    HubApi._request = _request  # type: ignore[method-assign]
    sys.argv[0] = "clusterplace"
    cli()
