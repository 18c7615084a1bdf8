"""Loading a definition module: ``module.yaml`` plus definition files per type directory.

``components/``, ``traits/``, ``policies/`` and ``workflowsteps/`` hold Python files
that call ``defkit.register`` and ``.cue`` files taken as they are. Files load in
directory order, then name order; errors name the file and line.
"""

from __future__ import annotations

import runpy
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from clusterplace.api import DefinitionModule
from clusterplace.api.metadata import quote
from clusterplace.api.module import PlacementCondition
from clusterplace.codecs import decode, expand_sources, read_documents
from clusterplace.codecs.loader import Document
from clusterplace.defkit.cue_reader import CueReadError, read_struct, top_level_blocks
from clusterplace.defkit.definitions import (
    ComponentDefinition,
    Definition,
    PolicyDefinition,
    TraitDefinition,
    WorkflowStepDefinition,
)
from clusterplace.defkit.registry import DefinitionError, collecting
from clusterplace.errors import InputError, InputErrors, Location
from clusterplace.labels.validation import dns1123_subdomain_errors
from clusterplace.placement import LabelCondition, PlacementConstraints
from clusterplace.safepath import resolve_inside

__all__ = ["TYPE_DIRS", "LoadedDefinition", "Module", "load_module", "module_placement"]

TYPE_DIRS: dict[str, type[Definition]] = {
    "components": ComponentDefinition,
    "traits": TraitDefinition,
    "policies": PolicyDefinition,
    "workflowsteps": WorkflowStepDefinition,
}
_TYPE_NAMES = {cls.TYPE: cls for cls in TYPE_DIRS.values()}


@dataclass
class LoadedDefinition:
    definition: Definition
    path: Path


@dataclass
class Module:
    path: Path
    metadata: DefinitionModule | None
    definitions: list[LoadedDefinition] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def placement(self) -> PlacementConstraints:
        return module_placement(self.metadata)

    @property
    def name(self) -> str:
        return self.metadata.name if self.metadata else self.path.name

    def count(self, definition_type: str) -> int:
        return sum(1 for d in self.definitions if definition_type == d.definition.TYPE)


def _conditions(entries: list[PlacementCondition] | None) -> list[LabelCondition]:
    return [LabelCondition(e.key, e.operator, e.values or []) for e in entries or []]


def module_placement(metadata: DefinitionModule | None) -> PlacementConstraints:
    """The module-wide placement of ``spec.placement`` (flat label conditions)."""
    placement = metadata.spec.placement if metadata else None
    if placement is None:
        return PlacementConstraints()
    return PlacementConstraints(_conditions(placement.run_on), _conditions(placement.not_run_on))


def _load_metadata(path: Path, warnings: list[str]) -> DefinitionModule | None:
    module_yaml = path / "module.yaml"
    if not module_yaml.exists():
        return None
    documents = read_documents(expand_sources([str(module_yaml)]))
    if len(documents) != 1:
        raise InputError("must hold exactly one DefinitionModule", Location(file=str(module_yaml)))
    loaded = decode(documents, keep_unknown=True)
    metadata = loaded.objects[0]
    if not isinstance(metadata, DefinitionModule):
        raise InputError(
            f"is a {metadata.kind}, expected kind DefinitionModule (core.oam.dev/v1beta1)",
            Location(file=str(module_yaml)),
        )
    _check_hook_paths(path, metadata, documents[0])
    placement = metadata.spec.placement
    for list_name, entries in (
        ("runOn", placement.run_on if placement else None),
        ("notRunOn", placement.not_run_on if placement else None),
    ):
        for index, entry in enumerate(entries or []):
            if entry.operator in ("Exists", "NotExists") and entry.values:
                doc = documents[0]
                where = doc.location(("spec", "placement", list_name, index, "values"))
                warnings.append(f"{where}: values are ignored for operator {entry.operator}")
    return metadata


def _check_hook_paths(root: Path, metadata: DefinitionModule, doc: Document) -> None:
    """Every hook ``path`` must resolve (symlinks followed) inside the module folder."""
    hooks = metadata.spec.hooks
    for phase, field_name in (("pre-apply", "pre_apply"), ("post-apply", "post_apply")):
        for index, hook in enumerate(getattr(hooks, field_name, None) or []):
            if hook.path is not None:
                where = doc.location(("spec", "hooks", phase, index, "path"))
                resolve_inside(root, hook.path, what="hook path", where=where)


def _error_line(err: BaseException, file: Path) -> int | None:
    if isinstance(err, SyntaxError) and err.filename and Path(err.filename) == file:
        return err.lineno
    frames = [f for f in traceback.extract_tb(err.__traceback__) if Path(f.filename) == file]
    return frames[-1].lineno if frames else None


def _load_python(file: Path) -> list[Definition]:
    with collecting() as registered:
        sys.path.insert(0, str(file.parent))
        try:
            runpy.run_path(str(file), run_name=f"clusterplace_module_{file.stem}")
        except DefinitionError as err:
            raise InputError(
                str(err), Location(file=str(file), line=_error_line(err, file))
            ) from None
        except SystemExit as err:  # exit() in a definition file must not end the command
            raise InputError(
                f"the file called exit({err.code!r}) while being loaded; a definition file "
                "only defines definitions",
                Location(file=str(file), line=_error_line(err, file)),
            ) from None
        except Exception as err:  # the user's code: report where it failed, no traceback
            message = f"{type(err).__name__}: {err}"
            raise InputError(
                message, Location(file=str(file), line=_error_line(err, file))
            ) from None
        finally:
            sys.path.remove(str(file.parent))
    return list(registered)


def _load_cue(file: Path, expected: type[Definition]) -> Definition:
    (source,) = expand_sources([str(file)])
    text = source.text
    where = Location(file=str(file))
    try:
        blocks = top_level_blocks(text)
    except CueReadError as err:
        line = text.count("\n", 0, err.position) + 1
        raise InputError(f"cannot read CUE: {err}", Location(file=str(file), line=line)) from None
    headers = [(label, body, at) for label, body, at in blocks if label != "template"]
    if not headers:
        raise InputError(
            'no definition found: expected a top-level "<name>": { type: "..." ... } block', where
        )
    name, body, at = headers[0]
    header = read_struct(body)
    kind = header.get("type")
    cls = _TYPE_NAMES.get(kind) if isinstance(kind, str) else expected
    if cls is None:
        type_at = text.find(f'"{kind}"', at)
        line = text.count("\n", 0, type_at if type_at >= 0 else at) + 1
        raise InputError(
            f'unknown definition type "{kind}"; valid: {", ".join(_TYPE_NAMES)}',
            Location(file=str(file), line=line),
        )
    definition: Definition = cls(name)
    definition.raw_cue(text)
    if isinstance(header.get("description"), str):
        definition.description(header["description"])
    workload = (header.get("attributes") or {}).get("workload") or {}
    target = workload.get("definition") or {}
    if isinstance(definition, ComponentDefinition) and "apiVersion" in target and "kind" in target:
        definition.workload(target["apiVersion"], target["kind"])
    return definition


def load_module(path: str | Path) -> Module:
    """Read a module directory. Raises :class:`InputErrors` listing every problem."""
    root = Path(path)
    if not root.is_dir():
        raise InputError(f'module directory "{path}" does not exist')
    warnings: list[str] = []
    module = Module(root, _load_metadata(root, warnings), warnings=warnings)
    problems: list[InputError] = []
    seen: dict[tuple[str, str], Path] = {}
    for directory, cls in TYPE_DIRS.items():
        folder = root / directory
        if not folder.is_dir():
            continue
        for file in sorted(folder.iterdir()):
            if file.name.startswith(("_", ".")) or file.suffix not in (".py", ".cue"):
                continue
            try:
                found = _load_python(file) if file.suffix == ".py" else [_load_cue(file, cls)]
            except InputError as err:
                problems.append(err)
                continue
            for definition in found:
                reasons = dns1123_subdomain_errors(definition.name)
                if reasons:
                    problems.append(
                        InputError(
                            f"{definition.KIND} name {quote(definition.name)} is invalid: "
                            f"{'; '.join(reasons)}",
                            Location(file=str(file)),
                        )
                    )
                    continue
                key = (definition.KIND, definition.name)
                if key in seen:
                    problems.append(
                        InputError(
                            f"{definition.KIND} {definition.name} is defined twice; "
                            f"the first definition is in {seen[key]}",
                            Location(file=str(file)),
                        )
                    )
                    continue
                seen[key] = file
                module.definitions.append(LoadedDefinition(definition, file))
    if problems:
        raise InputErrors(problems)
    return module
