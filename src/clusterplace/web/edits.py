"""What-if edits checked one by one, as the page adds them: each parsed by the edit
language and applied (on copies) to the fleet after the valid edits before it, so an
edit that cannot be parsed, names an object the fleet does not have or makes an object
invalid is refused with its own error, before anything is scheduled."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clusterplace.api import Fleet
from clusterplace.scheduling import Edit, EditError, parse_edit
from clusterplace.scheduling.edits import apply_edits

__all__ = ["EditCheck", "check_edits"]


@dataclass(frozen=True)
class EditCheck:
    """One edit as sent (``op`` set or unset) and why it is invalid (None: valid)."""

    op: str
    expression: str
    error: str | None = None


def check_edits(fleet: Fleet, edits: Sequence[tuple[str, str]]) -> list[EditCheck]:
    """Each ``(op, expression)`` checked in the order what-if applies them (every unset,
    then every set, each in the order given); an edit is checked after the valid ones
    before it that edit the same object. Answers in the order given."""
    errors: dict[int, str] = {}
    parsed: list[tuple[int, Edit]] = []
    for i, (op, expression) in enumerate(edits):
        try:
            parsed.append((i, parse_edit(expression, unset=op == "unset", where=f"--{op}")))
        except EditError as err:
            errors[i] = str(err)
    order = [p for p in parsed if p[1].unset] + [p for p in parsed if not p[1].unset]
    kept: dict[tuple[str, str], list[Edit]] = {}
    for i, edit in order:
        before = kept.get((edit.kind, edit.ref), [])
        try:
            apply_edits(fleet, [*before, edit])
        except EditError as err:
            errors[i] = str(err)
            continue
        kept[(edit.kind, edit.ref)] = [*before, edit]
    return [EditCheck(op, expression, errors.get(i)) for i, (op, expression) in enumerate(edits)]
