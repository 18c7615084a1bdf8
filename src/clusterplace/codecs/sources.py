"""Where input comes from, kubectl style: files, directories (``-R``), and ``-`` for stdin.

Every input is read the same way, whatever it is (a file, a pipe, a device): in
chunks, up to a total size limit, and decoded as strict UTF-8 with the line and column
of the first bad byte. Directories are listed without skipping anything silently: an
unreadable directory, a dangling or looping symlink, or a manifest that is not a
regular file is an error.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from clusterplace.errors import InputError, Location

__all__ = [
    "MAX_INPUT_BYTES",
    "Source",
    "expand_sources",
    "max_input_bytes",
    "read_regular_file",
    "read_source",
]

EXTENSIONS = (".yaml", ".yml", ".json")
MAX_INPUT_BYTES = 256 * 1024 * 1024  # all inputs of one command together
_LIMIT_VARIABLE = "CLUSTERPLACE_MAX_INPUT_BYTES"
_CHUNK = 1 << 20


def max_input_bytes() -> int:
    """The input size limit: :data:`MAX_INPUT_BYTES`, or ``$CLUSTERPLACE_MAX_INPUT_BYTES``."""
    value = os.environ.get(_LIMIT_VARIABLE)
    if value is None:
        return MAX_INPUT_BYTES
    if not value.isdigit() or int(value) <= 0:
        raise InputError(f"{_LIMIT_VARIABLE}={value!r} must be a positive number of bytes")
    return int(value)


@dataclass(frozen=True)
class Source:
    """One input text and the name errors use for it."""

    name: str
    text: str

    @property
    def is_json(self) -> bool:
        """JSON by its name, or, like kubectl, by a first non-blank character ``{``."""
        return self.name.endswith(".json") or self.text.lstrip(" \t\r\n").startswith("{")


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


class _Budget:
    """What is left of the size limit for this command's inputs (or, given ``limit``,
    for one file of its own kind, such as a template)."""

    def __init__(self, limit: int | None = None) -> None:
        self.own = limit is not None
        self.limit = max_input_bytes() if limit is None else limit
        self.left = self.limit

    def take(self, size: int, name: str) -> None:
        self.left -= size
        if self.left < 0:
            raise InputError(
                f"file is larger than the limit of {self.limit} bytes for it"
                if self.own
                else f"input is larger than the limit of {self.limit} bytes for all inputs "
                f"together (set {_LIMIT_VARIABLE} to change it)",
                Location(file=name),
            )


def read_source(stream: BinaryIO, name: str, budget: _Budget | None = None) -> Source:
    """All of ``stream`` as a :class:`Source`, within the size limit, strict UTF-8,
    without NUL characters. Stops at the first bad chunk: ``/dev/zero`` or
    ``/dev/urandom`` are refused at once, not after filling memory."""
    budget = budget or _Budget()
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    parts: list[str] = []
    done = 0  # characters decoded so far
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror}", Location(file=name)) from None
        budget.take(len(chunk), name)
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as err:
            so_far = "".join(parts) + err.object[: err.start].decode("utf-8", "replace")
            line, column = _position(so_far, len(so_far))
            raise InputError(
                f"column {column}: not UTF-8 text (byte 0x{err.object[err.start]:02x}); "
                "manifests must be UTF-8",
                Location(file=name, line=line),
            ) from None
        nul = text.find("\x00")
        if nul >= 0:
            line, column = _position("".join(parts) + text, done + nul)
            raise InputError(
                f"column {column}: a NUL character; manifests are text, is this a binary file?",
                Location(file=name, line=line),
            )
        parts.append(text)
        done += len(text)
        if not chunk:
            return Source(name, "".join(parts))


def _read_file(path: Path, budget: _Budget) -> Source:
    name = str(path)
    try:
        with path.open("rb") as handle:
            return read_source(handle, name, budget)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", Location(file=name)) from None


def read_regular_file(path: Path, max_bytes: int | None = None) -> Source:
    """One named file that must be a regular file (symlinks followed), such as a module's
    ``module.yaml`` or a definition file, read as :func:`read_source` reads any input.
    A directory, pipe or device is refused before it is opened: reading a FIFO would
    block, and a device such as ``/dev/zero`` never ends. ``max_bytes``: a size limit
    of this file's own instead of the one for all inputs."""
    name = str(path)
    try:
        info = path.stat()
    except OSError as err:
        if path.is_symlink():
            raise InputError(
                f"dangling symlink (to {str(path.readlink())!r})", Location(file=name)
            ) from None
        raise InputError(f"cannot read: {err.strerror}", Location(file=name)) from None
    if not stat.S_ISREG(info.st_mode):
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "a pipe, socket or device"
        raise InputError(f"is {what}, not a regular file", Location(file=name))
    return _read_file(path, _Budget(max_bytes))


def _read_stdin(budget: _Budget, stdin_text: str | None) -> Source:
    if stdin_text is not None:
        budget.take(len(stdin_text.encode("utf-8", "surrogatepass")), "<stdin>")
        return Source("<stdin>", stdin_text)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None or stream.closed:
        raise InputError("standard input (-) is closed: there is nothing to read")
    return read_source(stream, "<stdin>", budget)


def _listing(directory: Path, recursive: bool, seen: set[Path]) -> list[Path]:
    """The manifest files under ``directory`` in name order; errors for anything that
    would otherwise be skipped silently."""
    real = directory.resolve()
    if real in seen:
        raise InputError("directory symlink loop", Location(file=str(directory)))
    seen = seen | {real}
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as err:
        raise InputError(
            f"cannot read directory: {err.strerror}", Location(file=str(directory))
        ) from None
    files: list[Path] = []
    for entry in entries:
        path = Path(entry.path)
        manifest = path.suffix in EXTENSIONS
        try:
            info = path.stat()  # follows symlinks
        except OSError as err:
            if entry.is_symlink() and (manifest or recursive):
                what = "symlink loop" if err.errno == errno.ELOOP else "dangling symlink"
                raise InputError(
                    f"{what} (to {str(path.readlink())!r})", Location(file=str(path))
                ) from None
            if manifest:
                raise InputError(f"cannot read: {err.strerror}", Location(file=str(path))) from None
            continue
        if stat.S_ISDIR(info.st_mode):
            if recursive:
                files.extend(_listing(path, recursive, seen))
        elif manifest:
            if not stat.S_ISREG(info.st_mode):
                raise InputError(
                    "is not a regular file (a pipe, socket or device); pass it with -f "
                    "itself if it should be read",
                    Location(file=str(path)),
                )
            files.append(path)
    return files


def expand_sources(
    names: Iterable[str], *, recursive: bool = False, stdin_text: str | None = None
) -> list[Source]:
    """Every input named by ``-f`` values (each may be comma-separated, as kubectl allows).

    Directories yield their ``.yaml``/``.yml``/``.json`` files in name order (with
    ``recursive``, those of subdirectories too); ``-`` is standard input, read once.
    All inputs together may hold at most :func:`max_input_bytes` bytes.
    """
    budget = _Budget()
    sources: list[Source] = []
    stdin_used = False
    for value in names:
        for name in (part for part in value.split(",") if part):
            if name == "-":
                if stdin_used:
                    raise InputError("standard input (-) can only be given once")
                stdin_used = True
                sources.append(_read_stdin(budget, stdin_text))
                continue
            if "://" in name:
                raise InputError(
                    "URLs are not read: clusterplace never fetches from the network; "
                    "download the file and pass its path",
                    Location(file=name),
                )
            path = Path(name)
            if path.is_dir():
                sources.extend(_read_file(p, budget) for p in _listing(path, recursive, set()))
            elif path.exists():
                sources.append(_read_file(path, budget))
            elif path.is_symlink():
                target = str(path.readlink())
                raise InputError(f"dangling symlink (to {target!r})", Location(file=name))
            else:
                raise InputError(f'the path "{name}" does not exist')
    return sources
