"""``metav1.LabelSelector`` and its requirement, as typed fields of other objects."""

from __future__ import annotations

from clusterplace.api.base import KubeModel
from clusterplace.labels import Selector, from_label_selector, from_requirements

__all__ = ["ClaimSelector", "LabelSelector", "LabelSelectorRequirement"]


class LabelSelectorRequirement(KubeModel):
    """``{key, operator, values}``; the operator is checked when the selector is compiled."""

    key: str
    operator: str
    values: list[str] | None = None


class LabelSelector(KubeModel):
    match_labels: dict[str, str] | None = None
    match_expressions: list[LabelSelectorRequirement] | None = None

    def compile(self) -> Selector:
        """The selector engine's form; raises SelectorError like LabelSelectorAsSelector."""
        return from_label_selector(self)


class ClaimSelector(KubeModel):
    """OCM's claim selector: only ``matchExpressions``, over cluster claims."""

    match_expressions: list[LabelSelectorRequirement] | None = None

    def compile(self) -> Selector:
        return from_requirements(self.match_expressions or [])
