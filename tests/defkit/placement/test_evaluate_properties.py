"""Properties of ``evaluate``, against models written from defkit-placement.md sections 1-2."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from clusterplace.defkit.placement import (
    ClusterCondition,
    Eligibility,
    PlacementConstraints,
    evaluate,
)
from tests.defkit.placement._helpers import conditions, label_maps, reference_eval, specs

EMPTY = "no placement constraints defined"
NOT_SATISFIED = "runOn conditions not satisfied: "
EXCLUDED = "excluded by notRunOn: "
SATISFIED = "runOn conditions satisfied: "
NO_RUN_ON = "no runOn constraints, not excluded by notRunOn"


def model(spec: PlacementConstraints, labels: dict[str, str] | None) -> Eligibility:
    """Section 2, step by step, with the section 1 reference evaluator."""
    if not spec.run_on and not spec.not_run_on:
        return Eligibility(True, EMPTY, None, None)
    run_texts = [str(c) for c in spec.run_on]
    matched = [str(c) for c in spec.run_on if reference_eval(c, labels)]
    failed = [str(c) for c in spec.run_on if not reference_eval(c, labels)]
    if failed:
        return Eligibility(False, NOT_SATISFIED + ", ".join(failed), matched or None, None)
    for condition in spec.not_run_on:
        if reference_eval(condition, labels):
            text = str(condition)
            return Eligibility(False, EXCLUDED + text, run_texts or None, [text])
    if run_texts:
        return Eligibility(True, SATISFIED + ", ".join(run_texts), run_texts, None)
    return Eligibility(True, NO_RUN_ON, None, None)


@given(conditions(), label_maps)
def test_condition_matches_the_operator_table(
    condition: ClusterCondition, labels: dict[str, str] | None
) -> None:
    assert condition.evaluate(labels) is reference_eval(condition, labels)


@given(specs, label_maps)
def test_eligible_iff_all_runon_and_no_notrunon(
    spec: PlacementConstraints, labels: dict[str, str] | None
) -> None:
    result = evaluate(spec, labels)
    runs = [c.evaluate(labels) for c in spec.run_on]
    excludes = [c.evaluate(labels) for c in spec.not_run_on]
    assert result.eligible is (all(runs) and not any(excludes))
    if spec.is_empty():
        assert result.reason == EMPTY
    elif not all(runs):
        assert result.reason.startswith(NOT_SATISFIED)
    elif any(excludes):
        assert result.reason.startswith(EXCLUDED)
    elif spec.run_on:
        assert result.reason.startswith(SATISFIED)
    else:
        assert result.reason == NO_RUN_ON


@given(specs, label_maps)
def test_result_is_exactly_the_section_2_model(
    spec: PlacementConstraints, labels: dict[str, str] | None
) -> None:
    assert evaluate(spec, labels) == model(spec, labels)


@given(specs, st.sampled_from([None, {}]))
def test_nil_labels_are_empty_labels(
    spec: PlacementConstraints, labels: dict[str, str] | None
) -> None:
    assert evaluate(spec, labels) == evaluate(spec, {})
