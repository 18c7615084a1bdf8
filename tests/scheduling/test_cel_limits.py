"""CEL evaluation is bounded as upstream bounds it, and says what failed."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import cel
import pytest
from cel.stdlib import add_stdlib_to_context
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.scheduling.explain import explain
from clusterplace.scheduling.filters.cel import compile_expression
from clusterplace.scheduling.filters.cel_cost import PER_CALL_LIMIT, CostExceeded, Meter, instrument
from tests.support.builders import NOW, cluster, placement, score, world
from tests.support.scheduling import run_all

ITEMS = "[" + ",".join(str(i) for i in range(40)) + "]"
NESTED = "".join(f"{ITEMS}.all({v}, " for v in "abcde") + "a + b + c + d + e >= 0" + ")" * 5


def _reasons(expression: str, *objects: Any) -> dict[str, tuple[bool, str]]:
    pl = placement(
        predicates=[{"requiredClusterSelector": {"celSelector": {"celExpressions": [expression]}}}]
    )
    result = run_all(world(*objects, placement_obj=pl), now=NOW)
    placed = result.placements[0]
    return {e.cluster: (e.selected, e.reason) for e in explain(result.snapshot, placed)}


def test_five_nested_alls_fail_on_the_cost_limit_quickly() -> None:
    reasons = _reasons(NESTED, cluster("c1"), cluster("c2"))
    for selected, reason in reasons.values():
        assert not selected
        assert f"failed: actual cost limit exceeded (limit {PER_CALL_LIMIT})" in reason


def test_cheap_comprehensions_are_unaffected() -> None:
    small = "[1,2,3].all(a, [1,2,3].all(b, a * b > 0))"
    assert all(selected for selected, _ in _reasons(small, cluster("c1")).values())


def test_the_runtime_budget_spans_a_clusters_expressions() -> None:
    meter = Meter(limit=100, budget=150)
    meter.start()
    meter.charge(90)
    meter.start()
    with pytest.raises(CostExceeded, match="runtime cost budget exceeded"):
        meter.charge(90)
    meter = Meter(limit=100, budget=1000)
    meter.start()
    with pytest.raises(CostExceeded, match="actual cost limit exceeded"):
        meter.charge(101)


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ('semver("v1.29.7").major() == 1', "failed: semver: could not parse 'v1.29.7' as semver"),
        ('managedCluster.metadata.labels["nope"] == "x"', "failed: no such key: nope"),
        ('{"a": 1}["b"] == 1', "failed: no such key: b"),
        (
            'parseJSON("' + "[" * 5000 + "]" * 5000 + '") == []',
            "failed: parseJSON: nested more than 128 levels deep",
        ),
        ("managedCluster.metadata.name", "is not a boolean but str 'c1'"),
        ("1 == 2", "is false"),
        ("managedCluster.scores('missing').all(e, e.value > 0)", "failed: "),
    ],
)
def test_evaluation_failures_say_what_failed(expression: str, fragment: str) -> None:
    ((selected, reason),) = _reasons(expression, cluster("c1")).values()
    assert not selected and fragment in reason, reason


def test_failing_library_calls_print_nothing() -> None:
    """The engine reports every exception a Python function raises (a line on standard
    error, through logging): muted. In a fresh process, where no test harness holds
    logging's handlers or the file descriptors."""
    script = (
        "from clusterplace.scheduling.explain import explain\n"
        "from tests.support.builders import cluster, placement, world\n"
        "from tests.support.scheduling import run_all\n"
        "cel = {'celExpressions': ['semver(\"v1.29.7\").major() == 1']}\n"
        "pl = placement(predicates=[{'requiredClusterSelector': {'celSelector': cel}}])\n"
        "result = run_all(world(cluster('c1'), cluster('c2'), placement_obj=pl))\n"
        "print('result', [e.reason for e in explain(result.snapshot, result.placements[0])])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.count("\n") == 1 and out.stdout.startswith("result")
    assert "could not parse" in out.stdout
    assert out.stderr == ""


def test_scores_are_still_read() -> None:
    reasons = _reasons(
        "managedCluster.scores('res').exists(e, e.name == 'cpu' && e.value > 50)",
        cluster("c1"),
        cluster("c2"),
        score("c1", "res", {"cpu": 80}),
        score("c2", "res", {"cpu": 10}),
    )
    assert reasons["c1"][0] and not reasons["c2"][0]


_small = st.lists(st.integers(-3, 3), max_size=4).map(lambda v: "[" + ",".join(map(str, v)) + "]")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["all", "exists", "exists_one", "filter", "map"]),
    st.sampled_from(["all", "exists", "exists_one", "filter", "map"]),
    _small,
    _small,
)
def test_metering_never_changes_a_result(outer: str, inner: str, xs: str, ys: str) -> None:
    def boolean(macro: str, items: str, var: str, body: str) -> str:
        if macro in ("filter", "map"):
            return f"{items}.{macro}({var}, {body}).size() > 1"
        return f"{items}.{macro}({var}, {body})"

    inner_expr = boolean(inner, ys, "y", "x + y > 0")
    source = boolean(outer, xs, "x", inner_expr)
    assert instrument(source) != source
    context = cel.Context()
    add_stdlib_to_context(context)
    plain = cel.compile(source).execute(context)
    reason = compile_expression(source).evaluate({}, lambda _: None, Meter())
    assert reason == (None if plain is True else "is false")
