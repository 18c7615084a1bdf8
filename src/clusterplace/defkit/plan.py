"""Which definitions of a module go to a cluster, and why: a pure decision, kept apart
from installing them (as OCM keeps scheduling apart from recording decisions).

``apply-module`` installs what the plan says, ``plan-module`` prints it for every
cluster of a fleet, and a program can ask it directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clusterplace.defkit.module import LoadedDefinition, Module
from clusterplace.defkit.placement import evaluate, get_effective_placement

__all__ = ["Verdict", "plan"]


@dataclass(frozen=True)
class Verdict:
    """One definition's fate on one cluster. ``checked`` is False when the definition
    (with the module's placement) has no placement at all: it goes everywhere."""

    loaded: LoadedDefinition
    eligible: bool
    reason: str
    checked: bool

    @property
    def kind(self) -> str:
        return self.loaded.definition.KIND

    @property
    def name(self) -> str:
        return self.loaded.definition.name


def plan(module: Module, labels: Mapping[str, str], types: Sequence[str] = ()) -> list[Verdict]:
    """A verdict for each definition of ``module`` (of ``types``, when given) on a cluster
    whose identity labels are ``labels``, in the module's order."""
    verdicts = []
    for loaded in module.definitions:
        definition = loaded.definition
        if types and definition.TYPE not in types:
            continue
        effective = get_effective_placement(module.placement, definition.placement)
        result = evaluate(effective, dict(labels))
        checked = not effective.is_empty()
        verdicts.append(Verdict(loaded, result.eligible, result.reason, checked))
    return verdicts
