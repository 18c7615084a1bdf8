"""Field selectors (``--field-selector``) as the API server takes them for custom
resources: ``metadata.name`` and ``metadata.namespace``, each with ``=``, ``==`` or
``!=``, terms joined by commas (all must hold)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from clusterplace.labels._errors import SelectorError

__all__ = ["FieldSelector", "parse_field_selector"]

# The fields every custom resource can be selected by (a CRD may declare more, and
# OCM's declare none).
SUPPORTED_FIELDS = ("metadata.name", "metadata.namespace")
_TERM = re.compile(r"([^=!]*)(!=|==|=)(.*)", re.DOTALL)


@dataclass(frozen=True)
class _Term:
    field: str
    value: str
    equal: bool

    def holds(self, fields: dict[str, str]) -> bool:
        return (fields.get(self.field, "") == self.value) is self.equal


@dataclass(frozen=True)
class FieldSelector:
    """A parsed field selector; empty selects everything."""

    terms: tuple[_Term, ...] = ()

    def matches(self, name: str, namespace: str | None) -> bool:
        fields = {"metadata.name": name, "metadata.namespace": namespace or ""}
        return all(term.holds(fields) for term in self.terms)


def _split(text: str) -> list[str]:
    """Terms split at unescaped commas (``\\,`` is a comma in a value)."""
    terms, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            current.append(char)
            escaped = True
        elif char == ",":
            terms.append("".join(current))
            current = []
        else:
            current.append(char)
    terms.append("".join(current))
    return terms


def _unescape(value: str) -> str:
    out, escaped = [], False
    for char in value:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def parse_field_selector(text: str) -> FieldSelector:
    """Parse ``text``; raises :class:`SelectorError` with the API server's message."""
    if not text.strip():
        return FieldSelector()
    terms: list[_Term] = []
    for part in _split(text):
        term = _TERM.fullmatch(part)
        if term is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        field, operator, value = term.groups()
        equal = operator != "!="
        field = field.strip()
        if field not in SUPPORTED_FIELDS:
            raise SelectorError(
                f"field label not supported: {field} (custom resources are selected by "
                f"{' and '.join(SUPPORTED_FIELDS)})"
            )
        terms.append(_Term(field, _unescape(value), equal))
    return FieldSelector(tuple(terms))
