"""The Predicate filter: labels, claims and CEL (upstream cases 12–19)."""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.api import KubeObject
from clusterplace.scheduling import Code
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.pipeline import run_pipeline
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import NOW, cluster, fleet, placement, score, world
from tests.support.scheduling import context, misconfigured, run, satisfied

C1, C2, C3 = "cluster1", "cluster2", "cluster3"


def labels(**match_labels: str) -> dict[str, Any]:
    return {"matchLabels": match_labels}


def claims(*expressions: tuple[str, str, list[str]]) -> dict[str, Any]:
    return {
        "matchExpressions": [
            {"key": key, "operator": op, "values": values} for key, op, values in expressions
        ]
    }


def pred(
    label_selector: dict[str, Any] | None = None,
    claim_selector: dict[str, Any] | None = None,
    cel: list[str] | None = None,
) -> dict[str, Any]:
    selector: dict[str, Any] = {}
    if label_selector is not None:
        selector["labelSelector"] = label_selector
    if claim_selector is not None:
        selector["claimSelector"] = claim_selector
    if cel is not None:
        selector["celSelector"] = {"celExpressions": cel}
    return {"requiredClusterSelector": selector}


def feasible(objects: list[KubeObject], predicates: list[dict[str, Any]]) -> list[str]:
    """Clusters that survive the filters for ``placement1`` with ``predicates``."""
    pl = placement(predicates=predicates)
    outcome = run_pipeline(Snapshot(fleet(*world(*objects, placement_obj=pl))), pl, NOW)
    assert outcome.status.code == Code.SUCCESS, outcome.status
    return outcome.feasible


CASES = [
    pytest.param(
        [cluster(C1, labels={"cloud": "Amazon"}), cluster(C2, labels={"cloud": "Google"})],
        [pred(labels(cloud="Amazon"))],
        [C1],
        id="12-label",
    ),
    pytest.param(
        [cluster(C1, claims={"cloud": "Amazon"}), cluster(C2, claims={"cloud": "Google"})],
        [pred(claim_selector=claims(("cloud", "In", ["Amazon"])))],
        [C1],
        id="13-claim-in",
    ),
    pytest.param(
        [
            cluster(C1, labels={"cloud": "Amazon"}, claims={"region": "us-east-1"}),
            cluster(C2, labels={"cloud": "Amazon"}, claims={"region": "us-east-2"}),
        ],
        [pred(labels(cloud="Amazon"), claims(("region", "In", ["us-east-1"])))],
        [C1],
        id="14-label-and-claim",
    ),
    pytest.param(
        [
            cluster(C1, labels={"cloud": "Amazon"}),
            cluster(C2, claims={"region": "us-east-1"}),
            cluster(C3, claims={"region": "us-east-2"}),
        ],
        [
            pred(labels(cloud="Amazon")),
            pred(claim_selector=claims(("region", "In", ["us-east-1"]))),
        ],
        [C1, C2],
        id="15-predicates-are-ored",
    ),
    pytest.param(
        [cluster(C1, labels={"region": "us-east-1"}), cluster(C2, labels={"region": "us-west-1"})],
        [pred(cel=['managedCluster.metadata.labels["region"] == "us-east-1"'])],
        [C1],
        id="16-cel-label",
    ),
    pytest.param(
        [cluster(C1, claims={"cloud": "Amazon"}), cluster(C2, claims={"cloud": "Google"})],
        [
            pred(
                cel=[
                    'managedCluster.status.clusterClaims.exists(c, c.name == "cloud" '
                    '&& c.value == "Amazon")'
                ]
            )
        ],
        [C1],
        id="17-cel-claims",
    ),
    pytest.param(
        [
            cluster(C1),
            cluster(C2),
            score(C1, "test-addon", {"test-score": 90}),
            score(C2, "test-addon", {"test-score": 70}),
        ],
        [
            pred(
                cel=[
                    "managedCluster.scores(\"test-addon\").filter(s, s.name == 'test-score')"
                    ".all(e, e.value > 80)"
                ]
            )
        ],
        [C1],
        id="18-cel-scores",
    ),
    pytest.param(
        [
            cluster(C1, labels={"env": "prod"}),
            cluster(C2, labels={"env": "prod"}),
            score(C1, "test-addon", {"test-score": 90}),
            score(C2, "test-addon", {"test-score": 70}),
        ],
        [
            pred(
                cel=[
                    "managedCluster.scores(\"test-addon\").filter(s, s.name == 'test-score')"
                    ".all(e, e.value > 80)",
                    'managedCluster.metadata.labels["env"] == "prod"',
                ]
            )
        ],
        [C1],
        id="18-cel-expressions-are-anded",
    ),
    pytest.param(
        [cluster(C1), cluster(C2)],
        [pred(cel=[])],
        [C1, C2],
        id="19-empty-cel-list-matches-all",
    ),
    pytest.param(
        [cluster(C1), cluster(C2)],
        [],
        [C1, C2],
        id="no-predicates",
    ),
    pytest.param(
        [cluster(C1), cluster(C2)],
        [pred()],
        [C1, C2],
        id="empty-selector-matches-all",
    ),
    pytest.param(
        [cluster(C1, labels={"a": "1"}), cluster(C2)],
        [pred(labels(a="1"), cel=["managedCluster.metadata.name == 'cluster2'"])],
        [],
        id="label-and-cel-anded-within-predicate",
    ),
    pytest.param(
        [cluster(C1, claims={"region": "x"}), cluster(C2)],
        [pred(claim_selector=claims(("region", "Exists", [])))],
        [C1],
        id="claim-exists",
    ),
    pytest.param(
        [cluster(C1, claims={"region": "x"}), cluster(C2)],
        [pred(claim_selector=claims(("region", "DoesNotExist", [])))],
        [C2],
        id="claim-does-not-exist",
    ),
    pytest.param(
        [cluster(C1, claims={"region": "x"}), cluster(C2, claims={"region": "y"}), cluster(C3)],
        [pred(claim_selector=claims(("region", "NotIn", ["x"])))],
        [C2, C3],
        id="claim-not-in",
    ),
    pytest.param(
        [cluster(C1, labels={"v": "1.3.0"}), cluster(C2, labels={"v": "1.1.0"})],
        [pred(cel=['semver(managedCluster.metadata.labels["v"]).isGreaterThan(semver("1.2.0"))'])],
        [C1],
        id="cel-semver-library",
    ),
    pytest.param(
        [cluster(C1, labels={"region": "x"}), cluster(C2)],
        [pred(cel=['managedCluster.metadata.labels["region"] == "x"'])],
        [C1],
        id="cel-evaluation-error-is-no-match",
    ),
    pytest.param(
        [cluster(C1), cluster(C2)],
        [pred(cel=["managedCluster.metadata.name"])],
        [],
        id="cel-non-bool-is-no-match",
    ),
    pytest.param(
        # Upstream's scores() returns an error for a missing object: no vacuous all().
        [cluster(C1), cluster(C2), score(C1, "test-addon", {"other": 90})],
        [pred(cel=["managedCluster.scores('test-addon').all(e, e.value > 0)"])],
        [C1],
        id="cel-scores-of-missing-object-is-no-match",
    ),
    pytest.param(
        [cluster(C1), score(C1, "test-addon", {})],
        [pred(cel=["managedCluster.scores('test-addon').all(e, e.value > 0)"])],
        [C1],
        id="cel-scores-of-object-without-items-is-empty-list",
    ),
]


@pytest.mark.parametrize(("objects", "predicates", "expected"), CASES)
def test_predicate(
    objects: list[KubeObject], predicates: list[dict[str, Any]], expected: list[str]
) -> None:
    assert feasible(objects, predicates) == expected


def test_filter_unit_keeps_order_and_reports_rejections() -> None:
    pl = placement(predicates=[pred(labels(cloud="Amazon"))])
    c1 = cluster(C1, labels={"cloud": "Amazon"})
    c2 = cluster(C2, labels={"cloud": "Google"})
    result = PredicateFilter().filter(context(pl, c1, c2), [c1, c2])
    assert [c.name for c in result.clusters] == [C1]
    assert result.status.code == Code.SUCCESS
    assert set(result.rejected) == {C2}
    assert "cloud=Amazon" in result.rejected[C2]


def test_19_invalid_cel_is_misconfigured() -> None:
    result = run(
        *world(
            cluster(C1),
            cluster(C2),
            predicates=[pred(cel=["invalid.expression"])],
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert result.status.plugin == "Predicate"
    assert result.status.message.startswith("compilation failed:")
    assert result.outcome is not None
    assert result.outcome.selected == []
    assert result.outcome.filter_records == []
    assert [pd.cluster_names for pd in result.decisions] == [[]]
    status, reason, message = misconfigured(result)
    assert (status, reason) == ("True", "Misconfigured")
    assert message.startswith("Predicate:compilation failed:")
    assert satisfied(result)[1] == "NoManagedClusterMatched"


def test_invalid_cel_without_candidates_is_not_validated() -> None:
    # Both filters return at once on an empty list: nothing is reported.
    result = run(*world(predicates=[pred(cel=["invalid.expression"])]))
    assert result.status.code == Code.SUCCESS
    assert satisfied(result) == (
        "False",
        "AllManagedClusterSetsEmpty",
        "All ManagedClusterSets [clusterset1] have no member ManagedCluster",
    )


def test_invalid_label_selector_is_misconfigured() -> None:
    bad = {"matchExpressions": [{"key": "cloud", "operator": "Foo", "values": ["x"]}]}
    result = run(*world(cluster(C1), predicates=[pred(bad)]))
    assert result.status.code == Code.MISCONFIGURED
    assert result.status.plugin == "Predicate"
    assert result.decisions[0].cluster_names == []


def test_invalid_claim_selector_is_misconfigured() -> None:
    bad = claims(("region", "In", []))
    result = run(*world(cluster(C1), predicates=[pred(claim_selector=bad)]))
    assert result.status.code == Code.MISCONFIGURED
    assert result.status.plugin == "Predicate"


def test_44_invalid_cel_then_fixed() -> None:
    objects: list[KubeObject] = [
        cluster(C1),
        cluster(C2),
        score(C1, "test-addon", {"test-score": 70}),
        score(C2, "test-addon", {"test-score": 90}),
    ]
    broken = run(*world(*objects, predicates=[pred(cel=["xxxx.expression"])]))
    assert misconfigured(broken)[0:2] == ("True", "Misconfigured")
    assert [pd.cluster_names for pd in broken.decisions] == [[]]
    fixed_expression = (
        "managedCluster.scores('test-addon').filter(s, s.name == 'test-score').all(e, e.value > 80)"
    )
    fixed = run(*world(*objects, *broken.decisions, predicates=[pred(cel=[fixed_expression])]))
    assert misconfigured(fixed)[1] == "Succeedconfigured"
    assert [pd.cluster_names for pd in fixed.decisions] == [[C2]]


@pytest.mark.parametrize(
    "selector",
    [
        {"claimSelector": claims(("n", "Gt", ["1"]))},
        {"labelSelector": {"matchExpressions": [{"key": "n", "operator": "Lt", "values": ["3"]}]}},
    ],
    ids=["claim-gt", "label-lt"],
)
def test_gt_lt_rejected_in_label_selector_requirements(selector: dict[str, Any]) -> None:
    # docs/semantics.md: Gt/Lt are rejected in metav1.LabelSelector matchExpressions, as upstream.
    result = run(
        *world(
            cluster(C1, labels={"n": "2"}, claims={"n": "2"}),
            predicates=[{"requiredClusterSelector": selector}],
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert result.status.plugin == "Predicate"
