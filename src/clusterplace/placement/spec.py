"""Placement specs, their evaluation against cluster labels, and module inheritance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clusterplace.labels import Labels
from clusterplace.placement.conditions import Condition

__all__ = ["PlacementResult", "PlacementSpec", "evaluate", "get_effective_placement"]


@dataclass(frozen=True)
class PlacementSpec:
    """Where a definition may run: every RunOn condition holds and no NotRunOn one does."""

    run_on: Sequence[Condition] = field(default_factory=tuple)
    not_run_on: Sequence[Condition] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_on", tuple(self.run_on))
        object.__setattr__(self, "not_run_on", tuple(self.not_run_on))

    def is_empty(self) -> bool:
        return not self.run_on and not self.not_run_on


@dataclass(frozen=True)
class PlacementResult:
    """The verdict for one cluster. Matched lists are None when nothing matched (as Go's nil)."""

    eligible: bool
    reason: str
    matched_run_on: list[str] | None = None
    matched_not_run_on: list[str] | None = None


def evaluate(spec: PlacementSpec, labels: Labels | None) -> PlacementResult:
    """Upstream ``Evaluate``: RunOn all evaluated (reason lists the failed ones), then the
    first matching NotRunOn excludes; reasons are upstream's exact strings."""
    labels = labels or {}
    if spec.is_empty():
        return PlacementResult(True, "no placement constraints defined")
    matched: list[str] = []
    if spec.run_on:
        failed: list[str] = []
        for condition in spec.run_on:
            (matched if condition.evaluate(labels) else failed).append(str(condition))
        if failed:
            reason = f"runOn conditions not satisfied: {', '.join(failed)}"
            return PlacementResult(False, reason, matched or None)
    for condition in spec.not_run_on:
        if condition.evaluate(labels):
            text = str(condition)
            return PlacementResult(False, f"excluded by notRunOn: {text}", matched or None, [text])
    if matched:
        return PlacementResult(True, f"runOn conditions satisfied: {', '.join(matched)}", matched)
    return PlacementResult(True, "no runOn constraints, not excluded by notRunOn")


def get_effective_placement(module: PlacementSpec, definition: PlacementSpec) -> PlacementSpec:
    """The definition's own placement when it has any (override, never merge), else the module's."""
    return module if definition.is_empty() else definition
