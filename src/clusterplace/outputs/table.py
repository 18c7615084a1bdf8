"""kubectl-style aligned columns (cli-runtime's tabwriter: padding 3, upper-case headers).

Hand-written on purpose: rich truncates cells when output is piped.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_table"]

_PADDING = 3


def format_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    no_headers: bool = False,
    upper: bool = True,
) -> str:
    """Rows as aligned text; every cell padded to its column's widest cell plus 3 spaces,
    except the last column, which is never padded (as kubectl prints it)."""
    head = [[h.upper() if upper else h for h in headers]] if not no_headers else []
    table = head + [list(r) for r in rows]
    if not table:
        return ""
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    lines = []
    for row in table:
        cells = [cell.ljust(widths[i] + _PADDING) for i, cell in enumerate(row[:-1])]
        lines.append(("".join(cells) + row[-1]).rstrip())
    return "\n".join(lines) + "\n"
