"""Strict validation (docs/defkit.md: strict mode is exact): exact satisfiability with a witness.

Strict mode raises for every spec that no cluster's labels can make eligible, on top of
upstream's rules; ``witness=True`` returns labels on which the spec is eligible, which is
checked here with ``evaluate`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings

from clusterplace.defkit.placement import (
    All,
    Any,
    ClusterCondition,
    Eq,
    Label,
    LabelCondition,
    Ne,
    Not,
    PlacementConstraints,
    ValidationError,
    evaluate,
    find_labels,
    validate_placement,
)
from tests.defkit.placement._helpers import all_label_sets, specs

K, A, B, C = Label("k"), Label("a"), Label("b"), Label("c")
K_AWS = K.eq("aws")
MESSAGE_START = "conflicting placement constraints: "
MESSAGE_END = " - definition may never be eligible to run"


def spec(
    run: Sequence[ClusterCondition] = (), not_run: Sequence[ClusterCondition] = ()
) -> PlacementConstraints:
    return PlacementConstraints(run_on=run, not_run_on=not_run)


def eligible_label_sets(placement: PlacementConstraints) -> list[dict[str, str]]:
    """Brute force: every label set over the spec's keys on which it is eligible."""
    return [labels for labels in all_label_sets(placement) if evaluate(placement, labels).eligible]


# Never eligible, and upstream's default rules do not notice.
UNSATISFIABLE = [
    pytest.param(spec([K_AWS], [K.ne("gcp")]), id="eq-vs-ne-other"),
    pytest.param(spec([K_AWS], [K.not_in("gcp")]), id="eq-vs-notin-other"),
    pytest.param(spec([K_AWS, K.eq("gcp")]), id="runon-eq-vs-eq"),
    pytest.param(spec([K.in_("a", "b"), K.not_in("a", "b")]), id="runon-in-vs-notin"),
    pytest.param(spec([All(A.exists(), Not(A.exists()))]), id="all-with-its-negation"),
    pytest.param(spec([A.exists(), Not(A.exists())]), id="runon-with-its-negation"),
    pytest.param(spec([Not(K.exists())], [K.not_exists()]), id="through-not"),
    pytest.param(spec([K.exists()], [Any(K_AWS, K.ne("aws"))]), id="excluder-covers-all"),
    pytest.param(spec([K.in_("a", "b")], [K.eq("a"), K.eq("b")]), id="in-values-each-excluded"),
    pytest.param(spec([Any()]), id="empty-any"),
    pytest.param(spec([LabelCondition("k", Eq, [])]), id="eq-without-values"),
    pytest.param(spec([LabelCondition("k", "Equals", ["aws"])]), id="unknown-operator"),
    pytest.param(spec([Not(Not(None))]), id="not-not-nil"),
    pytest.param(spec(not_run=[All()]), id="notrunon-empty-all"),
    pytest.param(spec(not_run=[Not(None)]), id="notrunon-not-nil"),
    pytest.param(spec(not_run=[K.exists(), K.not_exists()]), id="notrunon-covers-all"),
    pytest.param(
        spec([Any(All(A.eq("1"), B.eq("1")), C.exists())], [A.exists(), C.exists()]),
        id="every-any-option-excluded",
    ),
]

# Satisfiable: upstream's no-error cases of case 24, and specs that only look suspicious.
SATISFIABLE = [
    pytest.param(spec(), id="24-empty"),
    pytest.param(spec([K_AWS]), id="24-only-runon"),
    pytest.param(spec(not_run=[K_AWS]), id="24-only-notrunon"),
    pytest.param(spec([K_AWS], [Label("env").eq("dev")]), id="24-different-keys"),
    pytest.param(spec([K_AWS], [K.eq("gcp")]), id="24-eq-different-values"),
    pytest.param(spec([K.in_("aws", "gcp", "azure")], [K.in_("aws")]), id="24-in-partly"),
    pytest.param(spec([Any(K_AWS, K.eq("gcp"))], [Label("env").eq("dev")]), id="24-any-vs-other"),
    pytest.param(
        spec([All(K_AWS, Label("region").in_("us-east-1", "us-west-2"))], [A.eq("vcluster")]),
        id="24-all-vs-other-key",
    ),
    pytest.param(spec([Any(K_AWS, K.eq("gcp"), K.eq("azure"))], [K_AWS]), id="24-any-partly"),
    pytest.param(spec([K_AWS], [K.ne("aws")]), id="eq-vs-ne-same"),
    pytest.param(spec([K.ne("aws")]), id="ne-holds-when-absent"),
    pytest.param(spec([K.not_exists()], [K.exists()]), id="not-exists-vs-exists"),
    pytest.param(spec([Not(None), All()]), id="always-true-runon"),
    pytest.param(
        spec(not_run=[LabelCondition("k", Ne, [])]), id="ne-without-values-never-excludes"
    ),
    pytest.param(spec(not_run=[LabelCondition("k", "Equals", ["a"])]), id="unknown-never-excludes"),
    pytest.param(spec(not_run=[Any()]), id="notrunon-empty-any"),
    pytest.param(spec([K.eq("")]), id="empty-string-value"),
    pytest.param(spec([Not(Not(K_AWS))], [K.not_exists()]), id="double-not"),
    pytest.param(
        spec([K.not_in("other", "other-x")], [K.not_exists()]), id="needs-an-unmentioned-value"
    ),
    pytest.param(
        spec([Any(All(A.eq("1"), B.eq("2")), C.exists())], [A.eq("1")]), id="second-any-option"
    ),
    pytest.param(
        spec([A.ne("1"), B.not_in("1", "2")], [All(A.exists(), B.exists())]), id="absent-keys"
    ),
]

# Upstream's default rules reject these although some labels make them eligible (section 3
# "Any vs Any" flattens leaves, including those under Not and All). Strict mode keeps
# upstream's rules, so it rejects them too; find_labels still finds the labels.
UPSTREAM_FALSE_POSITIVES = [
    pytest.param(spec([Any(Not(K_AWS))], [Any(K_AWS)]), id="any-of-not-vs-any"),
    pytest.param(spec([Any(K_AWS)], [Any(All(K_AWS, A.eq("1")))]), id="any-vs-any-of-all"),
    # Upstream's "must exist but must not exist" rule: k present satisfies both.
    pytest.param(spec([K.exists()], [K.not_exists()]), id="exists-vs-not-exists"),
]


@pytest.mark.parametrize("placement", UNSATISFIABLE)
def test_strict_rejects_what_upstream_misses(placement: PlacementConstraints) -> None:
    assert validate_placement(placement) is None
    assert find_labels(placement) is None
    assert eligible_label_sets(placement) == []
    for mode in ({"strict": True}, {"witness": True}):
        with pytest.raises(ValidationError) as info:
            validate_placement(placement, **mode)
        assert info.value.message.startswith(MESSAGE_START)
        assert info.value.message.endswith(MESSAGE_END)
        assert str(info.value) == info.value.message


@pytest.mark.parametrize("placement", SATISFIABLE)
def test_strict_accepts_satisfiable_and_the_witness_is_eligible(
    placement: PlacementConstraints,
) -> None:
    assert eligible_label_sets(placement) != []
    assert validate_placement(placement) is None
    assert validate_placement(placement, strict=True) is None
    witness = validate_placement(placement, witness=True)
    assert witness is not None
    assert all(isinstance(v, str) for v in witness.values())
    assert evaluate(placement, witness).eligible
    found = find_labels(placement)
    assert found is not None
    assert evaluate(placement, found).eligible


@pytest.mark.parametrize(
    ("placement", "witness"),
    [
        pytest.param(spec(), {}, id="empty"),
        pytest.param(spec([K.eq("")]), {"k": ""}, id="empty-string"),
    ],
)
def test_witness_values(placement: PlacementConstraints, witness: dict[str, str]) -> None:
    assert validate_placement(placement, witness=True) == witness
    assert evaluate(placement, witness).eligible


@pytest.mark.parametrize("placement", UPSTREAM_FALSE_POSITIVES)
def test_strict_mode_accepts_upstream_false_positives(placement: PlacementConstraints) -> None:
    # docs/defkit.md: strict mode decides exactly; upstream's pattern rules flag these
    # although some label sets are eligible.
    with pytest.raises(ValidationError):
        validate_placement(placement)
    assert validate_placement(placement, strict=True) is None
    witness = validate_placement(placement, witness=True)
    assert witness is not None
    assert evaluate(placement, witness).eligible


UPSTREAM_ERRORS = [
    spec([K_AWS], [K_AWS]),
    spec([K_AWS], [K.exists()]),
    spec([K.in_("aws", "gcp")], [K.exists()]),
    spec([K.exists()], [K.exists()]),
    spec([K_AWS], [K.in_("aws", "azure")]),
    spec([K.in_("aws", "gcp")], [K.in_("aws", "gcp", "azure")]),
    spec([Any(K_AWS, K.eq("gcp"))], [Any(K_AWS, K.eq("gcp"), K.eq("azure"))]),
    spec([All(K_AWS, A.eq("prod"))], [Any(K_AWS, B.eq("eu-west-1"))]),
    spec([K.in_()], [K.in_("aws")]),
]


@pytest.mark.parametrize("placement", UPSTREAM_ERRORS, ids=str)
def test_strict_never_passes_what_upstream_rejects(placement: PlacementConstraints) -> None:
    with pytest.raises(ValidationError) as upstream:
        validate_placement(placement)
    for mode in ({"strict": True}, {"witness": True}):
        with pytest.raises(ValidationError) as strict:
            validate_placement(placement, **mode)
        assert strict.value.message.startswith(MESSAGE_START)
        assert upstream.value.message.startswith(MESSAGE_START)


# --- Properties ---------------------------------------------------------------------------


@settings(max_examples=300)
@given(specs)
def test_find_labels_agrees_with_brute_force(placement: PlacementConstraints) -> None:
    found = find_labels(placement)
    if found is None:
        assert eligible_label_sets(placement) == []
    else:
        assert all(isinstance(v, str) for v in found.values())
        assert evaluate(placement, found).eligible


@settings(max_examples=200)
@given(specs)
def test_strict_mode_is_exact_satisfiability(placement: PlacementConstraints) -> None:
    must_reject = not eligible_label_sets(placement)
    try:
        validate_placement(placement, strict=True)
    except ValidationError:
        assert must_reject
    else:
        assert not must_reject
        witness = validate_placement(placement, witness=True)
        assert witness is not None
        assert evaluate(placement, witness).eligible
