"""ClusterProfile ⇄ ManagedCluster: the mapping both ways, the round trip, and reading
profiles as clusters (with the clashes that are errors)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import CLUSTERSET_LABEL, ManagedCluster
from clusterplace.api.profile import (
    PROFILE_ANNOTATION,
    ClusterProfile,
    cluster_from_profile,
    profile_from_cluster,
    profile_of,
)
from clusterplace.codecs import LoadError, load_fleet

WHEN = "2026-01-02T03:04:05Z"
SIG = "multicluster.x-k8s.io/v1alpha1"


def profile_body(
    name: str = "c1",
    namespace: str = "inventory",
    labels: dict[str, str] | None = None,
    properties: dict[str, str] | None = None,
    conditions: dict[str, str] | None = None,
    version: str | None = "v1.30.2",
) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if properties:
        status["properties"] = [
            {"name": k, "value": v, "lastObservedTime": WHEN} for k, v in properties.items()
        ]
    if conditions:
        status["conditions"] = [
            {"type": t, "status": s, "reason": "Because", "message": f"{t} is {s}"}
            | {"lastTransitionTime": WHEN}
            for t, s in conditions.items()
        ]
    if version is not None:
        status["version"] = {"kubernetes": version}
    body: dict[str, Any] = {
        "apiVersion": SIG,
        "kind": "ClusterProfile",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": {"displayName": name, "clusterManager": {"name": "KubeFleet"}},
    }
    if status:
        body["status"] = status
    return body


def managed(
    name: str,
    labels: dict[str, str],
    claims: dict[str, str],
    conditions: list[dict[str, Any]],
    version: str | None,
) -> ManagedCluster:
    status: dict[str, Any] = {"conditions": conditions}
    if claims:
        status["clusterClaims"] = [{"name": k, "value": v} for k, v in claims.items()]
    if version is not None:
        status["version"] = {"kubernetes": version}
    return ManagedCluster.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": name, "labels": labels},
            "spec": {"hubAcceptsClient": True},
            "status": status,
        }
    )


# --- profile -> cluster --------------------------------------------------------------------


def test_a_profile_is_a_cluster_with_its_labels_claims_conditions_and_version() -> None:
    profile = ClusterProfile.model_validate(
        profile_body(
            labels={"region": "eu", "multicluster.x-k8s.io/clusterset": "prod"},
            properties={"id.k8s.io": "c1-uid", "platform.open-cluster-management.io": "AWS"},
            conditions={"ControlPlaneHealthy": "True", "Joined": "True", "Other": "False"},
        )
    )
    cluster = cluster_from_profile(profile)
    assert cluster.name == "c1"
    assert cluster.labels == {
        "region": "eu",
        "multicluster.x-k8s.io/clusterset": "prod",
        CLUSTERSET_LABEL: "prod",  # the SIG cluster set is the OCM cluster set
    }
    assert cluster.claims == {"id.k8s.io": "c1-uid", "platform.open-cluster-management.io": "AWS"}
    assert cluster.status is not None and cluster.status.conditions is not None
    assert [(c.type, c.status, c.reason, c.message) for c in cluster.status.conditions] == [
        ("ManagedClusterConditionAvailable", "True", "Because", "ControlPlaneHealthy is True"),
        ("ManagedClusterJoined", "True", "Because", "Joined is True"),
    ]
    assert cluster.status.version is not None
    assert cluster.status.version.kubernetes == "v1.30.2"
    assert cluster.taints == []
    assert cluster.status.allocatable is None
    assert cluster.annotations == {PROFILE_ANNOTATION: "inventory/c1"}
    assert profile_of(cluster) == ("inventory", "c1")


def test_a_profile_without_status_is_a_cluster_without_claims_or_conditions() -> None:
    cluster = cluster_from_profile(ClusterProfile.model_validate(profile_body(version=None)))
    assert cluster.claims == {}
    assert cluster.status is not None and cluster.status.conditions is None
    assert cluster.status.version is None
    assert CLUSTERSET_LABEL not in cluster.labels


def test_an_empty_sig_cluster_set_label_puts_the_cluster_in_no_set() -> None:
    body = profile_body(labels={"multicluster.x-k8s.io/clusterset": ""})
    assert CLUSTERSET_LABEL not in cluster_from_profile(ClusterProfile.model_validate(body)).labels


def test_a_managed_cluster_is_no_profile() -> None:
    assert profile_of(managed("c1", {}, {}, [], None)) is None


# --- cluster -> profile (OCM's mapping) ------------------------------------------------------


def condition(type_: str, status: str) -> dict[str, Any]:
    return {
        "type": type_,
        "status": status,
        "reason": "R",
        "message": f"{type_} {status}",
        "lastTransitionTime": WHEN,
    }


def test_a_cluster_becomes_the_profile_ocm_writes() -> None:
    cluster = managed(
        "c1",
        {"region": "eu", CLUSTERSET_LABEL: "prod"},
        {"id.k8s.io": "uid-1"},
        [
            condition("HubAcceptedManagedCluster", "True"),
            condition("ManagedClusterJoined", "True"),
            condition("ManagedClusterConditionAvailable", "False"),
        ],
        "v1.29.0",
    )
    profile = profile_from_cluster(cluster, "argocd")
    body = profile.to_dict()
    for condition_ in body["status"]["conditions"]:
        condition_.pop("lastTransitionTime")
    assert body == {
        "apiVersion": SIG,
        "kind": "ClusterProfile",
        "metadata": {
            "name": "c1",
            "namespace": "argocd",
            "labels": {
                "x-k8s.io/cluster-manager": "open-cluster-management",
                "multicluster.x-k8s.io/clusterset": "prod",
                "open-cluster-management.io/cluster-name": "c1",
            },
        },
        "spec": {"displayName": "c1", "clusterManager": {"name": "open-cluster-management"}},
        "status": {
            "conditions": [
                {
                    "type": "Joined",
                    "status": "True",
                    "reason": "R",
                    "message": "ManagedClusterJoined True",
                },
                {
                    "type": "ControlPlaneHealthy",
                    "status": "False",
                    "reason": "R",
                    "message": "ManagedClusterConditionAvailable False",
                },
            ],
            "version": {"kubernetes": "v1.29.0"},
            "properties": [{"name": "id.k8s.io", "value": "uid-1"}],
        },
    }


def test_a_cluster_in_no_set_gets_an_empty_set_label_as_ocm_writes() -> None:
    profile = profile_from_cluster(managed("c1", {}, {}, [], None), "ns")
    assert profile.labels["multicluster.x-k8s.io/clusterset"] == ""


def test_with_labels_copies_the_cluster_labels_and_the_manager_labels_win() -> None:
    cluster = managed("c1", {"region": "eu", "x-k8s.io/cluster-manager": "mine"}, {}, [], None)
    labels = profile_from_cluster(cluster, "ns", with_labels=True).labels
    assert labels["region"] == "eu"
    assert labels["x-k8s.io/cluster-manager"] == "open-cluster-management"


# --- the round trip ------------------------------------------------------------------------

KEYS = st.from_regex(r"\A(?:[a-z]{1,6}\.io/)?[a-z][a-z0-9]{0,7}\Z")
VALUES = st.from_regex(r"\A(?:[a-z0-9]{0,8})\Z")
CLAIM_NAMES = st.from_regex(r"\A[a-z][a-z0-9.]{0,20}\Z")
CLAIM_VALUES = st.text(min_size=1, max_size=20)
TYPES = st.sampled_from(
    ["ManagedClusterConditionAvailable", "ManagedClusterJoined", "HubAcceptedManagedCluster"]
)
CONDITIONS = st.lists(
    st.builds(
        lambda t, s, r, m, d: {
            "type": t,
            "status": s,
            "reason": r,
            "message": m,
            "lastTransitionTime": d.strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        TYPES,
        st.sampled_from(["True", "False", "Unknown"]),
        st.from_regex(r"\A[A-Z][A-Za-z]{0,8}\Z"),
        st.text(max_size=30),
        st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1)),
    ),
    unique_by=lambda c: c["type"],
    max_size=3,
)


@settings(max_examples=150, deadline=None)
@given(
    name=st.from_regex(r"\A[a-z][a-z0-9-]{0,20}[a-z0-9]\Z"),
    labels=st.dictionaries(KEYS, VALUES, max_size=5),
    cluster_set=st.one_of(st.none(), st.from_regex(r"\A[a-z]{1,8}\Z")),
    claims=st.dictionaries(CLAIM_NAMES, CLAIM_VALUES, max_size=5),
    conditions=CONDITIONS,
    version=st.one_of(st.none(), st.from_regex(r"\Av1\.[0-9]{1,2}\.[0-9]\Z")),
    with_labels=st.booleans(),
)
def test_cluster_to_profile_to_cluster_keeps_what_a_profile_holds(
    name: str,
    labels: dict[str, str],
    cluster_set: str | None,
    claims: dict[str, str],
    conditions: list[dict[str, Any]],
    version: str | None,
    with_labels: bool,
) -> None:
    if cluster_set is not None:
        labels = {**labels, CLUSTERSET_LABEL: cluster_set}
    original = managed(name, labels, claims, conditions, version)
    profile = profile_from_cluster(original, "consumer", with_labels=with_labels)
    # What the API server would store: the profile's JSON read back.
    back = cluster_from_profile(ClusterProfile.model_validate(profile.to_dict()))

    assert back.name == original.name
    assert back.claims == original.claims
    assert list(back.claims) == list(original.claims)  # in order
    assert back.status is not None and original.status is not None
    assert (back.status.version and back.status.version.kubernetes) == (
        original.status.version and original.status.version.kubernetes
    )
    kept = {"ManagedClusterConditionAvailable", "ManagedClusterJoined"}
    assert (back.status.conditions or []) == [
        c for c in original.status.conditions or [] if c.type in kept
    ]
    # The cluster set always survives; every label does with_labels.
    assert back.labels.get(CLUSTERSET_LABEL) == original.labels.get(CLUSTERSET_LABEL)
    if with_labels:
        assert original.labels.items() <= back.labels.items()
    assert profile_of(back) == ("consumer", name)


# --- reading profiles ----------------------------------------------------------------------


def write(path: Path, *bodies: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump_all(bodies, sort_keys=False))
    return path


def test_files_read_a_profile_as_a_cluster(tmp_path: Path) -> None:
    fleet = load_fleet(write(tmp_path / "inv.yaml", profile_body(labels={"zone": "a"})))
    assert list(fleet.clusters) == ["c1"]
    assert fleet.clusters["c1"].labels == {"zone": "a"}
    assert profile_of(fleet.clusters["c1"]) == ("inventory", "c1")


def test_a_cluster_and_a_profile_of_one_name_are_an_error_naming_both(tmp_path: Path) -> None:
    mc = managed("c1", {}, {}, [], None).to_dict()
    write(tmp_path / "a.yaml", mc)
    write(tmp_path / "b.yaml", profile_body())
    with pytest.raises(LoadError) as err:
        load_fleet(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'b.yaml'}:1: ClusterProfile/inventory/c1: describes the same cluster c1 "
        f"as {tmp_path / 'a.yaml'}:1: ManagedCluster/c1: a cluster comes from one "
        "ManagedCluster or one ClusterProfile, never both merged; remove or rename one of them"
    )


def test_two_profiles_of_one_name_in_two_namespaces_are_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", profile_body(namespace="one"), profile_body(namespace="two"))
    with pytest.raises(
        LoadError,
        match=r"ClusterProfile/two/c1: describes the same cluster c1 as .*ClusterProfile/one/c1",
    ):
        load_fleet(tmp_path)


def test_two_cluster_set_labels_that_disagree_are_an_error(tmp_path: Path) -> None:
    body = profile_body(labels={"multicluster.x-k8s.io/clusterset": "a", CLUSTERSET_LABEL: "b"})
    with pytest.raises(LoadError, match="name two cluster sets"):
        load_fleet(write(tmp_path / "p.yaml", body))


def test_a_profile_without_a_cluster_manager_is_an_error(tmp_path: Path) -> None:
    body = profile_body()
    del body["spec"]["clusterManager"]
    with pytest.raises(LoadError, match=r"spec\.clusterManager"):
        load_fleet(write(tmp_path / "p.yaml", body))


def test_a_managed_cluster_round_trips_through_the_files(tmp_path: Path) -> None:
    original = managed(
        "c9", {CLUSTERSET_LABEL: "s"}, {"k": "v"}, [condition("ManagedClusterJoined", "True")], "v1"
    )
    profile = profile_from_cluster(original, "ns", with_labels=True)
    fleet = load_fleet(write(tmp_path / "p.yaml", profile.to_dict()))
    assert fleet.clusters["c9"].claims == {"k": "v"}
    assert fleet.clusters["c9"].labels[CLUSTERSET_LABEL] == "s"
    assert datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC) == (
        fleet.clusters["c9"].status.conditions[0].last_transition_time  # type: ignore[union-attr,index]
    )


def test_the_profiles_ocm_writes_for_its_clusters_are_copies_not_a_clash(tmp_path: Path) -> None:
    mc = managed("c1", {"region": "eu"}, {}, [], None)
    copies = [profile_from_cluster(mc, ns).to_dict() for ns in ("argocd", "kueue")]
    write(tmp_path / "a.yaml", *copies, mc.to_dict())
    fleet = load_fleet(tmp_path)
    assert profile_of(fleet.clusters["c1"]) is None  # the ManagedCluster is read
    assert fleet.clusters["c1"].labels == {"region": "eu"}
