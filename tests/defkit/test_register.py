"""``defkit.register``: upstream's placement check (upstream case 29) and accumulating placement."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from clusterplace import defkit
from clusterplace.defkit import Definition
from clusterplace.defkit.placement import (
    All,
    Any,
    ClusterCondition,
    Label,
    LabelCondition,
    evaluate,
)
from clusterplace.defkit.registry import collecting

FACTORIES: list[Callable[[str], Definition]] = [
    defkit.component,
    defkit.trait,
    defkit.policy,
    defkit.workflow_step,
]
FACTORY_IDS = ["component", "trait", "policy", "workflow-step"]

TAIL = " - definition may never be eligible to run"

CONFLICTS: list[tuple[str, ClusterCondition, ClusterCondition, str]] = [
    (
        "cloud=aws in both lists",
        Label("cloud").eq("aws"),
        Label("cloud").eq("aws"),
        "identical condition 'cloud = aws' in both RunOn and NotRunOn",
    ),
    (
        "Eq vs Exists",
        Label("cloud").eq("aws"),
        Label("cloud").exists(),
        "RunOn requires 'cloud' to have a specific value, but NotRunOn excludes when "
        "'cloud' exists",
    ),
]


@pytest.mark.parametrize("factory", FACTORIES, ids=FACTORY_IDS)
@pytest.mark.parametrize(
    ("run_on", "not_run_on", "reason"), [c[1:] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS]
)
def test_register_refuses_conflicting_placement_with_upstreams_message(
    factory: Callable[[str], Definition],
    run_on: ClusterCondition,
    not_run_on: ClusterCondition,
    reason: str,
) -> None:
    definition = factory("web").run_on(run_on).not_run_on(not_run_on)
    with pytest.raises(defkit.DefinitionError) as caught:
        defkit.register(definition)
    assert str(caught.value) == (
        "defkit: invalid placement for definition 'web': "
        f"conflicting placement constraints: {reason}{TAIL}"
    )
    assert caught.value.__cause__ is None


NO_CONFLICT: list[tuple[str, list[ClusterCondition], list[ClusterCondition]]] = [
    ("no placement", [], []),
    ("cloud=aws vs env=dev", [Label("cloud").eq("aws")], [Label("env").eq("dev")]),
    ("only runOn", [Label("cloud").eq("aws")], []),
    ("only notRunOn", [], [Label("cloud").eq("aws")]),
    ("cloud=aws vs cloud=gcp", [Label("cloud").eq("aws")], [Label("cloud").eq("gcp")]),
]


@pytest.mark.parametrize("factory", FACTORIES, ids=FACTORY_IDS)
@pytest.mark.parametrize(
    ("run_on", "not_run_on"), [c[1:] for c in NO_CONFLICT], ids=[c[0] for c in NO_CONFLICT]
)
def test_register_accepts_placement_without_conflict_and_returns_the_definition(
    factory: Callable[[str], Definition],
    run_on: list[ClusterCondition],
    not_run_on: list[ClusterCondition],
) -> None:
    definition = factory("web").run_on(*run_on).not_run_on(*not_run_on)
    assert defkit.register(definition) is definition


def test_register_collects_valid_definitions_in_order_and_never_an_invalid_one() -> None:
    first = defkit.component("first")
    bad = defkit.trait("bad").run_on(Label("cloud").eq("aws")).not_run_on(Label("cloud").exists())
    second = defkit.policy("second")
    with collecting() as registered:
        defkit.register(first)
        with pytest.raises(defkit.DefinitionError):
            defkit.register(bad)
        defkit.register(second)
    assert registered == [first, second]


def test_run_on_and_not_run_on_calls_accumulate() -> None:
    aws, prod, eu = Label("cloud").eq("aws"), Label("env").eq("prod"), Label("region").exists()
    vcluster, edge = Label("type").eq("vcluster"), Label("tier").eq("edge")
    definition = (
        defkit.component("web").run_on(aws).not_run_on(vcluster).run_on(prod, eu).not_run_on(edge)
    )
    assert definition.placement.run_on == (aws, prod, eu)
    assert definition.placement.not_run_on == (vcluster, edge)


@pytest.mark.parametrize(
    ("labels", "eligible", "reason"),
    [
        (
            {"cloud": "aws", "env": "prod"},
            True,
            "runOn conditions satisfied: cloud = aws, env = prod",
        ),
        ({"cloud": "aws"}, False, "runOn conditions not satisfied: env = prod"),
        (
            {"cloud": "aws", "env": "prod", "tier": "edge"},
            False,
            "excluded by notRunOn: tier = edge",
        ),
        (
            {"cloud": "aws", "env": "prod", "type": "vcluster"},
            False,
            "excluded by notRunOn: type = vcluster",
        ),
    ],
)
def test_accumulated_run_on_is_and_and_accumulated_not_run_on_is_or(
    labels: dict[str, str], eligible: bool, reason: str
) -> None:
    definition = (
        defkit.component("web")
        .run_on(Label("cloud").eq("aws"))
        .run_on(Label("env").eq("prod"))
        .not_run_on(Label("type").eq("vcluster"))
        .not_run_on(Label("tier").eq("edge"))
    )
    result = evaluate(definition.placement, labels)
    assert (result.eligible, result.reason) == (eligible, reason)


def test_a_conflict_split_across_several_calls_is_still_found() -> None:
    definition = (
        defkit.component("web")
        .run_on(Label("env").eq("prod"))
        .not_run_on(Label("tier").eq("edge"))
        .run_on(Label("cloud").eq("aws"))
        .not_run_on(Label("cloud").eq("aws"))
    )
    with pytest.raises(defkit.DefinitionError) as caught:
        defkit.register(definition)
    assert str(caught.value) == (
        "defkit: invalid placement for definition 'web': conflicting placement constraints: "
        f"identical condition 'cloud = aws' in both RunOn and NotRunOn{TAIL}"
    )


def test_composite_conflict_is_reported_with_the_inner_condition() -> None:
    definition = (
        defkit.component("web")
        .run_on(All(Label("cloud").eq("aws"), Label("env").eq("prod")))
        .not_run_on(Any(Label("cloud").eq("aws"), Label("region").eq("eu-west-1")))
    )
    with pytest.raises(defkit.DefinitionError) as caught:
        defkit.register(definition)
    assert str(caught.value) == (
        "defkit: invalid placement for definition 'web': conflicting placement constraints: "
        f"'cloud = aws' is required by RunOn but excluded by NotRunOn{TAIL}"
    )


def test_placement_holds_the_given_condition_objects() -> None:
    condition = LabelCondition("cloud", "In", ["aws", "gcp"])
    definition = defkit.trait("t").run_on(condition)
    assert definition.placement.run_on[0] is condition
    assert str(definition.placement.run_on[0]) == "cloud in (aws, gcp)"
