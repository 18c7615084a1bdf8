"""Exact satisfiability of a placement spec: can any label set be eligible?

Each key a condition mentions is either absent or holds a value; only the values the
conditions mention, plus one value none of them mentions, can behave differently. A
backtracking search over those choices, key by key, prunes as soon as the RunOn
conjunction or a NotRunOn condition is decided the wrong way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from clusterplace.defkit.placement.conditions import (
    AllCondition,
    AnyCondition,
    ClusterCondition,
    LabelCondition,
    NotCondition,
)
from clusterplace.defkit.placement.spec import PlacementConstraints

__all__ = ["find_labels", "first_unsatisfiable"]

_ABSENT = None


def _label_leaves(condition: ClusterCondition | None) -> Iterator[LabelCondition]:
    if isinstance(condition, LabelCondition):
        yield condition
    elif isinstance(condition, AllCondition | AnyCondition):
        for inner in condition.conditions:
            yield from _label_leaves(inner)
    elif isinstance(condition, NotCondition):
        yield from _label_leaves(condition.condition)


def _domains(conditions: Sequence[ClusterCondition]) -> dict[str, list[str | None]]:
    values: dict[str, set[str]] = {}
    for condition in conditions:
        for leaf in _label_leaves(condition):
            values.setdefault(leaf.key, set()).update(leaf.values)
    domains: dict[str, list[str | None]] = {}
    for key, seen in sorted(values.items()):
        fresh = "other"
        while fresh in seen:
            fresh += "-x"
        domains[key] = [*sorted(seen), fresh, _ABSENT]
    return domains


def _partial(condition: ClusterCondition, assigned: dict[str, str | None]) -> bool | None:
    """Three-valued evaluation: True, False, or None while a key it reads is unassigned."""
    if isinstance(condition, LabelCondition):
        if condition.key not in assigned:
            return None
        value = assigned[condition.key]
        return condition.evaluate({} if value is None else {condition.key: value})
    if isinstance(condition, AllCondition | AnyCondition):
        results = [_partial(c, assigned) for c in condition.conditions]
        decisive = isinstance(condition, AnyCondition)  # True decides Any, False decides All
        if decisive in results:
            return decisive
        return None if None in results else not decisive
    if isinstance(condition, NotCondition):
        if condition.condition is None:
            return True
        inner = _partial(condition.condition, assigned)
        return None if inner is None else not inner
    return False


def _search(
    run: Sequence[ClusterCondition],
    avoid: Sequence[ClusterCondition],
    domains: dict[str, list[str | None]],
) -> dict[str, str | None] | None:
    keys = list(domains)
    assigned: dict[str, str | None] = {}

    def consistent() -> bool:
        return all(_partial(c, assigned) is not False for c in run) and all(
            _partial(c, assigned) is not True for c in avoid
        )

    def step(index: int) -> bool:
        if not consistent():
            return False
        if index == len(keys):
            return True
        for value in domains[keys[index]]:
            assigned[keys[index]] = value
            if step(index + 1):
                return True
        del assigned[keys[index]]
        return False

    return dict(assigned) if step(0) else None


def find_labels(spec: PlacementConstraints) -> dict[str, str] | None:
    """A label set on which ``spec`` is eligible, or None when there is none."""
    domains = _domains([*spec.run_on, *spec.not_run_on])
    found = _search(spec.run_on, spec.not_run_on, domains)
    if found is None:
        return None
    return {k: v for k, v in sorted(found.items()) if v is not None}


def first_unsatisfiable(spec: PlacementConstraints) -> tuple[str, str, str]:
    """(RunOn text, NotRunOn text, reason) naming the smallest conflicting part found."""
    run = list(spec.run_on)
    for i, condition in enumerate(run):
        if _search([condition], [], _domains([condition])) is None:
            return str(condition), "", f"'{condition}' in RunOn can never hold"
        for other in run[:i]:
            pair = [other, condition]
            if _search(pair, [], _domains(pair)) is None:
                return (
                    f"{other}, {condition}",
                    "",
                    f"'{other}' and '{condition}' in RunOn can never hold together",
                )
    for not_run in spec.not_run_on:
        if _search(run, [not_run], _domains([*run, not_run])) is None:
            runs = ", ".join(str(c) for c in run)
            return (
                runs,
                str(not_run),
                f"whenever RunOn ({runs}) holds, NotRunOn '{not_run}' matches",
            )
    runs = ", ".join(str(c) for c in run)
    nots = ", ".join(str(c) for c in spec.not_run_on)
    return (
        runs,
        nots,
        f"no cluster labels satisfy RunOn ({runs}) without matching NotRunOn ({nots})",
    )
