"""``defkit.register``: where module files hand their definitions to the loader."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from clusterplace.api.metadata import quote
from clusterplace.defkit.definitions import Definition
from clusterplace.defkit.placement import ValidationError, validate_placement
from clusterplace.errors import ClusterplaceError
from clusterplace.labels.validation import dns1123_subdomain_errors

__all__ = ["DefinitionError", "collecting", "register"]


class DefinitionError(ClusterplaceError, ValueError):
    """A definition that cannot be registered (invalid placement, duplicate name)."""


_collectors: list[list[Definition]] = []


def name_problem(definition: Definition) -> str | None:
    """Why the definition's name cannot be an object name (None if it can): it becomes
    ``metadata.name`` and a file name, so it must be a DNS-1123 subdomain."""
    reasons = dns1123_subdomain_errors(definition.name)
    if not reasons:
        return None
    return f"{definition.KIND} name {quote(definition.name)} is invalid: {'; '.join(reasons)}"


def register(definition: Definition) -> Definition:
    """Validate the definition's name and placement (upstream's rules) and register it.

    Raises :class:`DefinitionError` for a name the API server would refuse, and with
    upstream's message for conflicting placement.
    """
    problem = name_problem(definition)
    if problem:
        raise DefinitionError(problem)
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
