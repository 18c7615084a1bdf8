"""Plugins are real abstract classes, each declares what it reads, and any of them may
ask for a requeue."""

from __future__ import annotations

import pytest

from clusterplace.scheduling import framework
from clusterplace.scheduling.filters.chain import FILTERS
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.balance import BalancePrioritizer
from clusterplace.scheduling.prioritizers.resource import ResourcePrioritizer
from clusterplace.scheduling.prioritizers.steady import SteadyPrioritizer

KINDS = {
    framework.LABELS,
    framework.CLAIMS,
    framework.TAINTS,
    framework.RESOURCES,
    framework.ADDON_SCORES,
    framework.DECISIONS,
    framework.CLUSTER,
}
PRIORITIZERS = [
    BalancePrioritizer,
    SteadyPrioritizer,
    ResourcePrioritizer("ResourceAllocatableCPU", "cpu"),
    AddOnPrioritizer("res", "score"),
]


@pytest.mark.parametrize("plugin", [*FILTERS, *PRIORITIZERS], ids=lambda p: type(p).__name__)
def test_every_plugin_declares_what_it_reads(plugin: object) -> None:
    reads = plugin.reads  # type: ignore[attr-defined]
    assert reads and reads <= KINDS


def test_the_bases_are_abstract() -> None:
    with pytest.raises(TypeError):
        framework.FilterPlugin()  # type: ignore[abstract]
    with pytest.raises(TypeError):
        framework.PrioritizerPlugin()  # type: ignore[abstract]
