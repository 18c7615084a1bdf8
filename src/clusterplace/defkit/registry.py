"""``defkit.register``: where module files hand their definitions to the loader."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from clusterplace.defkit.definitions import Definition
from clusterplace.errors import ClusterplaceError
from clusterplace.placement import ValidationError, validate_placement

__all__ = ["DefinitionError", "collecting", "register"]


class DefinitionError(ClusterplaceError, ValueError):
    """A definition that cannot be registered (invalid placement, duplicate name)."""


_collectors: list[list[Definition]] = []


def register(definition: Definition) -> Definition:
    """Validate the definition's placement (upstream's rules) and register it.

    Raises :class:`DefinitionError` with upstream's message for conflicting placement.
    """
    try:
        validate_placement(definition.placement)
    except ValidationError as err:
        raise DefinitionError(
            f"defkit: invalid placement for definition '{definition.name}': {err.message}"
        ) from None
    if _collectors:
        _collectors[-1].append(definition)
    return definition


@contextlib.contextmanager
def collecting() -> Iterator[list[Definition]]:
    """Collect the definitions registered inside the block, in registration order."""
    bucket: list[Definition] = []
    _collectors.append(bucket)
    try:
        yield bucket
    finally:
        _collectors.pop()
