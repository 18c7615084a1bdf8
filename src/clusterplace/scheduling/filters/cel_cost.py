"""A runtime cost limit for CEL, for an engine that has none.

Upstream evaluates each expression with Kubernetes' per-call cost limit and charges a
cluster's expressions against one runtime budget; an expression over either fails, and
the cluster is not selected. The engine used here (``common-expression-language``) has
no cost tracking, so the cost is metered by rewriting the expression: the step
expression of every comprehension macro (``all``, ``exists``, ``exists_one``, ``map``,
``filter``...) is wrapped in a call that adds its size to a running total each time
it is evaluated, and stops the evaluation once the total passes the limit.

Only comprehensions are metered: everything else costs at most a small multiple of
the expression's length. The unit is one syntax token of a step expression per
iteration, close to cel-go's one unit per evaluated node, but not equal to it, so an
expression near the limit may pass here and fail upstream or the other way round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from clusterplace.errors import ClusterplaceError

__all__ = [
    "COST_FUNCTION",
    "PER_CALL_LIMIT",
    "RUNTIME_BUDGET",
    "CostExceeded",
    "Meter",
    "instrument",
]

PER_CALL_LIMIT = 1_000_000  # k8s.io/apiserver/pkg/apis/cel PerCallLimit
RUNTIME_BUDGET = 10_000_000  # RuntimeCELCostBudget: all of a cluster's expressions
COST_FUNCTION = "__clusterplace_cost"

_MACROS = re.compile(
    r"\.\s*(all|exists|exists_one|existsOne|map|filter|transformList|transformMap|"
    r"transformMapEntry)\s*\("
)
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.\[\]{}]")


class CostExceeded(ClusterplaceError):
    """The evaluation passed its cost limit."""


@dataclass
class Meter:
    """The running cost of one cluster's evaluations."""

    limit: int = PER_CALL_LIMIT
    budget: int = RUNTIME_BUDGET
    spent: int = 0  # by the expression being evaluated
    total: int = 0  # by the cluster's expressions so far
    exceeded: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.spent = 0

    def charge(self, units: int) -> None:
        self.spent += units
        self.total += units
        if self.spent > self.limit:
            raise CostExceeded(f"actual cost limit exceeded (limit {self.limit})")
        if self.total > self.budget:
            raise CostExceeded(f"runtime cost budget exceeded (budget {self.budget})")


def _skip_string(source: str, at: int) -> int:
    """The index after the string literal starting at ``at`` (quotes, triple quotes,
    raw and bytes prefixes are handled by the caller passing the quote's index)."""
    quote = source[at]
    triple = source.startswith(quote * 3, at)
    end_mark = quote * 3 if triple else quote
    i = at + len(end_mark)
    raw = at > 0 and source[at - 1] in "rR"
    while i < len(source):
        if not raw and source[i] == "\\":
            i += 2
            continue
        if source.startswith(end_mark, i):
            return i + len(end_mark)
        i += 1
    return len(source)


def _arguments(source: str, start: int) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of the top-level arguments of a call whose '(' is at ``start - 1``, and
    the index of its ')'; None when the parentheses do not close."""
    spans: list[tuple[int, int]] = []
    depth = 0
    begin = i = start
    while i < len(source):
        ch = source[i]
        if ch in "'\"":
            i = _skip_string(source, i)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                spans.append((begin, i))
                return spans, i
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
        i += 1
    return None


def _macro_calls(source: str) -> list[re.Match[str]]:
    """Macro calls outside string literals."""
    found: list[re.Match[str]] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch in "'\"":
            i = _skip_string(source, i)
            continue
        if ch == ".":
            match = _MACROS.match(source, i)
            if match:
                found.append(match)
                i = match.end()
                continue
        i += 1
    return found


def instrument(source: str) -> str:
    """``source`` with the step expression of each comprehension metered (unchanged when
    it has none). Nested comprehensions are metered too, each by its own size."""
    calls = _macro_calls(source)
    if not calls:
        return source
    # Innermost first would shift offsets; rewrite the first call's last argument
    # (recursively instrumented) and continue after it.
    match = calls[0]
    parsed = _arguments(source, match.end())
    if parsed is None:
        return source  # the parser reports the syntax error
    spans, close = parsed
    if len(spans) < 2:
        return source[: match.end()] + instrument(source[match.end() :])
    begin, end = spans[-1]
    body = source[begin:end]
    units = 1 + len(_TOKEN.findall(body))
    inner = instrument(body)
    head = instrument(source[match.end() : begin])
    return (
        source[: match.end()]
        + head
        + f"{COST_FUNCTION}({units}, {inner})"
        + source[end:close]
        + instrument(source[close:])
    )
