"""One label requirement: a key, an operator and values (apimachinery ``NewRequirement``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum

from clusterplace.labels._errors import SelectorError
from clusterplace.labels.validation import (
    FieldError,
    aggregate,
    label_key_errors,
    label_value_errors,
    parse_go_int64,
)

__all__ = ["Labels", "Matcher", "Operator", "Requirement", "compile_matcher"]

Labels = Mapping[str, str]
"""A label (or claim) set: key to value."""


class Operator(StrEnum):
    """The selection operators, spelled as apimachinery's ``selection.Operator`` values."""

    IN = "in"
    NOT_IN = "notin"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


# Upstream's order, used in the "supported values" message.
_VALID_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!")
_SET_OPS = frozenset({Operator.IN, Operator.NOT_IN})
_EXACT_OPS = frozenset({Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS})
_UNARY_OPS = frozenset({Operator.EXISTS, Operator.DOES_NOT_EXIST})
_NUMERIC_OPS = frozenset({Operator.GREATER_THAN, Operator.LESS_THAN})

Matcher = Callable[[Labels], bool]


def _validate(key: str, op: str, values: tuple[str, ...], path: str) -> list[FieldError]:
    prefix = f"{path}." if path else ""
    errs: list[FieldError] = []
    key_errs = label_key_errors(key)
    if key_errs:
        errs.append(FieldError.invalid(prefix + "key", key, "; ".join(key_errs)))
    values_path = prefix + "values"
    if op in _SET_OPS:
        if not values:
            errs.append(
                FieldError.invalid(
                    values_path, values, "for 'in', 'notin' operators, values set can't be empty"
                )
            )
    elif op in _EXACT_OPS:
        if len(values) != 1:
            errs.append(
                FieldError.invalid(
                    values_path, values, "exact-match compatibility requires one single value"
                )
            )
    elif op in _UNARY_OPS:
        if values:
            errs.append(
                FieldError.invalid(
                    values_path, values, "values set must be empty for exists and does not exist"
                )
            )
    elif op in _NUMERIC_OPS:
        if len(values) != 1:
            errs.append(
                FieldError.invalid(
                    values_path, values, "for 'Gt', 'Lt' operators, exactly one value is required"
                )
            )
        for i, v in enumerate(values):
            if parse_go_int64(v) is None:
                errs.append(
                    FieldError.invalid(
                        f"{values_path}[{i}]",
                        v,
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    else:
        errs.append(FieldError.not_supported(prefix + "operator", op, _VALID_OPERATORS))
    for i, v in enumerate(values):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.append(FieldError.invalid(f"{values_path}[{i}][{key}]", v, "; ".join(value_errs)))
    return errs


def compile_matcher(key: str, op: Operator, values: tuple[str, ...]) -> Matcher:
    """A matcher for ``key op values`` without validation (callers with other key rules,
    such as KubeVela's ConfigMap-keyed conditions, build on this)."""
    # Absent keys read as None, which is never in a set of strings: that gives
    # In/= "absent -> False" and NotIn/!= "absent -> True" without a branch.
    if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
        if len(values) == 1:
            only = values[0]
            return lambda labels: labels.get(key) == only
        value_set = frozenset(values)
        return lambda labels: labels.get(key) in value_set
    if op in _SET_OPS or op == Operator.NOT_EQUALS:
        if len(values) == 1:
            only = values[0]
            return lambda labels: labels.get(key) != only
        value_set = frozenset(values)
        return lambda labels: labels.get(key) not in value_set
    if op == Operator.EXISTS:
        return lambda labels: key in labels
    if op == Operator.DOES_NOT_EXIST:
        return lambda labels: key not in labels
    bound = parse_go_int64(values[0]) if len(values) == 1 else None
    if bound is None:
        return lambda labels: False
    greater = op == Operator.GREATER_THAN

    def numeric(labels: Labels) -> bool:
        raw = labels.get(key)
        if raw is None:
            return False
        number = parse_go_int64(raw)
        if number is None:
            return False
        return number > bound if greater else number < bound

    return numeric


class Requirement:
    """``key operator values``: validated on construction, immutable, hashable.

    ``values`` keep the order given (as upstream stores them); ``str()`` prints
    them sorted. Construction raises :class:`SelectorError` with upstream's
    aggregated field-error message when the requirement is invalid.
    """

    __slots__ = ("_hash", "key", "match", "operator", "values")

    key: str
    operator: Operator
    values: tuple[str, ...]
    match: Matcher
    _hash: int

    def __init__(
        self, key: str, operator: Operator | str, values: Iterable[str] = (), *, path: str = ""
    ) -> None:
        vals = tuple(values)
        errs = _validate(key, str(operator), vals, path)
        if errs:
            raise SelectorError(aggregate(errs))
        op = Operator(operator)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "operator", op)
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "match", compile_matcher(key, op, vals))
        object.__setattr__(self, "_hash", hash((key, op.value, vals)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Requirement is immutable")

    def matches(self, labels: Labels) -> bool:
        """Whether ``labels`` satisfy this requirement."""
        return self.match(labels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator.name}, {list(self.values)!r})"

    def __str__(self) -> str:
        op = self.operator
        if op == Operator.EXISTS:
            return self.key
        if op == Operator.DOES_NOT_EXIST:
            return "!" + self.key
        rendered = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in _SET_OPS:
            return f"{self.key} {op.value} ({rendered})"
        symbol = {Operator.GREATER_THAN: ">", Operator.LESS_THAN: "<"}.get(op, op.value)
        return f"{self.key}{symbol}{rendered}"
