"""Texts to documents to typed objects, with errors that say file, line, object and field.

The happy path is native YAML parsing (``codecs.fast_yaml``, else ``yaml.load_all`` with
libyaml) plus pydantic validation; lines are found only when something is wrong, by
re-reading that one text's node tree.
"""

from __future__ import annotations

import difflib
import re
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from clusterplace.api.base import KubeObject
from clusterplace.api.core import GenericObject
from clusterplace.api.metadata import metadata_problems, quote
from clusterplace.api.profile import ClusterProfile, cluster_from_profile
from clusterplace.api.registry import convert, misspelled_group, model_for, namespace_of
from clusterplace.codecs.sources import Source
from clusterplace.codecs.yaml_io import TextError, line_of, load_text, odd_key_texts, scalar_text
from clusterplace.collector import collector_paused
from clusterplace.errors import InputError, InputErrors, Location

__all__ = [
    "Document",
    "LoadError",
    "Loaded",
    "check_identity",
    "decode",
    "read_documents",
    "require_unique_identities",
]

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Document:
    """One object of the input, raw, and where it came from."""

    data: dict[str, Any]
    source: Source
    doc: int  # index of the YAML document in the source
    prefix: Path = ()  # path of the object inside its document (("items", 3) in a List)

    def location(self, path: Path = (), *, obj: str | None = None) -> Location:
        full = self.prefix + tuple(path)
        field_path = render_path(path) if path else None
        return Location(
            file=self.source.name,
            line=line_of(self.source.text, self.doc, full),
            obj=obj if obj is not None else describe(self.data),
            field=field_path,
        )

    def source_text_of(self, path: Path) -> str | None:
        return scalar_text(self.source.text, self.doc, self.prefix + tuple(path))


class LoadError(InputErrors):
    """Input that could not be read or validated; ``problems`` lists every problem."""


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


def render_path(path: Path) -> str:
    """``spec.predicates[0].labels`` style; a key that would read ambiguously there
    (spaces, quotes, control characters) is quoted: ``metadata.labels["a b"]``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif not _PLAIN_KEY.fullmatch(step):
            out += f"[{quote(step)}]"
        else:
            out += f".{step}" if out else step
    return out


def _shown(text: str) -> str:
    """A name as an error shows it: as written when short and printable, else quoted
    and cut, so a hostile name cannot break or flood the message."""
    if len(text) <= 100 and text.isprintable():
        return text
    return quote(text)


def describe(data: dict[str, Any]) -> str:
    """``Kind/namespace/name`` of a raw object, as far as it can be told."""
    kind = data.get("kind") if isinstance(data.get("kind"), str) else None
    raw_meta = data.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    parts = [_shown(p) for p in (kind or "<no kind>", ns, name or "<no name>") if p]
    return "/".join(parts)


@collector_paused()
def read_documents(sources: Sequence[Source]) -> list[Document]:
    """Every object of every source, ``List`` kinds flattened, empty documents dropped."""
    documents: list[Document] = []
    problems: list[InputError] = []
    for source in sources:
        try:
            values = load_text(source.text, json_only=source.is_json)
        except TextError as err:
            problems.append(InputError(err.message, Location(file=source.name, line=err.line)))
            continue
        for index, value in enumerate(values):
            if not isinstance(value, dict):
                problems.append(
                    InputError(
                        f"expected a Kubernetes object (a mapping with apiVersion, kind and "
                        f"metadata), found a {type(value).__name__}",
                        Location(file=source.name, line=line_of(source.text, index)),
                    )
                )
                continue
            kind = value.get("kind")
            items = value.get("items")
            if isinstance(kind, str) and kind.endswith("List") and not isinstance(items, list):
                problems.append(
                    InputError(
                        f"a {kind} needs items: a list of objects, not {_shown_value(items)}",
                        Location(
                            file=source.name,
                            line=line_of(source.text, index, ("items",) if items else ()),
                            obj=describe(value),
                            field="items",
                        ),
                    )
                )
                continue
            if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
                for i, item in enumerate(items):
                    if isinstance(item, dict):
                        documents.append(Document(item, source, index, ("items", i)))
                    else:
                        problems.append(
                            InputError(
                                f"List item is not an object but a {type(item).__name__}",
                                Location(
                                    file=source.name, line=line_of(source.text, index, ("items", i))
                                ),
                            )
                        )
                continue
            documents.append(Document(value, source, index))
    if problems:
        raise LoadError(problems)
    return documents


def check_identity(doc: Document) -> list[InputError]:
    """apiVersion, kind and metadata.name must be non-empty strings, and metadata what
    the API server accepts (see :mod:`clusterplace.api.metadata`)."""
    problems: list[InputError] = []
    data = doc.data
    for key in ("apiVersion", "kind"):
        value = data.get(key)
        if not isinstance(value, str) or not value:
            if value is None:
                problems.append(InputError(f"{key} is missing", doc.location()))
            else:
                message = f"must be a non-empty string, not {_shown_value(value)}"
                problems.append(InputError(message, doc.location((key,))))
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        problems.append(
            InputError("metadata is missing (every object needs metadata.name)", doc.location())
            if meta is None
            else InputError("metadata must be a mapping", doc.location(("metadata",)))
        )
    else:
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            if name is None and meta.get("generateName"):
                message = (
                    "metadata.name is missing: generateName is not supported, since "
                    "clusterplace must know an object's name to place it; give a name"
                )
            elif name is None:
                message = "metadata.name is missing"
            else:
                message = "metadata.name must be a non-empty string"
            problems.append(
                InputError(
                    message,
                    doc.location(("metadata",) if name is None else ("metadata", "name")),
                )
            )
        elif not problems:
            problems.extend(
                InputError(message, doc.location(path))
                for path, message in metadata_problems(data["kind"], meta)
            )
    return problems


def require_unique_identities(documents: Sequence[Document]) -> None:
    """Every document has apiVersion, kind and name, and no object appears twice.

    Raises :class:`LoadError` naming both places of a duplicate. Objects of any kind
    qualify: this is the check for inputs that are passed through, not decoded.
    """
    problems: list[InputError] = []
    seen: dict[tuple[str, str, str, str], Document] = {}
    for doc in documents:
        identity = check_identity(doc) or _odd_keys_anywhere(doc)
        if identity:
            problems.extend(identity)
            continue
        meta = doc.data["metadata"]
        group = doc.data["apiVersion"].rpartition("/")[0]
        kind = doc.data["kind"]
        # As the API server: kinds resolve without regard to case, and a namespaced
        # object written without a namespace is in "default".
        namespace = namespace_of(kind, meta.get("namespace")) or ""
        key = (group, kind.lower(), namespace, meta["name"])
        first = seen.setdefault(key, doc)
        if first is not doc:
            problems.append(
                InputError(
                    f"defined twice; the first definition is at {first.location()}",
                    doc.location(),
                )
            )
    if problems:
        raise LoadError(problems)


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist = 2, 4, 4


def _shown_value(value: object) -> str:
    """A bad value as a message shows it: its YAML type, and a short rendering (never
    the whole of a huge or deeply nested value)."""
    if value is None:
        return "null (YAML reads ~, null and an empty value as null)"
    if isinstance(value, str):
        return f"string {quote(value)}"
    return f"{_type_name(value)} {_REPR.repr(value)}"


def _article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


_UNION_TAGS = frozenset({"int", "str", "float", "bool", "list", "dict"})


def _raw_path(data: Any, loc: Sequence[str | int]) -> Path:
    """pydantic's error location reduced to the keys and indexes of the input.

    pydantic also names union members (``str``) and validators (``function-after[...]``)
    in locations; those are not fields and are dropped.
    """
    path: list[str | int] = []
    current = data
    for step in loc:
        in_dict = isinstance(current, dict) and step in current
        in_list = isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current)
        if in_dict or in_list:
            current = current[step]
        elif isinstance(current, dict) and step not in _UNION_TAGS and "[" not in str(step):
            path.append(step)  # a field that is missing: name it, go no deeper
            break
        else:
            continue
        path.append(step)
    return tuple(path)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel inside ``X``, ``X | None``, ``list[X]`` or ``dict[str, X]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _field_names(model: type[BaseModel], path: Path) -> list[str]:
    """The JSON field names valid where the last step of ``path`` is (for 'did you mean')."""
    current: type[BaseModel] | None = model
    for step in path[:-1]:
        if isinstance(step, int) or current is None:
            continue
        by_json = {info.alias or name: info for name, info in current.model_fields.items()}
        info = by_json.get(step)
        current = _model_in(info.annotation) if info else None
    if current is None:
        return []
    return [info.alias or name for name, info in current.model_fields.items()]


def _message(err: Any, doc: Document, path: Path, model: type[BaseModel]) -> str:
    kind = err["type"]
    value = err.get("input")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        name = str(path[-1]) if path else "?"
        valid = _field_names(model, path)
        close = difflib.get_close_matches(name, valid, n=1)
        hint = (
            f"; did you mean {close[0]!r}?"
            if close
            else (f"; valid fields here: {', '.join(valid)}" if valid else "")
        )
        return f"unknown field {name!r}{hint}"
    if kind == "string_type" and isinstance(value, bool | int | float):
        literal = doc.source_text_of(path) or str(value)
        return (
            f"must be a string, but {literal} was read as {_article(_type_name(value))} "
            f"(YAML 1.1 reads yes/no/on/off, numbers like 010 or 1.10 as non-strings): "
            f'quote it, e.g. "{literal}"'
        )
    if kind in ("int_type", "bool_type", "string_type", "list_type", "dict_type", "model_type"):
        expected = {
            "int_type": "an integer",
            "bool_type": "a boolean (true or false)",
            "string_type": "a string",
            "list_type": "a list",
            "dict_type": "a mapping",
            "model_type": "a mapping",
        }[kind]
        return f"must be {expected}, not {_shown_value(value)}"
    msg = str(err["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    return msg.replace("Input should be", "must be").replace("String should", "must")


def _validation_problems(
    err: ValidationError, doc: Document, model: type[BaseModel]
) -> list[InputError]:
    problems: list[InputError] = []
    odd_keys_seen: set[Path] = set()
    for detail in err.errors():
        loc = detail["loc"]
        if detail["type"] == "invalid_key" or (loc and loc[-1] == "[key]"):
            # A key YAML 1.1 did not read as a string: pydantic's location names it by
            # position, so find it, and say what it was written as, in the input.
            parent = _raw_path(doc.data, loc[:-2] if loc[-1] == "[key]" else loc[:-1])
            if parent not in odd_keys_seen:
                odd_keys_seen.add(parent)
                problems.extend(_odd_key_problems(doc, parent))
            continue
        path = _raw_path(doc.data, loc)
        problems.append(InputError(_message(detail, doc, path, model), doc.location(path)))
    return problems


def _odd_keys_anywhere(doc: Document) -> list[InputError]:
    """Keys that are not strings, anywhere in an object that is passed through as it is
    (no model checks it; written out, ``yes:`` would become ``true:``)."""
    stack: list[tuple[Any, Path]] = [(doc.data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            if any(not isinstance(k, str) for k in value):
                return _odd_key_problems(doc, path)
            stack.extend((v, (*path, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
    return []


def _odd_key_problems(doc: Document, parent: Path) -> list[InputError]:
    mapping: Any = doc.data
    for step in parent:
        mapping = mapping[step]
    keys = [k for k in mapping if not isinstance(k, str)] if isinstance(mapping, dict) else []
    texts = odd_key_texts(doc.source.text, doc.doc, doc.prefix + parent)
    problems = []
    for key, text in zip(keys, texts + [None] * len(keys), strict=False):
        written = text if text is not None else str(key)
        read_as = "null" if key is None else _article(_type_name(key))
        problems.append(
            InputError(
                f"key {written} was read as {read_as}, "
                "but keys must be strings (YAML 1.1 reads yes/no/on/off, ~ and numbers as "
                f'non-strings): quote it, e.g. "{written}"',
                doc.location(parent),
            )
        )
    return problems


@dataclass
class Loaded:
    """What :func:`decode` makes of documents: typed objects, and the kinds it skipped."""

    objects: list[KubeObject] = field(default_factory=list)
    documents: dict[int, Document] = field(default_factory=dict)  # id(object) -> its document
    unknown: list[Document] = field(default_factory=list)

    def document_of(self, obj: KubeObject) -> Document | None:
        return self.documents.get(id(obj))


@collector_paused()
def decode(documents: Sequence[Document], *, keep_unknown: bool = False) -> Loaded:
    """Validate each document against its model. Unknown kinds are set aside (or, with
    ``keep_unknown``, kept as :class:`GenericObject`). A ClusterProfile is read as the
    ManagedCluster it describes (:func:`~clusterplace.api.profile.cluster_from_profile`).
    Raises :class:`LoadError` listing every problem found; nothing is returned
    half-decoded."""
    loaded = Loaded()
    problems: list[InputError] = []
    for doc in documents:
        identity = check_identity(doc)
        if identity:
            problems.extend(identity)
            continue
        model = model_for(doc.data["apiVersion"], doc.data["kind"])
        if model is None:
            meant = misspelled_group(doc.data["apiVersion"], doc.data["kind"])
            if meant is not None:
                problems.append(
                    InputError(
                        f"unknown API group for {doc.data['kind']}; did you mean {meant}?",
                        doc.location(("apiVersion",)),
                    )
                )
                continue
            if not keep_unknown:
                loaded.unknown.append(doc)
                continue
            model = GenericObject
        elif doc.data["apiVersion"] not in model.API_VERSIONS:
            problems.append(
                InputError(
                    f"apiVersion {doc.data['apiVersion']} is not served for {model.KIND}; "
                    f"use one of: {', '.join(model.API_VERSIONS)}",
                    doc.location(("apiVersion",)),
                )
            )
            continue
        raw = convert(model, doc.data) if model is not GenericObject else doc.data
        try:
            obj = model.model_validate(raw)
        except ValidationError as err:
            problems.extend(_validation_problems(err, doc, model))
            continue
        if obj.NAMESPACED and not obj.metadata.namespace:
            obj.metadata.namespace = "default"  # kubectl's default namespace
        elif not obj.NAMESPACED and obj.metadata.namespace:
            obj.metadata.namespace = None  # cluster-scoped: kubectl ignores it too
        if isinstance(obj, ClusterProfile):
            obj = cluster_from_profile(obj)  # read as the cluster it describes
        loaded.objects.append(obj)
        loaded.documents[id(obj)] = doc
    if problems:
        raise LoadError(problems)
    return loaded
