"""Paths built from names in the input, kept inside the folder they belong to.

Object names, definition names, prefixes and hook entries all end up in file paths.
Validation of the names themselves happens where they are read; this is the second,
independent line: whatever a name contains, the path it makes is resolved (symlinks
followed) and refused unless it stays inside its base folder.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from clusterplace.errors import InputError, Location

__all__ = [
    "PathEscapeError",
    "SymlinkLoopError",
    "is_inside",
    "real_path",
    "resolve",
    "resolve_inside",
]


class PathEscapeError(InputError):
    """A path made from input would leave its base folder."""


class SymlinkLoopError(InputError):
    """A path that cannot be resolved: its symlinks lead round in a loop."""


def resolve(path: Path, where: Location | None = None) -> Path:
    """``path.resolve()``, with a symlink loop anywhere along it an error naming it
    (Python raises RuntimeError or OSError ELOOP, depending on the version)."""
    try:
        return path.resolve()
    except RuntimeError:
        pass
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise
    raise SymlinkLoopError(
        f"{path}: cannot be resolved: its symlinks form a loop (a link that leads back to "
        "itself); remove or replace the link",
        where,
    )


def real_path(path: Path) -> Path:
    """``path`` absolute, with its symlinks resolved as far as they go; never raises (a
    symlink loop, which makes :func:`resolve` an error, leaves the path as it is)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        return path.absolute()


def resolve_inside(
    base: Path, *parts: str, what: str = "path", where: Location | None = None
) -> Path:
    """``base/parts...`` resolved, guaranteed to lie strictly inside ``base`` (resolved too).

    Each part must be a relative path without NUL characters; ``..``, absolute paths,
    and symlinks (existing ones, anywhere along the path) that lead out are refused with
    a :class:`PathEscapeError` naming ``what`` and the offending text; a symlink loop
    along the path is a :class:`SymlinkLoopError` naming the path.
    """
    root = resolve(base, where)
    text = "/".join(parts)
    for part in parts:
        if not part or "\x00" in part:
            raise PathEscapeError(f"{what} {part!r} is not a usable file name", where)
        if Path(part).is_absolute() or part.startswith(("/", "\\")):
            raise PathEscapeError(
                f"{what} {text!r} is an absolute path; it must be relative to {base}", where
            )
    target = resolve(root.joinpath(*parts), where)
    if target == root or not target.is_relative_to(root):
        raise PathEscapeError(f"{what} {text!r} leads outside {base}", where)
    return target


def is_inside(base: Path, *parts: str) -> bool:
    """Whether :func:`resolve_inside` accepts ``parts`` under ``base``."""
    try:
        resolve_inside(base, *parts)
    except (InputError, OSError):
        return False
    return True
