"""The preferences annotation decoded as Go's encoding/json decodes it into upstream's
untagged structs, and what happens to an invalid one."""

from __future__ import annotations

import pytest

from clusterplace.federation import (
    ClusterPreferences,
    PreferencesError,
    ReplicaPreferences,
    parse_preferences,
    plan_replicas,
)


def test_the_documented_form() -> None:
    prefs = parse_preferences(
        '{"rebalance": true, "clusters": {"a": {"minReplicas": 1, "maxReplicas": 5, '
        '"weight": 2}, "*": {"weight": 1}}}'
    )
    assert prefs.rebalance is True
    assert prefs.clusters == {"a": ClusterPreferences(1, 5, 2), "*": ClusterPreferences(0, None, 1)}


@pytest.mark.parametrize(
    "text",
    [
        '{"Rebalance": true, "CLUSTERS": {"a": {"MINREPLICAS": 1, "maxreplicas": 5, "WeIgHt": 2}}}',
        # Go folds the long s to s (and the Kelvin sign to k) when matching field names.
        '{"rebalance": true, "clusterſ": {"a": {"minReplicaſ": 1, "maxReplicas": 5, "weight": 2}}}',
    ],
)
def test_keys_match_field_names_without_regard_to_case(text: str) -> None:
    prefs = parse_preferences(text)
    assert prefs.rebalance and prefs.clusters == {"a": ClusterPreferences(1, 5, 2)}


def test_cluster_names_are_exact_and_unknown_keys_ignored() -> None:
    prefs = parse_preferences('{"clusters": {"A": {"weight": 1, "colour": [1, "x"]}}, "x": 1}')
    assert prefs.for_cluster("A") == ClusterPreferences(weight=1)
    assert prefs.for_cluster("a") is None


def test_null_rules() -> None:
    # null keeps an integer, clears maxReplicas, gives a cluster every default.
    prefs = parse_preferences(
        '{"rebalance": true, "rebalance": null, "clusters": {"a": {"weight": 3, "weight": null, '
        '"maxReplicas": 4, "maxReplicas": null}, "b": null}}'
    )
    assert prefs.rebalance is True
    assert prefs.clusters == {"a": ClusterPreferences(0, None, 3), "b": ClusterPreferences()}
    assert parse_preferences("null") == ReplicaPreferences()
    assert parse_preferences('{"clusters": {"a": {}}, "clusters": null}').clusters == {}


def test_repeated_keys_merge_maps_and_replace_entries() -> None:
    prefs = parse_preferences(
        '{"clusters": {"a": {"weight": 1, "minReplicas": 2}}, "Clusters": {"b": {"weight": 2}},'
        ' "clusters": {"a": {"weight": 5}}}'
    )
    assert prefs.clusters == {
        "a": ClusterPreferences(0, None, 5),
        "b": ClusterPreferences(weight=2),
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "invalid JSON"),
        ("{", "invalid JSON"),
        ('{"clusters": {"a": {"weight": NaN}}}', "invalid JSON"),
        ("[]", "cannot decode array"),
        ('"x"', "cannot decode string"),
        ('{"rebalance": "true"}', "rebalance: cannot decode string"),
        ('{"rebalance": 1}', "rebalance: cannot decode number 1"),
        ('{"clusters": []}', "clusters: cannot decode array"),
        ('{"clusters": {"a": 3}}', 'clusters["a"]: cannot decode number 3'),
        ('{"clusters": {"a": {"weight": "1"}}}', 'clusters["a"].weight: cannot decode string'),
        ('{"clusters": {"a": {"weight": 1.5}}}', "cannot decode number 1.5 as an int64"),
        ('{"clusters": {"a": {"weight": 1.0}}}', "cannot decode number 1.0 as an int64"),
        ('{"clusters": {"a": {"minReplicas": 1e2}}}', "cannot decode number 1e2"),
        ('{"clusters": {"a": {"maxReplicas": 9223372036854775808}}}', "as an int64"),
        ('{"clusters": {"a": {"weight": true}}}', "cannot decode bool"),
        ('{"clusters": {"a": {"weight": -1}}}', 'clusters["a"].weight: -1 is negative'),
        ('{"clusters": {"*": {"maxReplicas": -2}}}', "maxReplicas: -2 is negative"),
    ],
)
def test_invalid_annotations(text: str, why: str) -> None:
    with pytest.raises(PreferencesError, match=why.replace("[", r"\[").replace(".", r"\.")):
        parse_preferences(text)


def test_negative_zero_and_overwritten_negatives_are_valid() -> None:
    prefs = parse_preferences(
        '{"clusters": {"a": {"weight": -0, "minReplicas": -1, "minReplicas": 2}}}'
    )
    assert prefs.clusters["a"] == ClusterPreferences(2, None, 0)


def test_an_invalid_annotation_falls_back_to_the_defaults() -> None:
    result = plan_replicas('{"clusters": {"a": {"weight": "heavy"}}}', 4, ["a", "b"])
    assert result.preferences_error is not None and "weight" in result.preferences_error
    assert result.preferences == ReplicaPreferences.default()
    assert result.plan == plan_replicas(None, 4, ["a", "b"]).plan
    assert sum(result.plan.values()) == 4


def test_no_entry_and_no_star_means_zero() -> None:
    result = plan_replicas('{"clusters": {"a": {"weight": 1}}}', 5, ["a", "b"])
    assert result.plan == {"a": 5, "b": 0}
    assert "no preferences" in result.reasons()["b"]
    assert plan_replicas("{}", 5, ["a", "b"]).plan == {"a": 0, "b": 0}
