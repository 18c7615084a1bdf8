"""A Placement an OCM hub calls misconfigured is an error where the mistake is: its
file, line, object and field on stderr, once (not on every cluster's row), a warning
that ``schedule --fail-unsatisfied`` makes an error with exit 3."""

from __future__ import annotations

from collections.abc import Callable

import yaml

from tests.support.cli import Result
from tests.support.paths import FLEET

Run = Callable[..., Result]
Golden = Callable[[str, str], None]
PLACEMENTS = "tests/data/misconfigured/placements.yaml"
F = ["-f", str(FLEET / "clusters.yaml"), "-f", str(FLEET / "clustersets.yaml"), "-f", PLACEMENTS]
WHERE = {
    "bad-cel": (
        f"{PLACEMENTS}:34: Placement/apps/bad-cel: "
        "spec.predicates[1].requiredClusterSelector.celSelector.celExpressions[1]: "
    ),
    "bad-operator": (
        f"{PLACEMENTS}:15: Placement/apps/bad-operator: "
        "spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[1]: "
    ),
    "negative": f"{PLACEMENTS}:42: Placement/apps/negative: spec.numberOfClusters: ",
}


def test_schedule_names_file_line_and_field(run: Run, golden: Golden) -> None:
    result = run("schedule", *F)
    assert result.code == 0, result.stderr
    golden("schedule-misconfigured.txt", result.stdout + "--- stderr\n" + result.stderr)
    lines = result.stderr.splitlines()
    for where in WHERE.values():
        assert sum(line.startswith(f"warning: {where}misconfigured: ") for line in lines) == 1
    # Our own message (upstream has none: a negative count panics there) has no stray colon.
    assert f"warning: {WHERE['negative']}misconfigured: numberOfClusters must not" in lines[-1]


def test_fail_unsatisfied_makes_it_an_error(run: Run) -> None:
    result = run("schedule", *F, "--fail-unsatisfied")
    assert result.code == 3
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert [e.split(": ")[1] for e in errors] == [
        f"{PLACEMENTS}:34",
        f"{PLACEMENTS}:15",
        f"{PLACEMENTS}:42",
    ]


def test_get_schedule_says_it_too(run: Run) -> None:
    result = run("get", "placements", "-n", "apps", *F, "--schedule", "-o", "name")
    assert result.code == 0, result.stderr
    for where in WHERE.values():
        assert f"warning: {where}misconfigured: " in result.stderr


def test_the_condition_keeps_upstream_s_message(run: Run) -> None:
    """The PlacementMisconfigured condition is upstream's ``PLUGIN:MESSAGE``, an empty
    plugin included (as upstream writes it for the decision strategy)."""
    result = run("schedule", *F, "-o", "yaml")
    placements = {
        d["metadata"]["name"]: d
        for d in yaml.safe_load_all(result.stdout)
        if d["kind"] == "Placement"
    }
    conditions = {c["type"]: c for c in placements["bad-operator"]["status"]["conditions"]}
    assert conditions["PlacementMisconfigured"]["message"] == (
        'Predicate:"Equals" is not a valid label selector operator'
    )


def test_explain_says_a_cel_error_once(run: Run) -> None:
    result = run("explain", "placement", "bad-cel", "-n", "apps", *F)
    assert result.code == 0, result.stderr
    rows = result.stdout.splitlines()
    assert len(rows) == 1 + 10  # the header and one line per cluster: the table holds
    assert all("see the warning on stderr" in row for row in rows[1:])
    assert "Syntax error" not in result.stdout
    assert result.stderr.count("Syntax error") == 1
    assert result.stderr.startswith(f"warning: {WHERE['bad-cel']}misconfigured: Predicate: ")
    # the compiler's pointer stays under the expression it points into
    assert result.stderr.splitlines()[1:] == [
        '    | managedCluster.metadata.labels["env"] == ',
        "    | .........................................^",
    ]
