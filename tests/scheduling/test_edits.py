"""The --set/--unset edit language: parsing, clear errors, applying to a fleet."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.mergepatch import merge_patch
from clusterplace.scheduling import Edit, EditError, parse_edit, parse_edits
from clusterplace.scheduling.edits import apply_edits

FLEET = load_fleet(expand_sources(["examples/fleet"]))

VALID = [
    "cluster/aws-prod-euw1:labels.tier=gold",
    "cluster/aws-prod-euw1:claims.platform.open-cluster-management.io=GCP",
    "cluster/aws-prod-euw1:taints+=dedicated=gpu:NoSelect",
    "cluster/gpu-lab-usc1:taints-=dedicated=gpu:NoSelect",
    "cluster/gpu-lab-usc1:taints-=dedicated",
    "placement/apps/analytics:numberOfClusters=5",
    "placement/apps/analytics:clusterSets=global,prod",
    "placement/apps/analytics:predicates=provider in (aws,gcp),environment!=dev",
    "placement/apps/analytics:predicates+=!legacy",
    "placement/apps/analytics:predicates[0].labelSelector=tier=gold",
    "placement/apps/analytics:predicates[0].claimSelector=platform.open-cluster-management.io",
    "placement/apps/analytics:weights.Balance=-3",
    "placement/apps/analytics:weights.AddOn/resource-usage-score/cpuAvailable=7",
    "placement/apps/analytics:mode=Additive",
    "placement/apps/analytics:tolerations+=maintenance:NoSelect",
    "placement/apps/analytics:tolerations+=dedicated=gpu",
    "clustersetbinding/apps/edge:clusterSet=edge",
    "addonplacementscore/aws-prod-euw1/resource-usage-score:validUntil=2026-12-01T00:00:00Z",
    "addonplacementscore/aws-prod-use1/resource-usage-score:scores.cpuAvailable=-5",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_edits_parse_print_back_and_apply(text: str) -> None:
    edit = parse_edit(text)
    assert edit.expression == text
    assert parse_edit(edit.expression) == edit
    (change,) = apply_edits(FLEET, [edit])
    assert change.after is not None
    before = change.before.to_dict() if change.before is not None else {}
    assert merge_patch(before, change.after.to_dict())  # the edit changed something


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cluster/x", "expected KIND/NAME:FIELD=VALUE"),
        ("pod/x:labels.a=b", "unknown kind 'pod'; valid kinds: cluster, placement"),
        ("placement/x:numberOfClusters=3", "placement/NAMESPACE/NAME"),
        ("cluster/x:labels.a b=c", "label key 'a b'"),
        ("cluster/x:labels.a=b c", "label value 'b c'"),
        ("cluster/x:colour=red", "unknown cluster field 'colour'; valid: labels.KEY"),
        ("placement/a/b:numberOfClusters=-1", "whole number ≥ 0"),
        ("placement/a/b:weights.Cheapest=3", "unknown prioritizer 'Cheapest'; valid: Balance"),
        ("placement/a/b:weights.Balance=11", "from -10 to 10"),
        ("placement/a/b:mode=Fastest", "mode is Additive or Exact"),
        ("cluster/a:taints+=k=v:Never", "unknown taint effect 'Never'"),
        ("cluster/a:taints+=k=v", "KEY[=VALUE]:EFFECT"),
        ("placement/a/b:predicates=a>3", "does not allow"),
        ("placement/a/b:predicates=a in (", "invalid selector"),
        ("placement/a/b:spread[0].maxSkew=0", "maxSkew takes a whole number ≥ 1"),
        ("addonplacementscore/c/s:validUntil=soon", "validUntil takes an RFC 3339 time"),
        ("addonplacementscore/c/s:scores.cpu=101", "a score is a whole number from -100 to 100"),
        ("addonplacementscore/c/s:colour=red", "valid: validUntil, scores.NAME"),
        ("addonplacementscore/c:validUntil=x", "addonplacementscore/NAMESPACE/NAME"),
    ],
)
def test_bad_edits_say_what_where_and_what_is_valid(text: str, message: str) -> None:
    with pytest.raises(EditError) as err:
        parse_edit(text)
    assert message in str(err.value)
    assert repr(text) in str(err.value)  # where: the expression as given


def test_a_score_edit_names_an_existing_score_and_unsets_its_expiry() -> None:
    with pytest.raises(EditError, match="no AddOnPlacementScore 'onprem-dc1/nope'"):
        apply_edits(FLEET, [parse_edit("addonplacementscore/onprem-dc1/nope:validUntil", True)])
    edit = parse_edit("addonplacementscore/aws-prod-euw1/resource-usage-score:validUntil", True)
    (change,) = apply_edits(FLEET, [edit])
    assert change.after is not None and change.after.to_dict()["status"].get("validUntil") is None


def test_unset_forms() -> None:
    edits = parse_edits([], ["cluster/c:labels.env", "placement/a/b:numberOfClusters"])
    assert [e.unset for e in edits] == [True, True]
    assert str(edits[0]) == "--unset cluster/c:labels.env"
    with pytest.raises(EditError, match="without =VALUE"):
        parse_edit("cluster/c:labels.env=x", unset=True)


def test_edits_of_unknown_objects_name_them() -> None:
    with pytest.raises(EditError, match="no ManagedCluster 'ghost'"):
        apply_edits(FLEET, [parse_edit("cluster/ghost:labels.a=b")])
    with pytest.raises(EditError, match="no Placement 'nope' in namespace 'apps'"):
        apply_edits(FLEET, [parse_edit("placement/apps/nope:numberOfClusters=1")])


def test_edits_of_one_object_build_on_each_other_and_leave_the_fleet_alone() -> None:
    edits = parse_edits(
        ["cluster/aws-prod-euw1:labels.tier=gold", "cluster/aws-prod-euw1:labels.zone=a"],
        ["cluster/aws-prod-euw1:labels.provider"],
    )
    (change,) = apply_edits(FLEET, edits)
    assert change.after is not None
    labels = change.after.labels
    assert labels["tier"] == "gold" and labels["zone"] == "a" and "provider" not in labels
    assert FLEET.clusters["aws-prod-euw1"].labels["provider"] == "aws"


def test_weights_replace_or_add_a_configuration() -> None:
    (change,) = apply_edits(
        FLEET,
        parse_edits(
            [
                "placement/apps/web-frontend:weights.ResourceAllocatableCPU=5",
                "placement/apps/web-frontend:weights.Steady=0",
            ]
        ),
    )
    policy = change.after.to_dict()["spec"]["prioritizerPolicy"]  # type: ignore[union-attr]
    weights = {c["scoreCoordinate"]["builtIn"]: c["weight"] for c in policy["configurations"]}
    assert weights == {"ResourceAllocatableCPU": 5, "Steady": 0}


# -- properties ----------------------------------------------------------------------

keys = st.from_regex(r"[a-z]([a-z0-9.-]{0,10}[a-z0-9])?", fullmatch=True)
values = st.from_regex(r"([A-Za-z0-9]([A-Za-z0-9._-]{0,8}[A-Za-z0-9])?)?", fullmatch=True)
names = st.from_regex(r"[a-z]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)


@st.composite
def edits(draw: st.DrawFn) -> Edit:
    kind = draw(st.sampled_from(["label", "taint", "count", "weight", "toleration"]))
    cluster = draw(names)
    ref = f"{draw(names)}/{draw(names)}"
    if kind == "label":
        return Edit("cluster", cluster, f"labels.{draw(keys)}", draw(values))
    if kind == "taint":
        value = draw(values)
        effect = draw(st.sampled_from(["NoSelect", "PreferNoSelect", "NoSelectIfNew"]))
        body = f"{draw(keys)}={value}" if value else draw(keys)
        return Edit("cluster", cluster, "taints+", f"{body}:{effect}")
    if kind == "count":
        return Edit("placement", ref, "numberOfClusters", str(draw(st.integers(0, 1000))))
    if kind == "weight":
        name = draw(st.sampled_from(["Balance", "Steady", "ResourceAllocatableCPU"]))
        return Edit("placement", ref, f"weights.{name}", str(draw(st.integers(-10, 10))))
    return Edit("placement", ref, "tolerations+", f"{draw(keys)}:NoSelect")


@settings(max_examples=200, deadline=None)
@given(edits())
def test_every_edit_prints_as_an_expression_that_parses_back_to_it(edit: Edit) -> None:
    assert parse_edit(edit.expression) == edit


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.booleans())
def test_any_text_parses_or_fails_with_an_edit_error(text: str, unset: bool) -> None:
    try:
        edit = parse_edit(text, unset=unset)
    except EditError as err:
        assert str(err)
    else:
        assert parse_edit(edit.expression, unset=edit.unset) == edit
