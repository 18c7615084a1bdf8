"""The ``-o`` formats every command shares, and the two that take a template.

``table``, ``wide``, ``yaml``, ``json`` and ``name`` are plain names;
``jsonpath=TEMPLATE``, ``custom-columns=SPEC`` and ``go-template=TEMPLATE`` carry their
template, and the ``-file=FILE`` forms are read into those, so a command only ever sees
a plain name, ``jsonpath=...``, ``custom-columns=...`` or ``go-template=...``.
Template files are read as input files are (regular files only, strict UTF-8), up to
:data:`MAX_TEMPLATE_FILE_BYTES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clusterplace.errors import InputError
from clusterplace.outputs.errors import TemplateError

if TYPE_CHECKING:  # imported when a template is used: jsonpath-ng costs 25 ms to load
    from clusterplace.outputs.custom_columns import Column
    from clusterplace.outputs.gotemplate import GoTemplate
    from clusterplace.outputs.jsonpath import JsonPathTemplate

__all__ = [
    "FORMATS",
    "MAX_TEMPLATE_FILE_BYTES",
    "OUTPUT_NAMES",
    "TemplateError",
    "is_template",
    "normalize_output",
    "object_name",
    "render_template",
    "write_template",
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
# A template file's size limit: what a template of the most characters it may have
# (64 Ki) takes in UTF-8 at most; a longer file is refused before it is all read.
MAX_TEMPLATE_FILE_BYTES = 4 * 64 * 1024
_EMPTY = {
    "jsonpath": "template format specified but no template given",
    "custom-columns": "custom-columns format specified but no custom columns given",
    "go-template": "template format specified but no template given",
}


def _read(option: str, path: str) -> str:
    from clusterplace.codecs.sources import read_regular_file

    if not path:
        raise TemplateError(_EMPTY[option.removesuffix("-file")])
    try:
        text = read_regular_file(Path(path), MAX_TEMPLATE_FILE_BYTES).text
    except InputError as err:
        raise TemplateError(f"{option} {err}") from None
    except ValueError as err:  # a NUL in the path
        raise TemplateError(f"{option} {path!r}: {err}") from None
    if not text.strip():
        raise TemplateError(f"{option} {path} is empty: it holds no template")
    return text


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
        name, argument = "jsonpath", _read(name, argument)
    elif name == "go-template-file":
        name, argument = "go-template", _read(name, argument)
    elif name == "custom-columns-file":
        from clusterplace.outputs.custom_columns import parse_custom_columns_file

        text = _read(name, argument)
        name, argument = "custom-columns", _columns_text(parse_custom_columns_file(text))
    if name in _EMPTY and not argument:
        raise TemplateError(_EMPTY[name])
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
    out: list[str] = []
    write_template(output, document, rows, out.append, no_headers=no_headers)
    return "".join(out)


def write_template(
    output: str,
    document: Any,
    rows: Sequence[Mapping[str, Any]],
    write: Callable[[str], object],
    *,
    no_headers: bool = False,
) -> None:
    """:func:`render_template`, passed to ``write`` as it is produced: jsonpath in
    pieces as it goes, custom-columns as one table (its widths need every row)."""
    name, _, argument = output.partition("=")
    if name == "jsonpath":
        _template(argument).write(document, write)
        return
    if name == "go-template":
        write(_go_template(argument).render(document))
        return
    from clusterplace.outputs.custom_columns import render_columns

    write(render_columns(_columns(argument), rows, no_headers=no_headers))


def object_name(data: Mapping[str, Any]) -> str:
    """``-o name``: ``kind.group/name``, the kind lower-cased, as kubectl prints an object
    (``kind/name`` for the core group)."""
    api_version = str(data.get("apiVersion") or "")
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    kind = str(data.get("kind") or "").lower()
    name = str((data.get("metadata") or {}).get("name") or "")
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"
