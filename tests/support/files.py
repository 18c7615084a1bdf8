"""Editing the files a live controller watches, the way an atomic save does.

An in-place write (``Path.write_text``) truncates the file, then writes it. A watcher
waits a second before it believes a file emptied (docs/controller.md, "Edits"), but a
test process paused longer than that between the two steps (a full garbage collection
late in a long test session can) shows the controller an empty file: every object in
it deleted, and an invalid version after it keeps the empty one as the last good.
Tests that are not about in-place writes edit through :func:`replace_text`, so the
controller sees the old text or the new, never a moment in between.
"""

from __future__ import annotations

import uuid
from pathlib import Path

__all__ = ["replace_text"]


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary beside ``path`` (a dot-file ending in ``.tmp``,
    which the controllers skip), then rename it over ``path``."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    temporary.write_text(text)
    temporary.replace(path)
