"""Definition parameters: ``defkit.string_param("image").description(...).default(...)``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from clusterplace.defkit import cue
from clusterplace.errors import ClusterplaceError

__all__ = [
    "Param",
    "ParamError",
    "bool_param",
    "enum_param",
    "float_param",
    "int_param",
    "list_param",
    "map_param",
    "string_param",
]

_UNSET: Any = object()


class ParamError(ClusterplaceError, ValueError):
    """A parameter that cannot be declared (an enum with no values)."""


class Param:
    """One parameter: a name, a CUE type, and optional default, description, optionality.

    Builder methods return the parameter itself, so they chain. In a template a
    parameter stands for its value (``parameter.<name>``); ``is_set()`` is the
    condition that it was given.
    """

    def __init__(self, name: str, cue_type: str, *, enum: bool = False) -> None:
        self.name = name
        self.cue_type = cue_type
        self._enum = enum  # cue_type is a disjunction of the allowed values
        self._description = ""
        self._default: Any = _UNSET
        self._optional = False

    def description(self, text: str) -> Param:
        self._description = text
        return self

    def default(self, value: Any) -> Param:
        self._default = value
        return self

    def optional(self) -> Param:
        self._optional = True
        return self

    @property
    def has_default(self) -> bool:
        return self._default is not _UNSET

    def is_set(self) -> CueCondition:
        """True in a template when the user gave this parameter."""
        return CueCondition(f"parameter[{json.dumps(self.name)}] != _|_")

    def reference(self) -> cue.Expr:
        return cue.Expr(
            f"parameter.{self.name}"
            if cue.field_name(self.name) == self.name
            else f"parameter[{json.dumps(self.name)}]"
        )

    def _default_text(self) -> str:
        value = self._default
        if isinstance(value, list | dict):
            return json.dumps(value)
        return cue.literal(value).text

    def schema(self) -> list[cue.Field | cue.Comment]:
        """The parameter's lines in the ``parameter: {...}`` block."""
        items: list[cue.Field | cue.Comment] = []
        if self._description:
            # A comment ends at the line's end: keep a multi-line description on one line.
            items.append(cue.Comment(f"+usage={' '.join(self._description.split())}"))
        text = self.cue_type
        if self.has_default:
            default = self._default_text()
            members = self.cue_type.split(" | ") if self._enum else []
            if default in members:  # mark the member: *"basic" | "full", not a repeat
                text = " | ".join(f"*{m}" if m == default else m for m in members)
            else:
                text = f"*{default} | {text}"
        # A bare list/struct type is a literal, which cue fmt never aligns; with a default
        # it is a binary expression (*[80] | [...int]), which it does.
        literal = self.cue_type.startswith(("[", "{")) and not self.has_default
        items.append(
            cue.Field(self.name, cue.Expr(text, align=not literal), optional=self._optional)
        )
        return items


class CueCondition:
    """A CUE boolean expression usable in ``set_if``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"CueCondition({self.text!r})"


def string_param(name: str) -> Param:
    return Param(name, "string")


def int_param(name: str) -> Param:
    return Param(name, "int")


def bool_param(name: str) -> Param:
    return Param(name, "bool")


def float_param(name: str) -> Param:
    return Param(name, "number")


def list_param(name: str, of: str = "string") -> Param:
    """A list; ``of`` is the element's CUE type (``string``, ``int``, ...)."""
    return Param(name, f"[...{of}]")


def map_param(name: str, of: str = "string") -> Param:
    """A map from string keys to ``of`` values."""
    return Param(name, f"{{[string]: {of}}}")


def enum_param(name: str, values: Sequence[str]) -> Param:
    """One of ``values`` (a string disjunction)."""
    if not values:
        raise ParamError(f"enum parameter {name!r} needs at least one value, none given")
    return Param(name, " | ".join(json.dumps(v) for v in values), enum=True)
