"""Where input comes from, kubectl style: files, directories (``-R``), and ``-`` for stdin."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clusterplace.errors import InputError, Location

__all__ = ["Source", "expand_sources"]

EXTENSIONS = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Source:
    """One input text and the name errors use for it."""

    name: str
    text: str

    @property
    def is_json(self) -> bool:
        return self.name.endswith(".json")


def _read(path: Path) -> Source:
    try:
        return Source(str(path), path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", Location(file=str(path))) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", Location(file=str(path))) from None


def expand_sources(
    names: Iterable[str], *, recursive: bool = False, stdin_text: str | None = None
) -> list[Source]:
    """Every input named by ``-f`` values (each may be comma-separated, as kubectl allows).

    Directories yield their ``.yaml``/``.yml``/``.json`` files in name order (with
    ``recursive``, those of subdirectories too); ``-`` is standard input, read once.
    """
    sources: list[Source] = []
    stdin_used = False
    for value in names:
        for name in (part for part in value.split(",") if part):
            if name == "-":
                if stdin_used:
                    raise InputError("standard input (-) can only be given once")
                stdin_used = True
                text = stdin_text if stdin_text is not None else sys.stdin.read()
                sources.append(Source("<stdin>", text))
                continue
            if "://" in name:
                raise InputError(
                    "URLs are not read: clusterplace never fetches from the network; "
                    "download the file and pass its path",
                    Location(file=name),
                )
            path = Path(name)
            if path.is_dir():
                pattern = "**/*" if recursive else "*"
                files = sorted(
                    p for p in path.glob(pattern) if p.is_file() and p.suffix in EXTENSIONS
                )
                sources.extend(_read(p) for p in files)
            elif path.exists():
                sources.append(_read(path))
            else:
                raise InputError(f'the path "{name}" does not exist')
    return sources
