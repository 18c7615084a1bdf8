"""Where apply-module installs definitions: a directory of manifests, or (elsewhere) a
live cluster. Every store answers get/create/update for namespaced objects."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Protocol

import yaml

from clusterplace.codecs.sources import expand_sources
from clusterplace.codecs.yaml_io import StrictLoader, TextError, load_text
from clusterplace.errors import InputError, Location
from clusterplace.federation import object_file_name
from clusterplace.outputs import FileTransaction
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.safepath import resolve_inside

__all__ = ["DefinitionStore", "DirectoryStore", "MemoryStore"]


class DefinitionStore(Protocol):
    """The operations apply-module needs; ``get`` returns None when the object is absent
    and raises for any other failure."""

    def get(
        self, api_version: str, kind: str, namespace: str, name: str
    ) -> dict[str, Any] | None: ...

    def create(self, obj: dict[str, Any]) -> None: ...

    def update(self, obj: dict[str, Any]) -> None: ...

    def commit(self) -> None:
        """Make the changes durable (a no-op for stores that write immediately)."""


class MemoryStore:
    """Objects in a dict: for tests and for dry runs layered over another store."""

    def __init__(self, objects: list[dict[str, Any]] | None = None) -> None:
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {}
        for obj in objects or []:
            self.objects[self._key(obj)] = obj

    @staticmethod
    def _key(obj: dict[str, Any]) -> tuple[str, str, str]:
        meta = obj.get("metadata") or {}
        return (str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name")))

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.objects.get((kind, namespace, name))

    def create(self, obj: dict[str, Any]) -> None:
        self.objects[self._key(obj)] = obj

    def update(self, obj: dict[str, Any]) -> None:
        self.objects[self._key(obj)] = obj

    def commit(self) -> None:
        pass


class DirectoryStore:
    """Manifests in a directory, one file per object (``--out DIR``), for GitOps.

    An existing file counts as an existing object. Writes are staged and applied
    together by :meth:`commit`, atomically per file, so a failed run writes nothing.
    """

    def __init__(self, root: Path, transaction: FileTransaction | None = None) -> None:
        self.root = root
        self._pending: dict[Path, str] = {}
        # The transaction of the locked output folder (see outputs.open_output), if any.
        self._transaction = transaction

    def path_of(self, obj: dict[str, Any]) -> Path:
        """The object's file; never outside the root, whatever its name holds."""
        return resolve_inside(self.root, object_file_name(obj), what="file name")

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        probe = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"namespace": namespace, "name": name},
        }
        path = self.path_of(probe)
        if path in self._pending:
            return dict(yaml.load(self._pending[path], Loader=StrictLoader))
        if not path.exists():
            return None
        # A file in the output folder is input too: read with every bound of -f.
        (source,) = expand_sources([str(path)])
        try:
            values = load_text(source.text, json_only=source.is_json)
        except TextError as err:
            raise InputError(err.message, Location(file=source.name, line=err.line)) from None
        loaded = values[0] if values else None
        return loaded if isinstance(loaded, dict) else {}

    def create(self, obj: dict[str, Any]) -> None:
        self._pending[self.path_of(obj)] = dump_yaml_stream([obj])

    def update(self, obj: dict[str, Any]) -> None:
        self.create(obj)

    def commit(self) -> None:
        with contextlib.ExitStack() as stack:
            tx = self._transaction or stack.enter_context(FileTransaction(self.root))
            for path, text in self._pending.items():
                tx.write(path, text)
            tx.commit()
        self._pending.clear()
