"""What the explorer serves: a fleet (files or a directory hub), scheduled once and kept
current, the module plan, and the hub's new events. Read-only: nothing here writes."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from clusterplace.api import Fleet
from clusterplace.defkit.module import Module
from clusterplace.scheduling import IncrementalSchedule
from clusterplace.scheduling.explain import ClusterExplanation, explain

__all__ = ["Explorer", "FleetSource"]


@dataclass(frozen=True)
class FleetSource:
    """Where the fleet comes from: ``load`` reads it; ``version`` changes when it may
    have changed (a directory hub's files), so the explorer reads it again."""

    load: Callable[[], Fleet]
    version: Callable[[], object] = lambda: None
    events: Path | None = None  # a directory hub's OUT/events.jsonl
    label: str = ""


class Explorer:
    """The scheduled fleet behind every page. One lock: what-if and why-not apply edits
    to the shared run and undo them, so requests take turns."""

    def __init__(self, source: FleetSource, now: datetime, module: Module | None = None):
        self.source = source
        self.now = now
        self.module = module
        self.lock = threading.RLock()
        self._version: object = source.version()
        self.run = IncrementalSchedule(source.load(), now=now)
        self._explained: dict[tuple[str, str], list[ClusterExplanation]] = {}

    def refresh(self) -> bool:
        """Read the source again if it changed (a live hub); True when it did."""
        version = self.source.version()
        if version == self._version:
            return False
        with self.lock:
            self.run = IncrementalSchedule(self.source.load(), now=self.now)
            self._explained.clear()
            self._version = version
        return True

    def explained(self, namespace: str, name: str) -> list[ClusterExplanation] | None:
        """``explain -o wide`` for one placement (kept until the fleet changes)."""
        key = (namespace, name)
        found = self._explained.get(key)
        if found is None:
            result = self.run.result.get(namespace, name)
            if result is None:
                return None
            found = self._explained[key] = explain(self.run.result.snapshot, result)
        return found

    def events_after(self, offset: int) -> tuple[list[dict[str, Any]], int]:
        """The hub's events recorded after byte ``offset`` of its log, and the new offset
        (only whole lines; the controller appends them)."""
        path = self.source.events
        if path is None or not path.is_file():
            return [], 0
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            start = offset if 0 <= offset <= size else 0
            handle.seek(start)
            data = handle.read(size - start)
        whole = data[: data.rfind(b"\n") + 1]
        events = []
        for line in whole.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue  # a torn line is skipped, never fatal
        return events, start + len(whole)
