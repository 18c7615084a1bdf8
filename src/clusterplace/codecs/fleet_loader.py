"""A fleet from input texts: read, validate, index."""

from __future__ import annotations

from collections.abc import Sequence

from clusterplace.api.fleet import Fleet
from clusterplace.codecs.loader import LoadError, decode, read_documents
from clusterplace.codecs.sources import Source
from clusterplace.errors import InputError

__all__ = ["load_fleet"]


def load_fleet(sources: Sequence[Source]) -> Fleet:
    """Read, validate and index ``sources``; an object defined twice is an error naming
    both places. Raises :class:`LoadError` listing every problem."""
    loaded = decode(read_documents(sources))
    fleet = Fleet(unknown=loaded.unknown)
    problems: list[InputError] = []
    for obj in loaded.objects:
        earlier = fleet.get(obj)
        if earlier is not None:
            here = loaded.document_of(obj)
            there = loaded.document_of(earlier)
            assert here is not None and there is not None
            problems.append(
                InputError(
                    f"{obj.ref} is defined twice; the first definition is at {there.location()}",
                    here.location(),
                )
            )
            continue
        fleet.add(obj)
    if problems:
        raise LoadError(problems)
    return fleet
