"""The ``-o`` formats every command shares, and the two that take a template.

``table``, ``wide``, ``yaml``, ``json`` and ``name`` are plain names;
``jsonpath=TEMPLATE``, ``custom-columns=SPEC`` and ``go-template=TEMPLATE`` carry their
template, and the ``-file=FILE`` forms are read into those, so a command only ever sees
a plain name, ``jsonpath=...``, ``custom-columns=...`` or ``go-template=...``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clusterplace.outputs.errors import TemplateError

if TYPE_CHECKING:  # imported when a template is used: jsonpath-ng costs 25 ms to load
    from clusterplace.outputs.custom_columns import Column
    from clusterplace.outputs.gotemplate import GoTemplate
    from clusterplace.outputs.jsonpath import JsonPathTemplate

__all__ = [
    "FORMATS",
    "OUTPUT_NAMES",
    "TemplateError",
    "is_template",
    "normalize_output",
    "object_name",
    "render_template",
]

FORMATS = ("table", "wide", "yaml", "json", "name")
TEMPLATED = (
    "jsonpath",
    "jsonpath-file",
    "custom-columns",
    "custom-columns-file",
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
)
# What -h lists: every format, the templated ones with what they take.
OUTPUT_NAMES = (
    *FORMATS,
    "jsonpath=TEMPLATE",
    "jsonpath-file=FILE",
    "custom-columns=SPEC",
    "custom-columns-file=FILE",
    "go-template=TEMPLATE",
    "go-template-file=FILE",
)
# The older name of explain replicas' and rollout's default, and kubectl's other names
# for go-template.
_ALIASES = {"text": "table", "template": "go-template", "templatefile": "go-template-file"}


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise TemplateError(f"cannot read {path}: {reason}") from None


def normalize_output(value: str) -> str:
    """``value`` as commands see it (a plain name, ``jsonpath=...`` or
    ``custom-columns=...``), its template checked; raises :class:`TemplateError`."""
    text = value.removeprefix("=")  # -o=json, as kubectl's flags take it
    name, sep, argument = text.partition("=")
    name = _ALIASES.get(name, name)
    if not sep:
        if name in FORMATS:
            return name
        if name in TEMPLATED:
            raise TemplateError(f"{name} needs a value: -o {name}=...")
        raise TemplateError(f"unknown output format {value!r}")
    if name == "jsonpath-file":
        name, argument = "jsonpath", _read(argument)
    elif name == "go-template-file":
        name, argument = "go-template", _read(argument)
    elif name == "custom-columns-file":
        from clusterplace.outputs.custom_columns import parse_custom_columns_file

        name, argument = "custom-columns", _columns_text(parse_custom_columns_file(_read(argument)))
    if name == "jsonpath":
        _template(argument)
    elif name == "custom-columns":
        _columns(argument)
    elif name == "go-template":
        _go_template(argument)
    else:
        raise TemplateError(
            f"{name} takes no value (only jsonpath, custom-columns and go-template do)"
        )
    return f"{name}={argument}"


def _columns_text(columns: Sequence[Column]) -> str:
    return ",".join(f"{c.header}:{c.path}" for c in columns)


@lru_cache(maxsize=16)
def _template(text: str) -> JsonPathTemplate:
    from clusterplace.outputs.jsonpath import JsonPathTemplate

    return JsonPathTemplate.parse(text)


@lru_cache(maxsize=16)
def _columns(spec: str) -> tuple[Column, ...]:
    from clusterplace.outputs.custom_columns import parse_custom_columns

    return tuple(parse_custom_columns(spec))


@lru_cache(maxsize=16)
def _go_template(text: str) -> GoTemplate:
    from clusterplace.outputs.gotemplate import GoTemplate

    return GoTemplate.parse(text)


def is_template(output: str) -> bool:
    """Whether ``output`` (as :func:`normalize_output` returns it) carries a template."""
    return output.startswith(("jsonpath=", "custom-columns=", "go-template="))


def render_template(
    output: str,
    document: Any,
    rows: Sequence[Mapping[str, Any]],
    *,
    no_headers: bool = False,
) -> str:
    """A template format's text: jsonpath over ``document`` (what ``-o json`` prints),
    custom-columns one line per row."""
    name, _, argument = output.partition("=")
    if name == "jsonpath":
        return _template(argument).render(document)
    if name == "go-template":
        return _go_template(argument).render(document)
    from clusterplace.outputs.custom_columns import render_columns

    return render_columns(_columns(argument), rows, no_headers=no_headers)


def object_name(data: Mapping[str, Any]) -> str:
    """``-o name``: ``kind.group/name``, the kind lower-cased, as kubectl prints an object
    (``kind/name`` for the core group)."""
    api_version = str(data.get("apiVersion") or "")
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    kind = str(data.get("kind") or "").lower()
    name = str((data.get("metadata") or {}).get("name") or "")
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"
