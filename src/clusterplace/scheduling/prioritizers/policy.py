"""From ``spec.prioritizerPolicy`` to weighted prioritizers (upstream's weight rules).

Additive (or ""): Balance and Steady weigh 1 unless configured; Exact: only what is
configured. Entries of weight 0 are skipped, without validation.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from clusterplace.api import ManagedCluster, Placement
from clusterplace.api.placement import AddOnScore, SpreadConstraint
from clusterplace.scheduling.framework import PrioritizerPlugin, Status
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.balance import BalancePrioritizer
from clusterplace.scheduling.prioritizers.resource import ResourcePrioritizer
from clusterplace.scheduling.prioritizers.steady import SteadyPrioritizer
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = [
    "SPREAD",
    "Policies",
    "Weighted",
    "build_prioritizers",
    "policy_key",
    "spread_constraints",
]

BUILT_IN: dict[str, Callable[[], PrioritizerPlugin]] = {
    "Balance": BalancePrioritizer,
    "Steady": SteadyPrioritizer,
    "ResourceAllocatableCPU": lambda: ResourcePrioritizer("ResourceAllocatableCPU", "cpu"),
    "ResourceAllocatableMemory": lambda: ResourcePrioritizer("ResourceAllocatableMemory", "memory"),
}


@dataclass(frozen=True)
class Weighted:
    prioritizer: PrioritizerPlugin
    weight: int


SPREAD = "Spread"
_ASKED_LIMIT = 1 << 16  # placement objects remembered by Policies
SPREAD_DEFAULT_WEIGHT = 2  # the spread-policy enhancement's Additive default


def spread_constraints(placement: Placement) -> list[SpreadConstraint]:
    spread = placement.spec.spread_policy
    return list((spread.spread_constraints if spread else None) or [])


def policy_key(placement: Placement) -> Hashable:
    """Everything :func:`build_prioritizers` reads from ``placement``, as a hashable value
    (placements with equal keys get the same prioritizers)."""
    spec = placement.spec
    policy = spec.prioritizer_policy
    configurations = []
    for config in policy.configurations or ():  # (a plain loop: every sync asks)
        coordinate = config.score_coordinate
        add_on = coordinate.add_on
        configurations.append(
            (
                coordinate.type,
                coordinate.built_in,
                None if add_on is None else (add_on.resource_name, add_on.score_name),
                config.weight,
            )
        )
    spread = spec.spread_policy
    spreading = spread is not None and bool(spread.spread_constraints)
    return policy.mode, spreading, tuple(configurations)


def build_prioritizers(placement: Placement) -> tuple[list[Weighted], int, Status]:
    """The prioritizers to run with their weights, the spread weight, or a Misconfigured
    status. ``builtIn: Spread`` is accepted only with a spread policy (upstream, which
    has none, refuses it)."""
    policy = placement.spec.prioritizer_policy
    mode = policy.mode
    spreading = bool(spread_constraints(placement))
    # Keys keep configuration order; AddOn entries are keyed per entry (upstream keys
    # them by pointer, so two identical AddOn entries both run).
    weights: dict[object, tuple[str, str | AddOnScore | None, int]] = {}
    if mode in ("", "Additive"):
        weights["BuiltIn/Balance"] = ("BuiltIn", "Balance", 1)
        weights["BuiltIn/Steady"] = ("BuiltIn", "Steady", 1)
        if spreading:
            weights["BuiltIn/Spread"] = ("BuiltIn", SPREAD, SPREAD_DEFAULT_WEIGHT)
    elif mode != "Exact":
        return [], 0, Status.misconfigured("", f"incorrect prioritizer policy mode: {mode}")
    for index, config in enumerate(policy.configurations or []):
        coordinate = config.score_coordinate
        if coordinate.type == "BuiltIn":
            name = coordinate.built_in or ""
            weights[f"BuiltIn/{name}"] = ("BuiltIn", name, config.weight)
        else:
            weights[("AddOn", index)] = ("AddOn", coordinate.add_on, config.weight)
    built: list[Weighted] = []
    spread_weight = 0
    for _, what, weight in weights.values():
        if weight == 0:
            continue
        if what == SPREAD and spreading:
            spread_weight = weight
        elif isinstance(what, str):
            factory = BUILT_IN.get(what)
            if factory is None:
                return [], 0, Status.misconfigured("", f"incorrect builtin prioritizer: {what}")
            built.append(Weighted(factory(), weight))
        elif what is None:
            return [], 0, Status.misconfigured("", "addOn should not be empty")
        else:
            built.append(Weighted(AddOnPrioritizer(what.resource_name, what.score_name), weight))
    return built, spread_weight, Status.success()


class Policies(SnapshotIndex):
    """:func:`build_prioritizers` once per :func:`policy_key`: prioritizers keep no state
    of their own, so placements with the same policy share them (and the scores that
    :class:`~clusterplace.scheduling.shared.SharedScores` keeps by their names)."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._built: dict[Hashable, tuple[list[Weighted], int, Status]] = {}
        # The answer for each placement object asked about (by its identity, with the
        # object kept so the identity is not reused): a run asks once per sync, and
        # working out the key costs more than the lookup.
        self._asked: dict[int, tuple[Placement, tuple[list[Weighted], int, Status]]] = {}

    def prioritizers(self, placement: Placement) -> tuple[list[Weighted], int, Status]:
        asked = self._asked.get(id(placement))
        if asked is not None and asked[0] is placement:
            return asked[1]
        key = policy_key(placement)
        found = self._built.get(key)
        if found is None:
            found = self._built[key] = build_prioritizers(placement)
        if len(self._asked) >= _ASKED_LIMIT:  # a long-lived snapshot sees many versions
            self._asked.clear()
        self._asked[id(placement)] = (placement, found)
        return found

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """Prioritizers depend on the placement's policy alone: nothing to do."""

    def on_score_changed(self, position: int, resource: str) -> None:
        """Prioritizers depend on the placement's policy alone: nothing to do."""
