"""The one exception hierarchy every user-facing error belongs to."""

from __future__ import annotations

from dataclasses import dataclass


class ClusterplaceError(Exception):
    """Base class of every error clusterplace reports to a user."""


@dataclass(frozen=True)
class Location:
    """Where in the user's input something is: file, line, object and field path.

    Every part is optional; ``str()`` renders what is known, most specific last,
    e.g. ``fleet.yaml:12: ManagedCluster/prod-east-1: metadata.labels.env``.
    """

    file: str | None = None
    line: int | None = None
    obj: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            parts.append(f"{self.file}:{self.line}" if self.line is not None else self.file)
        if self.obj:
            parts.append(self.obj)
        if self.field:
            parts.append(self.field)
        return ": ".join(parts)


class InputError(ClusterplaceError):
    """Bad user input: says what is wrong, where, and what would be valid."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        self.message = message
        self.location = location or Location()
        where = str(self.location)
        super().__init__(f"{where}: {message}" if where else message)


class UnknownPlacementError(InputError, KeyError):
    """No placement of that namespace and name (also a ``KeyError``: a lookup that
    found nothing)."""

    def __init__(self, namespace: str, name: str) -> None:
        self.namespace = namespace
        self.name = name
        super().__init__(f'placement "{name}" not found in namespace "{namespace}"')

    def __str__(self) -> str:  # the message, not KeyError's quoted repr of it
        return InputError.__str__(self)


MAX_REPORTED = 20  # problems listed in one message; the rest are counted


class InputErrors(InputError):
    """Several input problems found in one pass; ``str()`` lists them one per line (the
    first :data:`MAX_REPORTED`, then how many more), while ``problems`` keeps them all."""

    def __init__(self, problems: list[InputError]) -> None:
        self.problems = list(problems)
        first = self.problems[0]
        super().__init__(first.message, first.location)
        self.args = (str(self),)

    def __str__(self) -> str:
        shown = [str(p) for p in self.problems[:MAX_REPORTED]]
        hidden = len(self.problems) - len(shown)
        if hidden:
            shown.append(f"... and {hidden} more problem{'s' if hidden > 1 else ''}")
        return "\n".join(shown)


QUOTE_LIMIT = 80  # characters of a user's value an error message quotes


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out: an error
    message must stay readable whatever the input holds."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"
