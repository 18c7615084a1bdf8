"""Loading a definition module: ``module.yaml`` plus definition files per type directory.

``components/``, ``traits/``, ``policies/`` and ``workflowsteps/`` hold Python files
that call ``defkit.register`` and ``.cue`` files taken as they are. Files load in
directory order, then name order; errors name the file and line.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clusterplace.api import DefinitionModule, Hook
from clusterplace.api.module import PlacementCondition
from clusterplace.codecs import decode, read_documents
from clusterplace.codecs.loader import Document
from clusterplace.codecs.sources import read_regular_file
from clusterplace.defkit.cue_reader import CueReadError, read_struct, top_level_blocks
from clusterplace.defkit.definitions import (
    ComponentDefinition,
    Definition,
    PolicyDefinition,
    TraitDefinition,
    WorkflowStepDefinition,
)
from clusterplace.defkit.placement import LabelCondition, PlacementConstraints
from clusterplace.defkit.registry import DefinitionError, collecting, name_problem
from clusterplace.errors import InputError, InputErrors, Location
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

    def hooks(self) -> list[Hook]:
        """Every hook of ``spec.hooks``, pre-apply then post-apply."""
        hooks = self.metadata.spec.hooks if self.metadata else None
        if hooks is None:
            return []
        return [*(hooks.pre_apply or []), *(hooks.post_apply or [])]

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
    if not module_yaml.exists() and not module_yaml.is_symlink():
        return None
    documents = read_documents([read_regular_file(module_yaml)])
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


def _run_python(file: Path, text: str) -> None:
    """Run a definition file's ``text`` as ``runpy.run_path`` would (a module of its
    own, registered while it runs), but from text read within the input bounds, so that
    a FIFO or ``/dev/zero`` named ``*.py`` is refused instead of read for ever."""
    code = compile(text, str(file), "exec", dont_inherit=True)
    name = f"clusterplace_module_{file.stem}"
    module = types.ModuleType(name)
    module.__file__ = str(file)
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    finally:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous


@contextlib.contextmanager
def _process_state_kept() -> Iterator[None]:
    """Undo what a definition file may change for the whole process and that would
    silently break the rest of the run: the working directory (relative module paths
    would then find nothing), the recursion limit, and standard output and error."""
    cwd = Path.cwd()
    limit = sys.getrecursionlimit()
    streams = (sys.stdout, sys.stderr)
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.setrecursionlimit(limit)
        sys.stdout, sys.stderr = streams


def _load_python(file: Path) -> list[Definition]:
    text = read_regular_file(file).text
    with collecting() as registered, _process_state_kept():
        sys.path.insert(0, str(file.parent))
        try:
            _run_python(file, text)
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
        except KeyboardInterrupt:
            raise  # Ctrl-C, or as good as: stop as for Ctrl-C
        except BaseException as err:  # the user's code: report where it failed, no traceback
            message = f"{type(err).__name__}: {err}"
            raise InputError(
                message, Location(file=str(file), line=_error_line(err, file))
            ) from None
        finally:
            sys.path.remove(str(file.parent))
    return list(registered)


def _load_cue(file: Path, expected: type[Definition]) -> Definition:
    text = read_regular_file(file).text
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
    problem = name_problem(definition)
    if problem:
        label_at = text.rfind(":", 0, at)  # the block's label ends just before its value
        raise InputError(problem, Location(file=str(file), line=text.count("\n", 0, label_at) + 1))
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
        try:
            files = sorted(folder.iterdir())
        except OSError as err:
            raise InputError(
                f"cannot read directory: {err.strerror}", Location(file=str(folder))
            ) from None
        for file in files:
            if file.name.startswith(("_", ".")) or file.suffix not in (".py", ".cue"):
                continue
            try:
                found = _load_python(file) if file.suffix == ".py" else [_load_cue(file, cls)]
            except InputError as err:
                problems.append(err)
                continue
            for definition in found:  # names were checked as they were registered or read
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
