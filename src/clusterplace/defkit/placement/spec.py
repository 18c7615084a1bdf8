"""Placement specs, their evaluation against cluster labels, and module inheritance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clusterplace.defkit.placement.conditions import ClusterCondition
from clusterplace.labels import Labels

__all__ = ["Eligibility", "PlacementConstraints", "evaluate", "get_effective_placement"]


@dataclass(frozen=True)
class PlacementConstraints:
    """Where a definition may run: every RunOn condition holds and no NotRunOn one does."""

    run_on: Sequence[ClusterCondition] = field(default_factory=tuple)
    not_run_on: Sequence[ClusterCondition] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_on", tuple(self.run_on))
        object.__setattr__(self, "not_run_on", tuple(self.not_run_on))

    def is_empty(self) -> bool:
        return not self.run_on and not self.not_run_on


@dataclass(frozen=True)
class Eligibility:
    """The verdict for one cluster. Matched lists are None when nothing matched (as Go's nil)."""

    eligible: bool
    reason: str
    matched_run_on: list[str] | None = None
    matched_not_run_on: list[str] | None = None


def evaluate(spec: PlacementConstraints, labels: Labels | None) -> Eligibility:
    """Upstream ``Evaluate``: RunOn all evaluated (reason lists the failed ones), then the
    first matching NotRunOn excludes; reasons are upstream's exact strings."""
    labels = labels or {}
    if spec.is_empty():
        return Eligibility(True, "no placement constraints defined")
    matched: list[str] = []
    if spec.run_on:
        failed: list[str] = []
        for condition in spec.run_on:
            (matched if condition.evaluate(labels) else failed).append(str(condition))
        if failed:
            reason = f"runOn conditions not satisfied: {', '.join(failed)}"
            return Eligibility(False, reason, matched or None)
    for condition in spec.not_run_on:
        if condition.evaluate(labels):
            text = str(condition)
            return Eligibility(False, f"excluded by notRunOn: {text}", matched or None, [text])
    if matched:
        return Eligibility(True, f"runOn conditions satisfied: {', '.join(matched)}", matched)
    return Eligibility(True, "no runOn constraints, not excluded by notRunOn")


def get_effective_placement(
    module: PlacementConstraints, definition: PlacementConstraints
) -> PlacementConstraints:
    """The definition's own placement when it has any (override, never merge), else the module's."""
    return module if definition.is_empty() else definition
