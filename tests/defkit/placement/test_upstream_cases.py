"""Upstream's defkit placement tests as data: defkit-placement.md section 6, cases 1-32.

Case 29 (``Register``) is tested elsewhere. Where upstream checks only a substring of a
reason or message, the full text is written out from the rules of sections 2 and 3 and
the upstream substring is checked as well.
"""

from __future__ import annotations

import typing
from collections.abc import Callable

import pytest

from clusterplace.api import ConfigMap, Fleet
from clusterplace.defkit.placement import (
    CLUSTER_IDENTITY_CONFIGMAP,
    CLUSTER_IDENTITY_NAMESPACE,
    OPERATORS,
    All,
    Any,
    ClusterCondition,
    Eligibility,
    Eq,
    In,
    Label,
    LabelCondition,
    Ne,
    Not,
    NotIn,
    PlacementConstraints,
    ValidationError,
    cluster_labels_exist,
    evaluate,
    format_cluster_labels,
    get_cluster_labels,
    get_effective_placement,
    validate_placement,
)
from clusterplace.defkit.placement.validate import conditions_conflict
from tests.defkit.placement._helpers import cluster

PROVIDER, CLUSTER_TYPE, ENVIRONMENT = Label("provider"), Label("cluster-type"), Label("environment")
AWS, GCP, AZURE = PROVIDER.eq("aws"), PROVIDER.eq("gcp"), PROVIDER.eq("azure")
EKS, GKE, VCLUSTER = CLUSTER_TYPE.eq("eks"), CLUSTER_TYPE.eq("gke"), CLUSTER_TYPE.eq("vcluster")
PRODUCTION = ENVIRONMENT.eq("production")

# The validate tests use upstream's keys there: cloud, env, region, gpu.
CLOUD, ENV, REGION, GPU = Label("cloud"), Label("env"), Label("region"), Label("gpu")
C_AWS, C_GCP, C_AZURE = CLOUD.eq("aws"), CLOUD.eq("gcp"), CLOUD.eq("azure")
PROD, DEV = ENV.eq("prod"), ENV.eq("dev")


def conflict_message(reason: str) -> str:
    return f"conflicting placement constraints: {reason} - definition may never be eligible to run"


# --- 1-13: single conditions and combinators ----------------------------------------------

IN3 = PROVIDER.in_("aws", "gcp", "azure")
ALL_AWS_EKS = All(AWS, EKS)
AWS_OR_GCP = Any(AWS, GCP)

CONDITION_CASES = [
    # 1. Eq
    pytest.param(AWS, cluster(provider="aws"), True, id="1-eq-match"),
    pytest.param(AWS, cluster(provider="gcp"), False, id="1-eq-other"),
    pytest.param(AWS, {}, False, id="1-eq-empty-labels"),
    pytest.param(AWS, None, False, id="1-eq-nil-labels"),
    pytest.param(PROVIDER.eq(""), cluster(provider=""), True, id="1-eq-empty-string"),
    # 2. Ne
    pytest.param(PROVIDER.ne("aws"), cluster(provider="gcp"), True, id="2-ne-other"),
    pytest.param(PROVIDER.ne("aws"), cluster(provider="aws"), False, id="2-ne-same"),
    pytest.param(PROVIDER.ne("aws"), {}, True, id="2-ne-empty-labels"),
    pytest.param(PROVIDER.ne("aws"), None, True, id="2-ne-nil-labels"),
    # 3. In
    *(
        pytest.param(IN3, cluster(provider=v), True, id=f"3-in-{v}")
        for v in ("aws", "gcp", "azure")
    ),
    pytest.param(IN3, cluster(provider="on-prem"), False, id="3-in-other"),
    pytest.param(PROVIDER.in_("aws", "gcp"), {}, False, id="3-in-empty-labels"),
    pytest.param(PROVIDER.in_("aws"), cluster(provider="aws"), True, id="3-in-single"),
    pytest.param(PROVIDER.in_(), cluster(provider="aws"), False, id="3-in-no-values"),
    # 4. NotIn
    pytest.param(
        PROVIDER.not_in("aws", "gcp"), cluster(provider="azure"), True, id="4-notin-other"
    ),
    pytest.param(
        PROVIDER.not_in("aws", "gcp"), cluster(provider="aws"), False, id="4-notin-listed"
    ),
    pytest.param(PROVIDER.not_in("aws", "gcp"), {}, True, id="4-notin-empty-labels"),
    pytest.param(PROVIDER.not_in(), cluster(provider="aws"), False, id="4-notin-no-values"),
    # 5. Exists
    pytest.param(GPU.exists(), cluster(gpu="true"), True, id="5-exists"),
    pytest.param(GPU.exists(), cluster(gpu=""), True, id="5-exists-empty-value"),
    pytest.param(GPU.exists(), cluster(cpu="true"), False, id="5-exists-other-key"),
    pytest.param(GPU.exists(), {}, False, id="5-exists-empty-labels"),
    # 6. NotExists
    pytest.param(Label("deprecated").not_exists(), cluster(active="true"), True, id="6-other-key"),
    pytest.param(Label("deprecated").not_exists(), {}, True, id="6-empty-labels"),
    pytest.param(Label("deprecated").not_exists(), cluster(deprecated="true"), False, id="6-set"),
    pytest.param(Label("deprecated").not_exists(), cluster(deprecated=""), False, id="6-empty"),
    # 7. Raw conditions with no values fail closed, also when the key is absent (section 1).
    *(
        pytest.param(LabelCondition("provider", op, []), labels, False, id=f"7-{op}-{name}")
        for op in (Eq, Ne, In, NotIn)
        for name, labels in (("present", cluster(provider="aws")), ("absent", {}))
    ),
    # 8. All
    pytest.param(ALL_AWS_EKS, cluster(provider="aws", cluster_type="eks"), True, id="8-all"),
    pytest.param(ALL_AWS_EKS, cluster(provider="gcp", cluster_type="eks"), False, id="8-gcp-eks"),
    pytest.param(ALL_AWS_EKS, cluster(provider="aws", cluster_type="gke"), False, id="8-aws-gke"),
    pytest.param(ALL_AWS_EKS, cluster(provider="gcp", cluster_type="gke"), False, id="8-gcp-gke"),
    pytest.param(All(), {}, True, id="8-all-empty"),
    pytest.param(All(AWS), cluster(provider="aws"), True, id="8-all-one"),
    # 9. Any
    pytest.param(AWS_OR_GCP, cluster(provider="aws"), True, id="9-any-aws"),
    pytest.param(AWS_OR_GCP, cluster(provider="gcp"), True, id="9-any-gcp"),
    pytest.param(AWS_OR_GCP, cluster(provider="azure"), False, id="9-any-azure"),
    pytest.param(Any(), cluster(provider="aws"), False, id="9-any-empty"),
    pytest.param(Any(AWS), cluster(provider="aws"), True, id="9-any-one"),
    # 10. Not
    pytest.param(Not(AWS), cluster(provider="aws"), False, id="10-not-aws"),
    pytest.param(Not(AWS), cluster(provider="gcp"), True, id="10-not-gcp"),
    pytest.param(Not(None), cluster(provider="aws"), True, id="10-not-nil"),
    # 11. Any of Alls
    *(
        pytest.param(
            Any(ALL_AWS_EKS, All(GCP, GKE)),
            cluster(provider=p, cluster_type=t),
            expected,
            id=f"11-{p}-{t}",
        )
        for p, t, expected in (("aws", "eks", True), ("gcp", "gke", True), ("azure", "aks", False))
    ),
    # 12. All with an Any
    *(
        pytest.param(
            All(AWS_OR_GCP, PRODUCTION),
            cluster(provider=p, environment="production"),
            expected,
            id=f"12-{p}",
        )
        for p, expected in (("aws", True), ("azure", False))
    ),
    # 13. All with a Not
    *(
        pytest.param(
            All(AWS, Not(VCLUSTER)), cluster(provider="aws", cluster_type=t), expected, id=f"13-{t}"
        )
        for t, expected in (("eks", True), ("vcluster", False))
    ),
]


@pytest.mark.parametrize(("condition", "labels", "expected"), CONDITION_CASES)
def test_condition_evaluate(
    condition: ClusterCondition, labels: dict[str, str] | None, expected: bool
) -> None:
    assert condition.evaluate(labels) is expected


# --- 14: String() forms -------------------------------------------------------------------

STRING_CASES = [
    (AWS, "provider = aws"),
    (PROVIDER.ne("aws"), "provider != aws"),
    (PROVIDER.in_("aws", "gcp"), "provider in (aws, gcp)"),
    (PROVIDER.not_in("azure"), "provider not in (azure)"),
    (GPU.exists(), "gpu exists"),
    (Label("deprecated").not_exists(), "deprecated not exists"),
    (All(AWS, ENV.eq("prod")), "all(provider = aws AND env = prod)"),
    (Any(AWS, GCP), "any(provider = aws OR provider = gcp)"),
    (Not(ENV.eq("dev")), "not(env = dev)"),
    (All(), "all()"),
    (Any(), "any()"),
]


@pytest.mark.parametrize(("condition", "text"), STRING_CASES, ids=[t for _, t in STRING_CASES])
def test_string_forms(condition: ClusterCondition, text: str) -> None:
    assert str(condition) == text


# --- 15-19: Evaluate on a spec ------------------------------------------------------------

NO_RUN_ON = "no runOn constraints, not excluded by notRunOn"
SATISFIED, NOT_SATISFIED = "runOn conditions satisfied: ", "runOn conditions not satisfied: "
EXCLUDED = "excluded by notRunOn: "
R_AWS = PlacementConstraints(run_on=[AWS])
N_VCLUSTER = PlacementConstraints(not_run_on=[VCLUSTER])
R_AWS_N_VCLUSTER = PlacementConstraints(run_on=[AWS], not_run_on=[VCLUSTER])
R_AWS_PRODUCTION = PlacementConstraints(run_on=[AWS, PRODUCTION])

EVALUATE_CASES = [
    # 15. Empty spec
    pytest.param(
        PlacementConstraints(),
        cluster(provider="aws"),
        Eligibility(True, "no placement constraints defined", None, None),
        id="15-empty-spec",
    ),
    pytest.param(
        PlacementConstraints(),
        None,
        Eligibility(True, "no placement constraints defined", None, None),
        id="15-empty-spec-nil-labels",
    ),
    # 16. RunOn only
    pytest.param(
        R_AWS,
        cluster(provider="aws"),
        Eligibility(True, SATISFIED + "provider = aws", ["provider = aws"], None),
        id="16-runon-match",
    ),
    pytest.param(
        R_AWS,
        cluster(provider="gcp"),
        Eligibility(False, NOT_SATISFIED + "provider = aws", None, None),
        id="16-runon-no-match",
    ),
    pytest.param(
        R_AWS,
        None,
        Eligibility(False, NOT_SATISFIED + "provider = aws", None, None),
        id="16-runon-nil-labels",
    ),
    # 17. NotRunOn only
    pytest.param(
        N_VCLUSTER,
        cluster(cluster_type="vcluster"),
        Eligibility(False, EXCLUDED + "cluster-type = vcluster", None, ["cluster-type = vcluster"]),
        id="17-excluded",
    ),
    pytest.param(
        N_VCLUSTER,
        cluster(cluster_type="eks"),
        Eligibility(True, NO_RUN_ON, None, None),
        id="17-not-excluded",
    ),
    # 18. Both
    pytest.param(
        R_AWS_N_VCLUSTER,
        cluster(provider="aws", cluster_type="eks"),
        Eligibility(True, SATISFIED + "provider = aws", ["provider = aws"], None),
        id="18-eligible",
    ),
    pytest.param(
        R_AWS_N_VCLUSTER,
        cluster(provider="aws", cluster_type="vcluster"),
        Eligibility(
            False,
            EXCLUDED + "cluster-type = vcluster",
            ["provider = aws"],
            ["cluster-type = vcluster"],
        ),
        id="18-excluded",
    ),
    pytest.param(
        R_AWS_N_VCLUSTER,
        cluster(provider="gcp", cluster_type="vcluster"),
        Eligibility(False, NOT_SATISFIED + "provider = aws", None, None),
        id="18-runon-fails-notrunon-not-evaluated",
    ),
    # 19. Several RunOn conditions: all evaluated, the reason lists the failed ones.
    pytest.param(
        R_AWS_PRODUCTION,
        cluster(provider="aws", environment="production"),
        Eligibility(
            True,
            SATISFIED + "provider = aws, environment = production",
            ["provider = aws", "environment = production"],
            None,
        ),
        id="19-both-match",
    ),
    pytest.param(
        R_AWS_PRODUCTION,
        cluster(provider="aws", environment="staging"),
        Eligibility(False, NOT_SATISFIED + "environment = production", ["provider = aws"], None),
        id="19-one-fails",
    ),
    pytest.param(
        R_AWS_PRODUCTION,
        cluster(provider="gcp", environment="staging"),
        Eligibility(False, NOT_SATISFIED + "provider = aws, environment = production"),
        id="19-both-fail",
    ),
    # Section 2 step 3: the first matching NotRunOn condition is the one reported.
    pytest.param(
        PlacementConstraints(not_run_on=[PRODUCTION, VCLUSTER, AWS]),
        cluster(provider="aws", cluster_type="vcluster", environment="dev"),
        Eligibility(False, EXCLUDED + "cluster-type = vcluster", None, ["cluster-type = vcluster"]),
        id="first-matching-notrunon",
    ),
]


@pytest.mark.parametrize(("spec", "labels", "expected"), EVALUATE_CASES)
def test_evaluate_spec(
    spec: PlacementConstraints, labels: dict[str, str] | None, expected: Eligibility
) -> None:
    assert evaluate(spec, labels) == expected


# --- 20: IsEmpty --------------------------------------------------------------------------

IS_EMPTY_CASES = [
    pytest.param(PlacementConstraints(), True, id="empty"),
    pytest.param(PlacementConstraints(run_on=[], not_run_on=[]), True, id="empty-lists"),
    pytest.param(PlacementConstraints(run_on=[AWS]), False, id="only-runon"),
    pytest.param(PlacementConstraints(not_run_on=[VCLUSTER]), False, id="only-notrunon"),
    pytest.param(R_AWS_N_VCLUSTER, False, id="both"),
]


@pytest.mark.parametrize(("spec", "expected"), IS_EMPTY_CASES)
def test_is_empty(spec: PlacementConstraints, expected: bool) -> None:
    assert spec.is_empty() is expected


# --- 21: real-world clusters --------------------------------------------------------------

EKS_CLUSTER = cluster(
    provider="aws", cluster_type="eks", environment="production", region="us-east-1"
)
GKE_CLUSTER = cluster(
    provider="gcp", cluster_type="gke", environment="production", region="us-central1"
)
VCLUSTER_DEV = cluster(provider="aws", cluster_type="vcluster", environment="dev")
NESTED = All(Any(ALL_AWS_EKS, All(GCP, GKE)), PRODUCTION)
ANY3 = Any(AWS, GCP, AZURE)

REAL_WORLD_CASES = [
    pytest.param(
        PlacementConstraints(
            run_on=[AWS, CLUSTER_TYPE.in_("eks", "self-managed")], not_run_on=[VCLUSTER]
        ),
        EKS_CLUSTER,
        SATISFIED + "provider = aws, cluster-type in (eks, self-managed)",
        id="aws-eks-not-vcluster-on-eks",
    ),
    pytest.param(R_AWS, GKE_CLUSTER, NOT_SATISFIED + "provider = aws", id="aws-on-gke"),
    pytest.param(
        R_AWS_N_VCLUSTER,
        VCLUSTER_DEV,
        EXCLUDED + "cluster-type = vcluster",
        id="aws-not-vcluster-on-vcluster",
    ),
    pytest.param(
        PlacementConstraints(run_on=[ANY3]),
        GKE_CLUSTER,
        SATISFIED + "any(provider = aws OR provider = gcp OR provider = azure)",
        id="any-cloud-on-gke",
    ),
    pytest.param(
        PlacementConstraints(run_on=[VCLUSTER]),
        VCLUSTER_DEV,
        SATISFIED + "cluster-type = vcluster",
        id="vcluster-only-on-vcluster",
    ),
    pytest.param(
        PlacementConstraints(run_on=[VCLUSTER]),
        EKS_CLUSTER,
        NOT_SATISFIED + "cluster-type = vcluster",
        id="vcluster-only-on-eks",
    ),
    pytest.param(
        PlacementConstraints(run_on=[PRODUCTION]),
        EKS_CLUSTER,
        SATISFIED + "environment = production",
        id="production-only-on-eks",
    ),
    pytest.param(
        PlacementConstraints(run_on=[PRODUCTION]),
        VCLUSTER_DEV,
        NOT_SATISFIED + "environment = production",
        id="production-only-on-vcluster",
    ),
    pytest.param(
        PlacementConstraints(not_run_on=[ENVIRONMENT.eq("staging")]),
        EKS_CLUSTER,
        NO_RUN_ON,
        id="not-staging-on-eks",
    ),
    pytest.param(
        PlacementConstraints(run_on=[NESTED]),
        EKS_CLUSTER,
        SATISFIED + "all(any(all(provider = aws AND cluster-type = eks) OR "
        "all(provider = gcp AND cluster-type = gke)) AND environment = production)",
        id="nested-on-eks",
    ),
]


@pytest.mark.parametrize(("spec", "labels", "reason"), REAL_WORLD_CASES)
def test_real_world_clusters(
    spec: PlacementConstraints, labels: dict[str, str], reason: str
) -> None:
    result = evaluate(spec, labels)
    assert result.reason == reason
    assert result.eligible is not reason.startswith((NOT_SATISFIED, EXCLUDED))


# --- 22: effective placement --------------------------------------------------------------

MODULE = R_AWS_N_VCLUSTER
DEF_GCP = PlacementConstraints(run_on=[GCP])
DEF_NOT_DEV = PlacementConstraints(not_run_on=[ENVIRONMENT.eq("dev")])

EFFECTIVE_CASES = [
    pytest.param(MODULE, DEF_GCP, DEF_GCP, id="definition-overrides"),
    pytest.param(MODULE, PlacementConstraints(), MODULE, id="empty-definition-inherits"),
    pytest.param(
        PlacementConstraints(), PlacementConstraints(), PlacementConstraints(), id="both-empty"
    ),
    pytest.param(MODULE, DEF_NOT_DEV, DEF_NOT_DEV, id="definition-only-notrunon"),
]


@pytest.mark.parametrize(("module", "definition", "expected"), EFFECTIVE_CASES)
def test_effective_placement(
    module: PlacementConstraints, definition: PlacementConstraints, expected: PlacementConstraints
) -> None:
    assert get_effective_placement(module, definition) == expected


def test_effective_placement_definition_with_only_notrunon_has_no_runon() -> None:
    assert len(get_effective_placement(MODULE, DEF_NOT_DEV).run_on) == 0


@pytest.mark.parametrize(("provider", "eligible"), [("gcp", True), ("aws", False)])
def test_effective_placement_definition_wins_when_evaluated(provider: str, eligible: bool) -> None:
    spec = get_effective_placement(PlacementConstraints(run_on=[AWS]), DEF_GCP)
    assert evaluate(spec, cluster(provider=provider)).eligible is eligible


# --- 23: operators ------------------------------------------------------------------------


def test_valid_operators() -> None:
    assert OPERATORS == ("Eq", "Ne", "In", "NotIn", "Exists", "NotExists")


@pytest.mark.parametrize("operator", ["Invalid", "Equals", "NotEqual", "", "eq"])
def test_invalid_operator_is_not_valid_and_never_matches(operator: str) -> None:
    assert operator not in OPERATORS
    condition = LabelCondition("provider", operator, ["aws"])
    for labels in ({}, cluster(provider="aws"), cluster(provider="gcp")):
        assert condition.evaluate(labels) is False


# --- 24-25: ValidatePlacement -------------------------------------------------------------

NO_ERROR_SPECS = [
    pytest.param(PlacementConstraints(), id="empty"),
    pytest.param(PlacementConstraints(run_on=[C_AWS]), id="only-runon"),
    pytest.param(PlacementConstraints(not_run_on=[C_AWS]), id="only-notrunon"),
    pytest.param(PlacementConstraints(run_on=[C_AWS], not_run_on=[DEV]), id="different-keys"),
    pytest.param(
        PlacementConstraints(run_on=[C_AWS], not_run_on=[C_GCP]), id="eq-different-values"
    ),
    pytest.param(
        PlacementConstraints(
            run_on=[CLOUD.in_("aws", "gcp", "azure")], not_run_on=[CLOUD.in_("aws")]
        ),
        id="in-partly-excluded",
    ),
    pytest.param(
        PlacementConstraints(run_on=[Any(C_AWS, C_GCP)], not_run_on=[DEV]), id="any-vs-other"
    ),
    pytest.param(
        PlacementConstraints(
            run_on=[All(C_AWS, REGION.in_("us-east-1", "us-west-2"))],
            not_run_on=[Label("cluster-type").eq("vcluster")],
        ),
        id="all-vs-other-key",
    ),
    pytest.param(
        PlacementConstraints(run_on=[Any(C_AWS, C_GCP, C_AZURE)], not_run_on=[C_AWS]),
        id="any-partly-excluded",
    ),
]


@pytest.mark.parametrize("spec", NO_ERROR_SPECS)
def test_validate_no_error(spec: PlacementConstraints) -> None:
    assert validate_placement(spec) is None


ALL_AWS_PROD = All(C_AWS, PROD)
ANY_AWS_GCP = Any(C_AWS, C_GCP)
ANY_AWS_GCP_AZURE = Any(C_AWS, C_GCP, C_AZURE)
EQ_REASON = "'cloud = aws' is required by RunOn but excluded by NotRunOn"
SPECIFIC_VALUE = (
    "RunOn requires 'cloud' to have a specific value, but NotRunOn excludes when 'cloud' exists"
)
OVERLAP = (
    "Any conditions overlap: RunOn(any(cloud = aws OR cloud = gcp)) conflicts with "
    "NotRunOn(any(cloud = aws OR cloud = gcp OR cloud = azure))"
)

# (RunOn, NotRunOn, upstream's substring, the full reason)
ERROR_CASES = [
    pytest.param(
        C_AWS,
        C_AWS,
        "identical condition",
        "identical condition 'cloud = aws' in both RunOn and NotRunOn",
        id="identical-eq",
    ),
    pytest.param(C_AWS, CLOUD.exists(), "specific value", SPECIFIC_VALUE, id="eq-vs-exists"),
    pytest.param(
        CLOUD.in_("aws", "gcp"), CLOUD.exists(), "specific value", SPECIFIC_VALUE, id="in-vs-exists"
    ),
    pytest.param(
        GPU.exists(),
        GPU.exists(),
        "exists",
        "identical condition 'gpu exists' in both RunOn and NotRunOn",
        id="exists-vs-exists",
    ),
    pytest.param(
        C_AWS,
        CLOUD.in_("aws", "azure"),
        "exclusion list",
        "'cloud = aws' is required by RunOn but 'aws' is in NotRunOn exclusion list",
        id="eq-vs-in",
    ),
    pytest.param(
        CLOUD.in_("aws", "gcp"),
        CLOUD.in_("aws", "gcp", "azure"),
        "all values",
        "all values for 'cloud' required by RunOn (aws, gcp) are excluded by NotRunOn",
        id="in-vs-in",
    ),
    pytest.param(ANY_AWS_GCP, ANY_AWS_GCP_AZURE, "overlap", OVERLAP, id="any-vs-any"),
    pytest.param(
        ALL_AWS_PROD,
        Any(C_AWS, REGION.eq("eu-west-1")),
        "cloud = aws",
        EQ_REASON,
        id="all-vs-any",
    ),
]


@pytest.mark.parametrize(("run", "not_run", "substring", "reason"), ERROR_CASES)
def test_validate_error(
    run: ClusterCondition, not_run: ClusterCondition, substring: str, reason: str
) -> None:
    with pytest.raises(ValidationError) as info:
        validate_placement(PlacementConstraints(run_on=[run], not_run_on=[not_run]))
    err = info.value
    assert substring in err.message
    assert err.message == conflict_message(reason)
    assert str(err) == err.message
    assert (err.run_on, err.not_run_on) == (str(run), str(not_run))


def test_validate_error_full_message_of_case_25() -> None:
    spec = PlacementConstraints(
        run_on=[ALL_AWS_PROD], not_run_on=[Any(C_AWS, REGION.eq("eu-west-1"))]
    )
    with pytest.raises(ValidationError) as info:
        validate_placement(spec)
    assert str(info.value) == (
        "conflicting placement constraints: 'cloud = aws' is required by RunOn but excluded "
        "by NotRunOn - definition may never be eligible to run"
    )


# --- 26-27: conditionsConflict ------------------------------------------------------------

CONFLICT_CASES = [
    pytest.param(ALL_AWS_PROD, C_AWS, EQ_REASON, id="26-all-vs-label"),
    pytest.param(C_AWS, Any(C_AWS, DEV), EQ_REASON, id="26-label-vs-any"),
    pytest.param(
        ANY_AWS_GCP,
        ANY_AWS_GCP,
        "identical condition 'any(cloud = aws OR cloud = gcp)' in both RunOn and NotRunOn",
        id="26-identical-any",
    ),
    pytest.param(ALL_AWS_PROD, Any(C_AWS, REGION.eq("us-east-1")), EQ_REASON, id="26-all-vs-any"),
    pytest.param(ANY_AWS_GCP, ANY_AWS_GCP_AZURE, OVERLAP, id="26-any-vs-wider-any"),
    pytest.param(
        GPU.exists(),
        GPU.not_exists(),
        "'gpu' must exist (RunOn) but must not exist (NotRunOn)",
        id="26-exists-vs-not-exists",
    ),
    pytest.param(
        PROD,
        Any(PROD, ENV.eq("staging")),
        "'env = prod' is required by RunOn but excluded by NotRunOn",
        id="26-eq-vs-any",
    ),
    # 27: no conflict
    pytest.param(ALL_AWS_PROD, REGION.eq("eu-west-1"), None, id="27-all-vs-other-key"),
    pytest.param(ANY_AWS_GCP, All(C_AWS, C_GCP), None, id="27-any-vs-all"),
    pytest.param(ALL_AWS_PROD, All(C_AWS, DEV), None, id="27-all-vs-all"),
    pytest.param(Any(All(C_AWS, REGION.eq("us-east-1")), C_GCP), C_AWS, None, id="27-any-of-all"),
    pytest.param(PROD, All(PROD, C_AZURE), None, id="27-label-vs-all-of-two"),
]


@pytest.mark.parametrize(("run", "not_run", "reason"), CONFLICT_CASES)
def test_conditions_conflict(
    run: ClusterCondition, not_run: ClusterCondition, reason: str | None
) -> None:
    assert conditions_conflict(run, not_run) == reason


# --- Section 3 rules that no numbered case reaches ----------------------------------------

RULE_CASES = [
    pytest.param(
        All(GPU.exists(), C_AWS),
        GPU.exists(),
        "'gpu exists' is in both RunOn and NotRunOn",
        id="exists-vs-exists-inside-all",
    ),
    pytest.param(
        CLOUD.in_("aws"),
        C_AWS,
        "the only allowed value 'aws' for 'cloud' is excluded by NotRunOn",
        id="in-one-value-vs-eq",
    ),
    pytest.param(CLOUD.in_("aws", "gcp"), C_AWS, None, id="in-two-values-vs-eq"),
    pytest.param(
        CLOUD.in_(),
        CLOUD.in_("aws"),
        "all values for 'cloud' required by RunOn () are excluded by NotRunOn",
        id="empty-in-vs-in-quirk",
    ),
    pytest.param(
        Any(C_AWS, CLOUD.in_("aws")),
        CLOUD.exists(),
        "all options in 'any(cloud = aws OR cloud in (aws))' are excluded by 'cloud exists'",
        id="required-any-all-options-excluded",
    ),
    pytest.param(Any(), CLOUD.exists(), None, id="required-empty-any"),
    pytest.param(Any(C_AWS, Not(C_GCP)), CLOUD.exists(), None, id="required-any-non-label"),
    pytest.param(C_AWS, All(CLOUD.exists()), SPECIFIC_VALUE, id="excluder-all-of-one"),
    pytest.param(C_AWS, All(CLOUD.exists(), DEV), None, id="excluder-all-of-two"),
    pytest.param(All(All(C_AWS), PROD), CLOUD.exists(), SPECIFIC_VALUE, id="nested-all-flattened"),
    pytest.param(C_AWS, Any(Any(C_AWS), DEV), EQ_REASON, id="nested-any-flattened"),
    pytest.param(C_AWS, Not(CLOUD.ne("aws")), None, id="not-excluder-kept-whole"),
    pytest.param(C_AWS, CLOUD.ne("gcp"), None, id="eq-vs-ne-not-detected"),
    pytest.param(C_AWS, CLOUD.not_in("gcp"), None, id="eq-vs-notin-not-detected"),
    pytest.param(
        Not(C_AWS),
        Not(C_AWS),
        "identical condition 'not(cloud = aws)' in both RunOn and NotRunOn",
        id="identical-not",
    ),
    pytest.param(
        Any(Not(C_AWS)),
        Any(C_AWS),
        "Any conditions overlap: RunOn(any(not(cloud = aws))) conflicts with "
        "NotRunOn(any(cloud = aws))",
        id="any-vs-any-flattens-not",
    ),
    pytest.param(ANY_AWS_GCP, Any(C_AWS, DEV), None, id="any-vs-any-one-leaf-uncovered"),
    pytest.param(
        All(Not(DEV), C_AWS),
        Any(Not(DEV), REGION.eq("eu-west-1")),
        "'not(env = dev)' is required by All() but excluded by Any() in NotRunOn",
        id="all-vs-any-same-not-child",
    ),
    pytest.param(
        All(CLOUD.ne("aws"), PROD),
        Any(CLOUD.ne("aws"), REGION.eq("eu-west-1")),
        "'cloud != aws' is required by All() but excluded by Any() in NotRunOn",
        id="all-vs-any-same-ne-child",
    ),
    pytest.param(
        All(ANY_AWS_GCP, PROD),
        Any(ANY_AWS_GCP, DEV),
        "'any(cloud = aws OR cloud = gcp)' is required by All() but excluded by Any() in NotRunOn",
        id="all-vs-any-same-any-child",
    ),
]


@pytest.mark.parametrize(("run", "not_run", "reason"), RULE_CASES)
def test_conditions_conflict_rules(
    run: ClusterCondition, not_run: ClusterCondition, reason: str | None
) -> None:
    assert conditions_conflict(run, not_run) == reason


def test_validate_reports_first_conflict_runon_outer_loop() -> None:
    a, b = Label("a").eq("1"), Label("b").eq("1")
    with pytest.raises(ValidationError) as info:
        validate_placement(PlacementConstraints(run_on=[a, b], not_run_on=[b, a]))
    assert (info.value.run_on, info.value.not_run_on) == ("a = 1", "a = 1")
    assert info.value.message == conflict_message(
        "identical condition 'a = 1' in both RunOn and NotRunOn"
    )


def test_validate_same_key_in_both_lists_is_not_a_conflict() -> None:
    assert validate_placement(PlacementConstraints(run_on=[C_AWS], not_run_on=[C_GCP])) is None


# --- 28: ValidationError ------------------------------------------------------------------


def test_validation_error_string_is_its_message() -> None:
    err = ValidationError("test error message")
    assert str(err) == "test error message"
    assert err.message == "test error message"


# --- 30-32: cluster labels ----------------------------------------------------------------

IDENTITY_DATA = {"provider": "aws", "cluster-type": "eks", "environment": "production"}


def config_map(
    data: dict[str, str] | None,
    name: str = "vela-cluster-identity",
    namespace: str = "vela-system",
    **extra: object,
) -> ConfigMap:
    body: dict[str, object] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        **extra,
    }
    if data is not None:
        body["data"] = dict(data)  # the tests' dicts stay independent of the object
    return ConfigMap.model_validate(body)


class FakeCluster:
    """A ConfigMapSource: returns what it holds, None when not found, and records calls."""

    def __init__(self, *objects: ConfigMap) -> None:
        self.objects = {(o.namespace, o.name): o for o in objects}
        self.calls: list[tuple[str, str]] = []

    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None:
        self.calls.append((namespace, name))
        return self.objects.get((namespace, name))


class BrokenCluster:
    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None:
        raise PermissionError("forbidden")


IDENTITY = config_map(IDENTITY_DATA)
OTHER_NAME = config_map({"provider": "gcp"}, name="other")
OTHER_NAMESPACE = config_map({"provider": "gcp"}, namespace="default")

SOURCES = [
    pytest.param(lambda: IDENTITY, IDENTITY_DATA, True, id="configmap"),
    pytest.param(lambda: Fleet.of([OTHER_NAME, IDENTITY]), IDENTITY_DATA, True, id="fleet"),
    pytest.param(
        lambda: [OTHER_NAMESPACE, IDENTITY, OTHER_NAME], IDENTITY_DATA, True, id="iterable"
    ),
    pytest.param(lambda: FakeCluster(IDENTITY), IDENTITY_DATA, True, id="configmap-source"),
    pytest.param(lambda: config_map({}), {}, True, id="empty-data"),
    pytest.param(lambda: config_map(None), {}, True, id="nil-data"),
    pytest.param(
        lambda: config_map({"a": "1"}, binaryData={"b": "AAE="}),
        {"a": "1"},
        True,
        id="binary-data-ignored",
    ),
    pytest.param(lambda: None, {}, False, id="none"),
    pytest.param(lambda: Fleet.of([OTHER_NAME, OTHER_NAMESPACE]), {}, False, id="fleet-missing"),
    pytest.param(lambda: [OTHER_NAME, OTHER_NAMESPACE], {}, False, id="iterable-missing"),
    pytest.param(list, {}, False, id="iterable-empty"),
    pytest.param(lambda: FakeCluster(OTHER_NAME), {}, False, id="configmap-source-missing"),
]


@pytest.mark.parametrize(("make_source", "labels", "exists"), SOURCES)
def test_get_cluster_labels(
    make_source: Callable[[], typing.Any], labels: dict[str, str], exists: bool
) -> None:
    source = make_source()
    assert get_cluster_labels(source) == labels
    assert cluster_labels_exist(source) is exists


def test_configmap_source_is_asked_for_the_identity_configmap() -> None:
    source = FakeCluster()
    get_cluster_labels(source)
    assert source.calls == [("vela-system", "vela-cluster-identity")]


def test_configmap_source_errors_propagate() -> None:
    with pytest.raises(PermissionError, match="forbidden"):
        get_cluster_labels(BrokenCluster())


@pytest.mark.parametrize(
    "source", [IDENTITY, [IDENTITY], FakeCluster(IDENTITY)], ids=["configmap", "list", "source"]
)
def test_get_cluster_labels_returns_a_copy(source: typing.Any) -> None:
    labels = get_cluster_labels(source)
    labels["provider"] = "changed"
    labels["new"] = "x"
    assert IDENTITY.data == IDENTITY_DATA
    assert get_cluster_labels(source) == IDENTITY_DATA


FORMAT_CASES = [
    pytest.param({}, "(no labels)", id="empty"),
    pytest.param(None, "(no labels)", id="nil"),
    pytest.param({"provider": "aws"}, "provider=aws", id="one"),
    # Upstream checks only that both pairs and ", " appear; docs/semantics.md: sorted by key.
    pytest.param(
        {"provider": "aws", "cluster-type": "eks"}, "cluster-type=eks, provider=aws", id="sorted"
    ),
    pytest.param({"k": ""}, "k=", id="empty-value"),
]


@pytest.mark.parametrize(("labels", "text"), FORMAT_CASES)
def test_format_cluster_labels(labels: dict[str, str] | None, text: str) -> None:
    assert format_cluster_labels(labels) == text


def test_constants() -> None:
    assert CLUSTER_IDENTITY_CONFIGMAP == "vela-cluster-identity"
    assert CLUSTER_IDENTITY_NAMESPACE == "vela-system"
