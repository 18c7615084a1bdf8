"""Templates: resources built with ``set``/``set_if`` on paths, rendered to CUE.

Paths use dots for fields and brackets for keys and list indexes:
``spec.selector.matchLabels[app.oam.dev/component]``, ``spec.containers[0].image``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from clusterplace.defkit import cue
from clusterplace.defkit.params import CueCondition, Param
from clusterplace.errors import ClusterplaceError

__all__ = ["Resource", "Template", "VelaContext", "resource", "vela_context"]

_SEGMENT = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


class PathError(ClusterplaceError, ValueError):
    """A template path that cannot be parsed."""


@dataclass(frozen=True)
class _Key:
    name: str
    bracketed: bool


def parse_path(path: str) -> list[_Key | int]:
    """``a.b[c/d][0].e`` -> keys and list indexes."""
    steps: list[_Key | int] = []
    pos = 0
    while pos < len(path):
        if path[pos] == "." and steps:
            pos += 1
        m = _SEGMENT.match(path, pos)
        if m is None or m.end() == pos:
            raise PathError(f"cannot parse path {path!r} at offset {pos}")
        if m.group(1) is not None:
            steps.append(_Key(m.group(1), False))
        else:
            inner = m.group(2)
            steps.append(int(inner) if inner.isdigit() else _Key(inner, True))
        pos = m.end()
    if not steps:
        raise PathError("empty path")
    return steps


def _value(value: Any) -> cue.Node:
    if isinstance(value, Param):
        return value.reference()
    if isinstance(value, cue.Expr):
        return value
    if isinstance(value, dict):
        return cue.Struct([cue.Field(str(k), _value(v)) for k, v in value.items()])
    if isinstance(value, list):
        return cue.ListLit([_value(v) for v in value])
    return cue.string_value(value) if isinstance(value, str) else cue.literal(value)


class VelaContext:
    """The ``context`` of a rendering: ``vela_context().name()`` is ``context.name``."""

    def name(self) -> cue.Expr:
        return cue.Expr("context.name")

    def namespace(self) -> cue.Expr:
        return cue.Expr("context.namespace")

    def app_name(self) -> cue.Expr:
        return cue.Expr("context.appName")


def vela_context() -> VelaContext:
    return VelaContext()


@dataclass
class _Assignment:
    path: list[_Key | int]
    value: Any
    condition: CueCondition | None


@dataclass
class Resource:
    """A Kubernetes object under construction."""

    api_version: str
    kind: str
    assignments: list[_Assignment] = field(default_factory=list)

    def set(self, path: str, value: Any) -> Resource:
        self.assignments.append(_Assignment(parse_path(path), value, None))
        return self

    def set_if(self, condition: CueCondition, path: str, value: Any) -> Resource:
        self.assignments.append(_Assignment(parse_path(path), value, condition))
        return self

    def to_cue(self) -> cue.Struct:
        root = cue.Struct(
            [
                cue.Field("apiVersion", cue.literal(self.api_version)),
                cue.Field("kind", cue.literal(self.kind)),
            ]
        )
        for assignment in self.assignments:
            _assign(root, assignment.path, _value(assignment.value), assignment.condition)
        return root


def _child_struct(parent: cue.Struct, key: _Key) -> cue.Struct:
    found = parent.get(key.name)
    if found is None:
        found = cue.Field(key.name, cue.Struct(), quoted=key.bracketed)
        parent.items.append(found)
    if not isinstance(found.value, cue.Struct):
        raise PathError(f"{key.name!r} is set to a value and cannot also hold fields")
    return found.value


def _assign(
    root: cue.Struct, path: list[_Key | int], value: cue.Node, condition: CueCondition | None
) -> None:
    current: cue.Struct | cue.ListLit = root
    for index, step in enumerate(path):
        last = index == len(path) - 1
        nxt = None if last else path[index + 1]
        if isinstance(step, int):
            if not isinstance(current, cue.ListLit):
                raise PathError(f"index [{step}] used on a field that is not a list")
            while len(current.items) <= step:
                current.items.append(cue.Struct())
            if last:
                current.items[step] = value
                return
            element = current.items[step]
            if not isinstance(element, cue.Struct):
                raise PathError(f"element [{step}] is a value and cannot hold fields")
            current = element
            continue
        assert isinstance(current, cue.Struct)
        if last:
            target = current
            if condition is not None:
                target = cue.Struct()
                current.items.append(cue.If(condition.text, target))
            existing = target.get(step.name)
            if existing is not None:
                existing.value = value
            else:
                target.items.append(cue.Field(step.name, value, quoted=step.bracketed))
            return
        if isinstance(nxt, int):
            found = current.get(step.name)
            if found is None:
                found = cue.Field(step.name, cue.ListLit(), quoted=step.bracketed)
                current.items.append(found)
            if not isinstance(found.value, cue.ListLit):
                raise PathError(f"{step.name!r} is not a list")
            current = found.value
        else:
            current = _child_struct(current, step)


def resource(api_version: str, kind: str) -> Resource:
    return Resource(api_version, kind)


class Template:
    """What a definition renders: ``output`` (and named ``outputs``) resources."""

    def __init__(self) -> None:
        self.output_resource: Resource | None = None
        self.named_outputs: dict[str, Resource] = {}

    def output(self, res: Resource) -> Template:
        self.output_resource = res
        return self

    def outputs(self, name: str, res: Resource) -> Template:
        self.named_outputs[name] = res
        return self
