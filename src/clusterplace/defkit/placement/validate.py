"""``validate_placement``: upstream's conflict rules and messages, plus an exact mode.

Upstream (``ValidatePlacement``) flags a handful of RunOn/NotRunOn patterns that can
never be eligible and misses others. ``strict=True`` adds an exact satisfiability
check (see :mod:`clusterplace.defkit.placement.satisfiability`), which also catches
contradictions within RunOn and through ``Not``.
"""

from __future__ import annotations

from clusterplace.defkit.placement.conditions import (
    AllCondition,
    AnyCondition,
    ClusterCondition,
    Eq,
    Exists,
    In,
    LabelCondition,
    NotCondition,
    NotExists,
)
from clusterplace.defkit.placement.satisfiability import find_labels, first_unsatisfiable
from clusterplace.defkit.placement.spec import PlacementConstraints
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import Labels

__all__ = ["ValidationError", "validate_placement"]


class ValidationError(ClusterplaceError, ValueError):
    """Conflicting placement: ``message`` and the String() of the conflicting pair."""

    def __init__(self, message: str, run_on: str = "", not_run_on: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.run_on = run_on
        self.not_run_on = not_run_on

    def __str__(self) -> str:
        return self.message


def _message(reason: str) -> str:
    return f"conflicting placement constraints: {reason} - definition may never be eligible to run"


def _required(condition: ClusterCondition) -> list[ClusterCondition]:
    if isinstance(condition, AllCondition):
        return [leaf for inner in condition.conditions for leaf in _required(inner)]
    return [condition]


def _excluders(condition: ClusterCondition) -> list[ClusterCondition]:
    if isinstance(condition, AnyCondition):
        return [leaf for inner in condition.conditions for leaf in _excluders(inner)]
    return [condition]


def _leaves(condition: ClusterCondition | None) -> list[LabelCondition]:
    if isinstance(condition, LabelCondition):
        return [condition]
    if isinstance(condition, AllCondition | AnyCondition):
        return [leaf for inner in condition.conditions for leaf in _leaves(inner)]
    if isinstance(condition, NotCondition):
        return _leaves(condition.condition)
    return []


def label_conflict(run: LabelCondition, not_run: LabelCondition) -> str | None:
    """Why RunOn ``run`` and NotRunOn ``not_run`` (same key) conflict, per upstream's table."""
    if run.key != not_run.key:
        return None
    key, r_op, n_op, rv, nv = run.key, run.operator, not_run.operator, run.values, not_run.values
    if r_op in (Eq, In) and n_op == Exists:
        return (
            f"RunOn requires '{key}' to have a specific value, "
            f"but NotRunOn excludes when '{key}' exists"
        )
    if r_op == Exists and n_op == Exists:
        return f"'{key} exists' is in both RunOn and NotRunOn"
    if r_op == Eq and n_op == Eq and rv and nv and rv[0] == nv[0]:
        return f"'{key} = {rv[0]}' is required by RunOn but excluded by NotRunOn"
    # Every RunOn value (duplicates counted, so In() is vacuously all) is excluded.
    if r_op == In and n_op == In and sum(1 for v in rv if v in nv) == len(rv):
        return (
            f"all values for '{key}' required by RunOn ({', '.join(rv)}) are excluded by NotRunOn"
        )
    if r_op == Eq and n_op == In and rv and rv[0] in nv:
        return f"'{key} = {rv[0]}' is required by RunOn but '{rv[0]}' is in NotRunOn exclusion list"
    if r_op == In and n_op == Eq and nv and nv[0] in rv and len(rv) == 1:
        return f"the only allowed value '{nv[0]}' for '{key}' is excluded by NotRunOn"
    if r_op == Exists and n_op == NotExists:
        return f"'{key}' must exist (RunOn) but must not exist (NotRunOn)"
    return None


def _leaf_conflict(required: ClusterCondition, excluder: ClusterCondition) -> str | None:
    if isinstance(required, LabelCondition) and isinstance(excluder, LabelCondition):
        return label_conflict(required, excluder)
    if isinstance(required, AnyCondition) and isinstance(excluder, LabelCondition):
        options = required.conditions
        if options and all(
            isinstance(o, LabelCondition) and label_conflict(o, excluder) for o in options
        ):
            return f"all options in '{required}' are excluded by '{excluder}'"
    if (
        isinstance(excluder, AllCondition)
        and isinstance(required, LabelCondition)
        and len(excluder.conditions) == 1
    ):
        inner = excluder.conditions[0]
        if isinstance(inner, LabelCondition):
            return label_conflict(required, inner)
    return None


def _any_overlap(run: AnyCondition, not_run: AnyCondition) -> bool:
    run_leaves, not_leaves = _leaves(run), _leaves(not_run)
    covered = sum(
        1 for a in run_leaves if any(str(a) == str(b) or label_conflict(a, b) for b in not_leaves)
    )
    return bool(run_leaves) and covered == len(run_leaves)


def _composite(run: ClusterCondition, not_run: ClusterCondition) -> str | None:
    if (
        isinstance(run, AnyCondition)
        and isinstance(not_run, AnyCondition)
        and _any_overlap(run, not_run)
    ):
        return f"Any conditions overlap: RunOn({run}) conflicts with NotRunOn({not_run})"
    if isinstance(run, AllCondition) and isinstance(not_run, AnyCondition):
        for r in run.conditions:
            for n in not_run.conditions:
                if str(r) == str(n):
                    return f"'{r}' is required by All() but excluded by Any() in NotRunOn"
                if isinstance(r, LabelCondition) and isinstance(n, LabelCondition):
                    reason = label_conflict(r, n)
                    if reason:
                        return f"condition in All() conflicts with Any() in NotRunOn: {reason}"
    return None


def conditions_conflict(run: ClusterCondition, not_run: ClusterCondition) -> str | None:
    """Upstream ``conditionsConflict``: the reason, or None."""
    if str(run) == str(not_run):
        return f"identical condition '{run}' in both RunOn and NotRunOn"
    for required in _required(run):
        for excluder in _excluders(not_run):
            reason = _leaf_conflict(required, excluder)
            if reason:
                return reason
    return _composite(run, not_run)


def _upstream_conflict(spec: PlacementConstraints) -> ValidationError | None:
    for run in spec.run_on:
        for not_run in spec.not_run_on:
            reason = conditions_conflict(run, not_run)
            if reason:
                return ValidationError(_message(reason), str(run), str(not_run))
    return None


def validate_placement(
    spec: PlacementConstraints, *, strict: bool = False, witness: bool = False
) -> Labels | None:
    """Raise :class:`ValidationError` for conflicting constraints.

    Default: upstream's rules and messages (the first conflicting RunOn × NotRunOn pair;
    its pattern rules can flag specs that some labels do satisfy, and miss others).
    ``strict``: decide exactly instead, raising only when no label set is eligible (with
    upstream's message when its rules also caught the conflict). ``witness`` (implies
    ``strict``): return an eligible label set.
    """
    if spec.is_empty():
        return {} if witness else None
    upstream = _upstream_conflict(spec)
    if not (strict or witness):
        if upstream is not None:
            raise upstream
        return None
    found = find_labels(spec)
    if found is None:
        if upstream is not None:
            raise upstream
        run_text, not_text, reason = first_unsatisfiable(spec)
        raise ValidationError(_message(reason), run_text, not_text)
    return found if witness else None
