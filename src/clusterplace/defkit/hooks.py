"""Module hooks: ``pre-apply`` and ``post-apply`` steps that run whatever placement decides.

A hook is either ``path`` (manifests, a file or a directory, relative to the module,
applied to the same store as the definitions) or ``script`` (run with ``sh -c`` in the
module directory). A failing hook stops the run unless it is ``optional``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from clusterplace.api import Hook
from clusterplace.api.module import MAX_HOOK_TIMEOUT
from clusterplace.codecs import expand_sources, read_documents
from clusterplace.codecs.loader import Document, require_unique_identities
from clusterplace.defkit.script_runner import run_script
from clusterplace.defkit.stores import DefinitionStore
from clusterplace.durations import DurationError, parse_go_duration
from clusterplace.errors import ClusterplaceError
from clusterplace.safepath import resolve_inside

__all__ = ["HookError", "HookResult", "check_hook_manifests", "run_hooks"]

DEFAULT_TIMEOUT = 300.0


class HookError(ClusterplaceError):
    """A required hook failed."""


@dataclass
class HookResult:
    created: int = 0
    updated: int = 0
    optional_failed: int = 0


def _timeout(text: str | None) -> float:
    """The hook's timeout in seconds (module.yaml loading has validated it)."""
    if not text:
        return DEFAULT_TIMEOUT
    try:
        seconds = parse_go_duration(text)
    except DurationError as err:
        raise HookError(str(err)) from None
    if not 0 < seconds <= MAX_HOOK_TIMEOUT:
        raise HookError(f'timeout "{text}" must be more than 0 and at most 24h')
    return seconds


def _name(hook: Hook) -> str:
    """How a hook is shown: its path, or the first line of its script."""
    if hook.path:
        return hook.path
    lines = (hook.script or "").strip().splitlines()
    return lines[0] if lines else "<empty>"


def run_hooks(
    phase: str,
    hooks: Sequence[Hook],
    module_dir: Path,
    store: DefinitionStore,
    namespace: str,
    dry_run: bool,
    echo: Callable[[str], None],
) -> HookResult:
    result = HookResult()
    echo(f"Running {phase} hooks...")
    for hook in hooks:
        name = _name(hook)
        if dry_run:
            what = f"apply {hook.path}" if hook.path else "run script"
            echo(f"  [dry-run] Would {what}")
            continue
        try:
            if hook.path:
                target = resolve_inside(module_dir, hook.path, what="hook path")
                created, updated = _apply_path(target, store, namespace)
                result.created += created
                result.updated += updated
                echo(f"  ✓ {name}: {created} created, {updated} updated")
            elif hook.script:
                _run_script(hook.script, module_dir, _timeout(hook.timeout))
                echo(f"  ✓ {name}")
            else:
                raise HookError("a hook needs a path or a script")
        except (HookError, ClusterplaceError) as err:
            if hook.optional:
                result.optional_failed += 1
                echo(f"  ✗ {name}: {err} (optional, continuing)")
                continue
            raise HookError(f"{phase} hook {name} failed: {err}") from None
    echo("")
    return result


def _manifests(path: Path) -> list[Document]:
    """The objects of a ``path`` hook: checked like any input (names, metadata,
    duplicates), since they go into a store (a directory, or a cluster)."""
    documents = read_documents(expand_sources([str(path)], recursive=True))
    require_unique_identities(documents)
    return documents


def check_hook_manifests(module_dir: Path, hooks: Sequence[Hook]) -> list[str]:
    """Read the manifests of every ``path`` hook, as ``apply-module`` will, so that
    ``validate-module`` finds a bad object before anything runs. Raises the input's
    error; returns warnings for paths that do not exist (yet: a script hook may make
    them)."""
    warnings = []
    for hook in hooks:
        if hook.path is None:
            continue
        target = resolve_inside(module_dir, hook.path, what="hook path")
        if not target.exists():
            warnings.append(
                f"hook path {hook.path} does not exist (apply-module fails unless "
                "a script hook creates it first)"
            )
            continue
        _manifests(target)
    return warnings


def _apply_path(path: Path, store: DefinitionStore, namespace: str) -> tuple[int, int]:
    if not path.exists():
        raise HookError(f"{path} does not exist")
    created = updated = 0
    for doc in _manifests(path):
        obj = dict(doc.data)
        meta = dict(obj.get("metadata") or {})
        meta.setdefault("namespace", namespace)
        obj["metadata"] = meta
        existing = store.get(
            str(obj.get("apiVersion")),
            str(obj.get("kind")),
            meta["namespace"],
            str(meta.get("name")),
        )
        if existing is None:
            store.create(obj)
            created += 1
        else:
            store.update(obj)
            updated += 1
    return created, updated


def _run_script(script: str, cwd: Path, timeout: float) -> None:
    """Run ``script`` with ``sh -c`` in its own session; see :mod:`.script_runner`."""
    done = run_script(script, cwd, timeout)
    if done.timed_out:
        raise HookError(f"timed out after {timeout:g}s")
    if done.code != 0:
        raise HookError(f"exit code {done.code}: {done.last_line() or 'no output'}")
