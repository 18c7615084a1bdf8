"""Typed edits to a fleet: what ``what-if --set/--unset`` and ``--why-not`` speak.

Two jobs, two modules: :mod:`.language` parses and checks the ``KIND/NAME:FIELD=VALUE``
expressions, :mod:`.apply` applies them to copies of the fleet's objects. Every public
name is importable from here, as before the split.
"""

from clusterplace.scheduling.edits.apply import EditedObject, apply_edits
from clusterplace.scheduling.edits.language import (
    BUILT_INS,
    EFFECTS,
    KINDS,
    Edit,
    EditError,
    parse_edit,
    parse_edits,
    parse_taint,
    parse_toleration,
    selector_expressions,
)

__all__ = [
    "BUILT_INS",
    "EFFECTS",
    "KINDS",
    "Edit",
    "EditError",
    "EditedObject",
    "apply_edits",
    "parse_edit",
    "parse_edits",
    "parse_taint",
    "parse_toleration",
    "selector_expressions",
]
