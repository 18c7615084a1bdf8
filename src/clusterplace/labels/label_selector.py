"""``metav1.LabelSelector`` (matchLabels + matchExpressions) to a :class:`Selector`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from clusterplace.labels._errors import SelectorError
from clusterplace.labels.requirement import Operator, Requirement
from clusterplace.labels.selector import Selector
from clusterplace.labels.validation import go_json_string

__all__ = ["LABEL_SELECTOR_OPERATORS", "from_label_selector", "from_requirements"]

# The only operators a metav1.LabelSelector accepts; Gt/Lt are string-syntax only.
LABEL_SELECTOR_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


# Structural checks by attribute: isinstance() against a runtime-checkable Protocol
# costs tens of microseconds, and selectors are converted on hot paths.
class _ExpressionLike(Protocol):
    key: str
    operator: str
    values: Sequence[str] | None


class _LabelSelectorLike(Protocol):
    match_labels: Mapping[str, str] | None
    match_expressions: Sequence[Any] | None


def _expression_fields(expr: object) -> tuple[str, str, list[str]]:
    if isinstance(expr, Mapping):
        return (
            str(expr.get("key", "")),
            str(expr.get("operator", "")),
            list(expr.get("values") or []),
        )
    if hasattr(expr, "key") and hasattr(expr, "operator") and hasattr(expr, "values"):
        like = cast(_ExpressionLike, expr)
        return like.key, str(like.operator), list(like.values or [])
    raise TypeError(f"not a label selector requirement: {expr!r}")


def from_requirements(expressions: Iterable[object]) -> Selector:
    """``matchExpressions`` alone (e.g. an OCM claim selector): none means Everything."""
    return _convert({}, list(expressions))


def _convert(match_labels: Mapping[str, str], expressions: Sequence[object]) -> Selector:
    if not match_labels and not expressions:
        return Selector.everything()
    requirements: list[Requirement] = []
    # Upstream walks a Go map (random order); walk keys sorted so the first
    # error reported is always the same one.
    for key in sorted(match_labels):
        requirements.append(Requirement(key, Operator.EQUALS, [match_labels[key]]))
    for expr in expressions:
        key, op_name, values = _expression_fields(expr)
        op = LABEL_SELECTOR_OPERATORS.get(op_name)
        if op is None:
            raise SelectorError(f"{go_json_string(op_name)} is not a valid label selector operator")
        requirements.append(Requirement(key, op, values))
    return Selector(requirements)


def from_label_selector(selector: object | None) -> Selector:
    """Convert a ``metav1.LabelSelector`` as upstream's ``LabelSelectorAsSelector`` does.

    ``None`` (a nil selector) matches nothing; ``{}`` matches everything. Accepts a
    mapping in Kubernetes JSON shape (``matchLabels``/``matchExpressions``) or any
    object with ``match_labels``/``match_expressions`` attributes (the typed API models).
    Raises :class:`SelectorError` for an invalid key, value or operator.
    """
    if selector is None:
        return Selector.nothing()
    if isinstance(selector, Mapping):
        labels = selector.get("matchLabels") or {}
        expressions = selector.get("matchExpressions") or []
    elif hasattr(selector, "match_labels") and hasattr(selector, "match_expressions"):
        like = cast(_LabelSelectorLike, selector)
        labels = like.match_labels or {}
        expressions = like.match_expressions or []
    else:
        raise TypeError(f"not a label selector: {selector!r}")
    return _convert(labels, list(expressions))
