"""CEL cluster predicates: ``managedCluster`` is the whole cluster object, and
``managedCluster.scores("<resource>")`` lists the cluster's AddOnPlacementScore items.

Uses the ``common-expression-language`` package. Upstream type-checks expressions
against the declared ``managedCluster`` variable, so a reference to any other
variable is a compile error there; the library here only parses, so that check is
made on the parsed program's references. Evaluation is metered (see
:mod:`.cel_cost`): an expression over the cost limit fails, as upstream.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterplace.errors import ClusterplaceError
from clusterplace.scheduling.filters.cel_cost import (
    COST_FUNCTION,
    CostExceeded,
    Meter,
    instrument,
)
from clusterplace.scheduling.filters.cel_library import FUNCTIONS

__all__ = ["CelCompileError", "CelProgram", "Meter", "compile_expression"]

VARIABLE = "managedCluster"
MAX_EXPRESSION_LENGTH = 64 * 1024  # the native parser never sees more
_COMPREHENSION_VARS = re.compile(
    r"\.\s*(?:all|exists|exists_one|existsOne|map|filter|transformList|transformMap)\s*\(\s*"
    r"([A-Za-z_][A-Za-z0-9_]*)\s*,(?:\s*([A-Za-z_][A-Za-z0-9_]*)\s*,)?"
)


@functools.cache
def _engine() -> Any:
    """The CEL package, imported when an expression is first compiled: importing it
    costs about a tenth of a second (it pulls in its command-line tools), which every
    run without CEL would otherwise pay."""
    import cel

    return cel


@functools.cache
def _stdlib() -> Any:
    from cel.stdlib import add_stdlib_to_context

    return add_stdlib_to_context


def _context() -> Any:
    context = _engine().Context()
    _stdlib()(context)
    return context


class CelCompileError(ClusterplaceError, ValueError):
    """The expression does not compile; the message reads as upstream's ``compilation failed``."""


# None (null in CEL) for a missing score object: any use of it is an evaluation error.
ScoresLookup = Callable[[str], list[dict[str, Any]] | None]


@dataclass
class _Evaluation:
    """What the Python functions of one evaluation saw: the first error they raised."""

    meter: Meter
    error: str | None = None
    muted: list[int] = field(default_factory=list)  # saved stderr fd while muted


_stderr_lock = threading.Lock()


def _mute_stderr(state: _Evaluation) -> None:
    """The engine prints a line to file descriptor 2 for every exception a Python
    function raises; silence it until the evaluation ends (see :func:`_evaluation`).
    The error is reported instead, as the reason the cluster was not selected."""
    if state.muted:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if sys.stderr is not None:
            sys.stderr.flush()
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        state.muted.append(saved)


@contextlib.contextmanager
def _evaluation(meter: Meter) -> Iterator[_Evaluation]:
    state = _Evaluation(meter)
    with _stderr_lock:
        try:
            yield state
        finally:
            for saved in state.muted:
                os.dup2(saved, 2)
                os.close(saved)


def _guarded(function: Callable[..., Any], state: _Evaluation, name: str) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            return function(*args)
        except Exception as err:
            if state.error is None:
                state.error = str(err) if isinstance(err, CostExceeded) else f"{name}: {err}"
            _mute_stderr(state)
            raise

    return call


@dataclass(frozen=True)
class CelProgram:
    source: str
    program: Any

    def evaluate(self, cluster: dict[str, Any], scores: ScoresLookup, meter: Meter) -> str | None:
        """None when the expression is boolean true for the cluster; otherwise why not
        (false, not a boolean, or what failed in the evaluation)."""
        meter.start()
        with _evaluation(meter) as state:
            context = _context()
            context.add_variable(VARIABLE, cluster)
            context.add_function(
                "scores", _guarded(lambda _cluster, resource: scores(resource), state, "scores")
            )
            context.add_function(COST_FUNCTION, _guarded(_charge(meter), state, "cost"))
            for name, function in FUNCTIONS.items():
                context.add_function(name, _guarded(function, state, name))
            try:
                result = self.program.execute(context)
            except Exception as err:  # an evaluation error means "does not match", as upstream
                return f"failed: {state.error or _runtime_reason(err)}"
        if result is True:
            return None
        if result is False:
            return "is false"
        return f"is not a boolean but {type(result).__name__} {_short(repr(result))}"


def _charge(meter: Meter) -> Callable[[int, Any], Any]:
    def charge(units: int, value: Any) -> Any:
        meter.charge(units)
        return value

    return charge


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _runtime_reason(err: Exception) -> str:
    """What failed, in cel-go's words where the engine's differ: it raises a bare
    ``KeyError('zone')`` for a missing map key, which would read as just ``'zone'``."""
    if isinstance(err, KeyError) and len(err.args) == 1:
        return _short(f"no such key: {err.args[0]}", 200)
    return _clean_runtime(str(err))


def _clean_runtime(message: str) -> str:
    return _short(message.strip().splitlines()[0] if message.strip() else "error", 200)


def _position(source: str, name: str) -> tuple[int, int]:
    match = re.search(rf"(?<![\w.]){re.escape(name)}\b", source)
    offset = match.start() if match else 0
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return line, column


def compile_expression(source: str) -> CelProgram:
    """Parse ``source`` and check that it refers to no variable but ``managedCluster``."""
    if len(source) > MAX_EXPRESSION_LENGTH:
        raise CelCompileError(
            f"compilation failed: expression is {len(source)} characters long, "
            f"more than {MAX_EXPRESSION_LENGTH}"
        )
    try:
        program = _engine().compile(source)
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
    metered = instrument(source)
    if metered != source:
        try:
            program = _engine().compile(metered)
        except Exception as err:  # never evaluate unmetered: refuse instead
            raise CelCompileError(
                f"compilation failed: the expression cannot be cost-metered: {_clean(str(err))}"
            ) from None
    return CelProgram(source, program)


def _clean(message: str) -> str:
    # "Failed to parse expression '...': ERROR: <input>:1:4: ..." -> "ERROR: <input>:1:4: ..."
    marker = message.find("ERROR:")
    return message[marker:] if marker >= 0 else message


def compile_all(sources: Sequence[str]) -> list[CelProgram]:
    return [compile_expression(s) for s in sources]
