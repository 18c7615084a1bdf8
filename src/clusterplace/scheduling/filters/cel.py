"""CEL cluster predicates: ``managedCluster`` is the whole cluster object, and
``managedCluster.scores("<resource>")`` lists the cluster's AddOnPlacementScore items.

Uses the ``common-expression-language`` package. Upstream type-checks expressions
against the declared ``managedCluster`` variable, so a reference to any other
variable is a compile error there; the library here only parses, so that check is
made on the parsed program's references.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cel
from cel.stdlib import add_stdlib_to_context

from clusterplace.scheduling.filters.cel_library import FUNCTIONS

__all__ = ["CelCompileError", "CelProgram", "compile_expression"]

VARIABLE = "managedCluster"
_COMPREHENSION_VARS = re.compile(
    r"\.\s*(?:all|exists|exists_one|existsOne|map|filter|transformList|transformMap)\s*\(\s*"
    r"([A-Za-z_][A-Za-z0-9_]*)\s*,(?:\s*([A-Za-z_][A-Za-z0-9_]*)\s*,)?"
)


class CelCompileError(ValueError):
    """The expression does not compile; the message reads as upstream's ``compilation failed``."""


# None (null in CEL) for a missing score object: any use of it is an evaluation error.
ScoresLookup = Callable[[str], list[dict[str, Any]] | None]


@dataclass(frozen=True)
class CelProgram:
    source: str
    program: Any

    def matches(self, cluster: dict[str, Any], scores: ScoresLookup) -> bool:
        """True only when the expression evaluates to boolean true; any error is a non-match."""
        context = cel.Context()
        add_stdlib_to_context(context)
        context.add_variable(VARIABLE, cluster)
        context.add_function("scores", lambda _cluster, resource: scores(resource))
        for name, function in FUNCTIONS.items():
            context.add_function(name, function)
        try:
            result = self.program.execute(context)
        except Exception:  # an evaluation error means "does not match", as upstream
            return False
        return result is True


def _position(source: str, name: str) -> tuple[int, int]:
    match = re.search(rf"(?<![\w.]){re.escape(name)}\b", source)
    offset = match.start() if match else 0
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return line, column


def compile_expression(source: str) -> CelProgram:
    """Parse ``source`` and check that it refers to no variable but ``managedCluster``."""
    try:
        program = cel.compile(source)
    except Exception as err:  # the library raises ValueError with the parser's report
        raise CelCompileError(f"compilation failed: {_clean(str(err))}") from None
    bound = {v for pair in _COMPREHENSION_VARS.findall(source) for v in pair if v}
    unknown = sorted(set(program.references()["variables"]) - bound - {VARIABLE})
    if unknown:
        line, column = _position(source, unknown[0])
        raise CelCompileError(
            f"compilation failed: ERROR: <input>:{line}:{column}: undeclared reference to "
            f"'{unknown[0]}' (in container '')"
        )
    return CelProgram(source, program)


def _clean(message: str) -> str:
    # "Failed to parse expression '...': ERROR: <input>:1:4: ..." -> "ERROR: <input>:1:4: ..."
    marker = message.find("ERROR:")
    return message[marker:] if marker >= 0 else message


def compile_all(sources: Sequence[str]) -> list[CelProgram]:
    return [compile_expression(s) for s in sources]
