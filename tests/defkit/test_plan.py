"""defkit.plan: the pure decision behind apply-module and plan-module."""

from __future__ import annotations

from clusterplace.defkit.module import load_module
from clusterplace.defkit.plan import plan
from tests.support.defkit import EXAMPLE

CASE_B = {"region": "us-west-2", "provider": "aws", "environment": "production"}


def test_a_verdict_per_definition_in_module_order() -> None:
    module = load_module(EXAMPLE)
    verdicts = plan(module, CASE_B)
    assert [v.name for v in verdicts] == [d.definition.name for d in module.definitions]
    assert all(v.checked for v in verdicts)  # the module's placement applies to all
    eligible = {v.name: v.eligible for v in verdicts}
    assert eligible["placement-demo"] is True


def test_types_narrow_the_plan() -> None:
    module = load_module(EXAMPLE)
    assert {v.loaded.definition.TYPE for v in plan(module, CASE_B, ["trait"])} == {"trait"}


def test_no_labels_means_the_module_placement_fails() -> None:
    verdicts = plan(load_module(EXAMPLE), {})
    assert not any(v.eligible for v in verdicts)
    assert all(v.reason for v in verdicts)
