"""The one error of writing output: what could not be written, and why."""

from __future__ import annotations

from pathlib import Path

from clusterplace.errors import ClusterplaceError

__all__ = ["OutputError", "TemplateError", "output_error"]


class OutputError(ClusterplaceError):
    """A file or folder could not be written (read-only, full, missing, too long...)."""


class TemplateError(ClusterplaceError, ValueError):
    """An ``-o`` template (jsonpath, custom-columns) that does not parse, or a template
    file that cannot be read; the message says where and why."""


def output_error(path: Path | str, err: OSError | ValueError) -> OutputError:
    """An :class:`OutputError` naming ``path`` and the system's reason."""
    reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    if isinstance(err, ValueError) and "null" in str(err):
        reason = "the path holds a NUL character"
    return OutputError(f"{path}: cannot write: {reason}")
