"""Routing documents read from files: :func:`clusterplace.federation.route_and_divide`
of each document's object, with every problem (and warning) at its file, line, object
and field."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from clusterplace.codecs.loader import Document
from clusterplace.errors import InputError, InputErrors
from clusterplace.federation import (
    ANNOTATION,
    DivisionError,
    DivisionWarning,
    Routed,
    RoutingError,
    route_and_divide,
)
from clusterplace.federation.observed import ClusterState
from clusterplace.labels import Labels

__all__ = ["located_errors", "located_warnings", "route_documents"]


def located_errors(documents: Sequence[Document], err: RoutingError | DivisionError) -> InputErrors:
    """``err`` (whose problems name objects by their index in ``documents``) with each
    problem at its file, line, object and field."""
    if isinstance(err, RoutingError):
        annotation = ("metadata", "annotations", ANNOTATION)
        return InputErrors(
            [InputError(msg, documents[i].location(annotation)) for i, msg in err.problems]
        )
    return InputErrors(
        [InputError(msg, documents[i].location(path)) for i, path, msg in err.problems]
    )


def located_warnings(
    documents: Sequence[Document], warnings: Iterable[DivisionWarning]
) -> list[str]:
    """Each division warning as ``file:line: object: field: message``."""
    return [f"{documents[w.index].location(w.field)}: {w.message}" for w in warnings]


def route_documents(
    documents: Sequence[Document],
    labels: Mapping[str, Labels],
    observed: Mapping[str, ClusterState] | None,
    *,
    now: datetime,
    division: str,
) -> tuple[list[Routed], list[str]]:
    """:func:`~clusterplace.federation.route_and_divide` of ``documents``, its errors
    raised as :class:`~clusterplace.errors.InputErrors` at their files and lines, and
    its warnings located the same way."""
    try:
        routed, warnings = route_and_divide(
            [d.data for d in documents], labels, observed, now=now, division=division
        )
    except (RoutingError, DivisionError) as err:
        raise located_errors(documents, err) from None
    return routed, located_warnings(documents, warnings)
