"""KubeVela defkit placement conditions: ``Label(key).eq(...)``, ``All``, ``Any``, ``Not``.

Semantics and ``str()`` forms are upstream's (``pkg/definition/defkit/placement``);
label conditions match through the shared selector engine's matchers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from clusterplace.labels import Labels, Matcher, Operator, compile_matcher

__all__ = [
    "OPERATORS",
    "All",
    "AllCondition",
    "Any",
    "AnyCondition",
    "ClusterCondition",
    "Eq",
    "Exists",
    "In",
    "Label",
    "LabelCondition",
    "Ne",
    "Not",
    "NotCondition",
    "NotExists",
    "NotIn",
]

# The operator names, exactly as module.yaml spells them (case-sensitive).
Eq = "Eq"
Ne = "Ne"
In = "In"
NotIn = "NotIn"
Exists = "Exists"
NotExists = "NotExists"
OPERATORS = (Eq, Ne, In, NotIn, Exists, NotExists)

_NEEDS_VALUES = {
    Eq: Operator.EQUALS,
    Ne: Operator.NOT_EQUALS,
    In: Operator.IN,
    NotIn: Operator.NOT_IN,
}


def _never(_labels: Labels) -> bool:
    return False


class ClusterCondition(ABC):
    """Anything that can be evaluated against a cluster's labels."""

    @abstractmethod
    def evaluate(self, labels: Labels | None) -> bool:
        """Whether ``labels`` satisfy the condition (None counts as no labels)."""

    @abstractmethod
    def __str__(self) -> str: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ClusterCondition)
            and type(self) is type(other)
            and self._identity() == other._identity()
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._identity()))

    @abstractmethod
    def _identity(self) -> object: ...


class LabelCondition(ClusterCondition):
    """One condition on one label: ``key``, an operator name, and values.

    Unknown operators never match (they are not errors); Eq/Ne/In/NotIn with no values
    never match either (fail closed); Eq and Ne use only the first value.
    """

    __slots__ = ("_match", "key", "operator", "values")

    def __init__(self, key: str, operator: str, values: Sequence[str] = ()) -> None:
        self.key = key
        self.operator = operator
        self.values = tuple(values)
        self._match = self._compile()

    def _compile(self) -> Matcher:
        op = self.operator
        if op == Exists:
            return compile_matcher(self.key, Operator.EXISTS, ())
        if op == NotExists:
            return compile_matcher(self.key, Operator.DOES_NOT_EXIST, ())
        engine_op = _NEEDS_VALUES.get(op)
        if engine_op is None or not self.values:
            return _never
        values = self.values[:1] if op in (Eq, Ne) else self.values
        return compile_matcher(self.key, engine_op, values)

    def evaluate(self, labels: Labels | None) -> bool:
        return self._match(labels or {})

    def _identity(self) -> object:
        return (self.key, self.operator, self.values)

    def __str__(self) -> str:
        key, op, values = self.key, self.operator, self.values
        if op == Eq:
            return f"{key} = {values[0] if values else '<empty>'}"
        if op == Ne:
            return f"{key} != {values[0] if values else '<empty>'}"
        if op == In:
            return f"{key} in ({', '.join(values)})"
        if op == NotIn:
            return f"{key} not in ({', '.join(values)})"
        if op == Exists:
            return f"{key} exists"
        if op == NotExists:
            return f"{key} not exists"
        return f"{key} {op} [{' '.join(values)}]"  # Go's "%s %s %v"

    def to_dict(self) -> dict[str, object]:
        """The module.yaml / registry JSON form: ``{key, operator, values?}``."""
        out: dict[str, object] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


class AllCondition(ClusterCondition):
    """AND of its conditions; empty: always true."""

    def __init__(self, conditions: Sequence[ClusterCondition]) -> None:
        self.conditions = tuple(conditions)

    def evaluate(self, labels: Labels | None) -> bool:
        return all(c.evaluate(labels) for c in self.conditions)

    def _identity(self) -> object:
        return self.conditions

    def __str__(self) -> str:
        return f"all({' AND '.join(str(c) for c in self.conditions)})"


class AnyCondition(ClusterCondition):
    """OR of its conditions; empty: never true."""

    def __init__(self, conditions: Sequence[ClusterCondition]) -> None:
        self.conditions = tuple(conditions)

    def evaluate(self, labels: Labels | None) -> bool:
        return any(c.evaluate(labels) for c in self.conditions)

    def _identity(self) -> object:
        return self.conditions

    def __str__(self) -> str:
        return f"any({' OR '.join(str(c) for c in self.conditions)})"


class NotCondition(ClusterCondition):
    """Negation; ``Not(None)`` is always true."""

    def __init__(self, condition: ClusterCondition | None) -> None:
        self.condition = condition

    def evaluate(self, labels: Labels | None) -> bool:
        return True if self.condition is None else not self.condition.evaluate(labels)

    def _identity(self) -> object:
        return self.condition

    def __str__(self) -> str:
        return "not(<nil>)" if self.condition is None else f"not({self.condition})"


class Label:
    """``Label("provider").in_("aws", "gcp")``: builds one :class:`LabelCondition`."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def eq(self, value: str) -> LabelCondition:
        return LabelCondition(self.key, Eq, [value])

    def ne(self, value: str) -> LabelCondition:
        return LabelCondition(self.key, Ne, [value])

    def in_(self, *values: str) -> LabelCondition:
        return LabelCondition(self.key, In, values)

    def not_in(self, *values: str) -> LabelCondition:
        return LabelCondition(self.key, NotIn, values)

    def exists(self) -> LabelCondition:
        return LabelCondition(self.key, Exists)

    def not_exists(self) -> LabelCondition:
        return LabelCondition(self.key, NotExists)


def All(*conditions: ClusterCondition) -> AllCondition:
    """All conditions must match (an empty ``All()`` always matches)."""
    return AllCondition(conditions)


def Any(*conditions: ClusterCondition) -> AnyCondition:
    """At least one condition must match (an empty ``Any()`` never matches)."""
    return AnyCondition(conditions)


def Not(condition: ClusterCondition | None) -> NotCondition:
    """The inverse of ``condition`` (``Not(None)`` always matches)."""
    return NotCondition(condition)
