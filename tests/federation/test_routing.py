"""Routing objects to clusters by their ClusterSelector annotation, and their file names."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.federation import ANNOTATION, RoutingError, object_file_name, route
from tests.support.builders import annotate, req

CLUSTERS = {
    "eu-2": {"location": "europe", "tier": "2"},
    "us-1": {"location": "usa", "tier": "1"},
    "eu-1": {"location": "europe", "tier": "1"},
}
ALL = ("eu-1", "eu-2", "us-1")


def obj(
    name: str,
    *,
    kind: str = "ConfigMap",
    api: str = "v1",
    namespace: str | None = "default",
    selector: Any = None,
) -> dict[str, Any]:
    """An object; ``selector`` is a requirement list (JSON-encoded) or a raw annotation value."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if isinstance(selector, list):
        meta["annotations"] = annotate(*selector)
    elif selector is not None:
        meta["annotations"] = {ANNOTATION: selector}
    return {"apiVersion": api, "kind": kind, "metadata": meta}


ROUTES = [
    ("no-annotation", obj("a"), ALL, None),
    (
        "no-metadata-annotations",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": None},
        ALL,
        None,
    ),
    ("empty-list", obj("a", selector=[]), ALL, ""),
    ("null", obj("a", selector="null"), ALL, ""),
    (
        "in",
        obj("a", selector=[req("location", "in", "europe")]),
        ("eu-1", "eu-2"),
        "location in (europe)",
    ),
    (
        "and",
        obj("a", selector=[req("tier", "==", "1"), req("location", "=", "europe")]),
        ("eu-1",),
        "location=europe,tier==1",
    ),
    (
        "notin",
        obj("a", selector=[req("location", "notin", "europe")]),
        ("us-1",),
        "location notin (europe)",
    ),
    ("gt", obj("a", selector=[req("tier", "gt", "1")]), ("eu-2",), "tier>1"),
    ("none-match", obj("a", selector=[req("location", "in", "asia")]), (), "location in (asia)"),
    ("missing-label", obj("a", selector=[req("zone", "exists")]), (), "zone"),
]


@pytest.mark.parametrize(
    ("item", "clusters", "canonical"),
    [pytest.param(o, c, s, id=i) for i, o, c, s in ROUTES],
)
def test_route_one_object(
    item: dict[str, Any], clusters: tuple[str, ...], canonical: str | None
) -> None:
    (routed,) = route([item], CLUSTERS)
    assert routed.obj is item
    assert routed.clusters == clusters
    assert routed.file_name == object_file_name(item)
    assert routed.selector == canonical


def test_route_keeps_object_order_and_sorts_clusters() -> None:
    items = [obj("b", selector=[req("location", "in", "usa")]), obj("a"), obj("c", selector=[])]
    routed = route(items, CLUSTERS)
    assert [(r.obj["metadata"]["name"], r.clusters) for r in routed] == [
        ("b", ("us-1",)),
        ("a", ALL),
        ("c", ALL),
    ]
    assert [r.selector for r in routed] == ["location in (usa)", None, ""]


def test_route_without_clusters() -> None:
    assert [r.clusters for r in route([obj("a"), obj("b", selector=[])], {})] == [(), ()]


def test_routing_error_lists_every_invalid_object() -> None:
    items = [
        obj("ok"),
        obj("bad-json", selector="[{"),
        obj("ok2", selector=[req("location", "in", "europe")]),
        obj("bad-op", selector=[req("location", "Equals", "europe")]),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"annotations": {ANNOTATION: 42}}},
        obj("bad-value", selector=[req("tier", "gt", "one")]),
    ]
    with pytest.raises(RoutingError) as info:
        route(items, CLUSTERS)
    err = info.value
    assert isinstance(err, ValueError)
    assert [index for index, _ in err.problems] == [1, 3, 4, 5]
    messages = [message for _, message in err.problems]
    assert "invalid JSON" in messages[0]
    assert "requirement [0]" in messages[1] and "'Equals' is not recognized" in messages[1]
    assert "must be a string" in messages[2]
    assert "the value must be an integer" in messages[3]
    assert all(ANNOTATION in m for m in messages)
    assert str(err) == "; ".join(messages)


FILE_NAMES = [
    (
        obj("web", kind="Deployment", api="apps/v1", namespace="shop"),
        "deployment.apps_shop_web.yaml",
    ),
    (obj("x"), "configmap_default_x.yaml"),
    (obj("x", namespace=None), "configmap_default_x.yaml"),  # the API server's default
    (obj("shop", kind="Namespace", namespace=None), "namespace_shop.yaml"),
    (
        obj("view", kind="ClusterRole", api="rbac.authorization.k8s.io/v1", namespace=None),
        "clusterrole.rbac.authorization.k8s.io_view.yaml",
    ),
    (
        obj(
            "p", kind="Placement", api="cluster.open-cluster-management.io/v1beta1", namespace="ns"
        ),
        "placement.cluster.open-cluster-management.io_ns_p.yaml",
    ),
]


@pytest.mark.parametrize(("item", "expected"), FILE_NAMES, ids=[e for _, e in FILE_NAMES])
def test_object_file_name(item: dict[str, Any], expected: str) -> None:
    assert object_file_name(item) == expected


def test_file_names_ignore_api_version() -> None:
    names = {
        object_file_name(obj("web", kind="Deployment", api=f"apps/{v}")) for v in ("v1", "v1beta2")
    }
    assert names == {"deployment.apps_default_web.yaml"}


_part = st.text(alphabet=st.sampled_from("aZ9._-%:/é \n"), min_size=1, max_size=6)
_identity = st.tuples(
    st.sampled_from(["v1", "apps/v1", "a.b/v1", "a_b/v1", "a/v1"]),
    st.sampled_from(["ConfigMap", "Namespace", "Foo", "Foo.Bar", "X_y"]),
    st.none() | _part,
    _part,
)


def _identity_key(identity: tuple[str, str, str | None, str]) -> tuple[str, str, str, str]:
    """What makes two objects one, for the API server (kinds ignore case)."""
    api, kind, namespace, name = identity
    ns = "" if kind == "Namespace" else (namespace or "default")
    return (api.rpartition("/")[0], kind.lower(), ns, name)


@settings(max_examples=500)
@given(_identity, _identity)
def test_file_names_are_injective(
    first: tuple[str, str, str | None, str], second: tuple[str, str, str | None, str]
) -> None:
    a = object_file_name(obj(first[3], kind=first[1], api=first[0], namespace=first[2]))
    b = object_file_name(obj(second[3], kind=second[1], api=second[0], namespace=second[2]))
    if _identity_key(first) != _identity_key(second):
        assert a != b
        assert a.lower() != b.lower()  # safe on case-insensitive file systems too
    else:
        assert a == b
    assert "/" not in a and a.count(".yaml") >= 1


def test_a_name_too_long_for_a_file_is_an_error() -> None:
    long = obj("r" * 250, kind="ClusterRole", api="rbac.authorization.k8s.io/v1", namespace=None)
    with pytest.raises(RoutingError, match="file systems allow 255"):
        route([long], {"c1": {}})


def test_route_and_divide_routes_then_divides_among_the_routed_clusters() -> None:
    from datetime import UTC, datetime

    from clusterplace.federation import DivisionError, RoutingError, route_and_divide

    selector = '[{"key": "env", "operator": "in", "values": ["prod"]}]'
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "apps",
            "annotations": {"federation.alpha.kubernetes.io/cluster-selector": selector},
        },
        "spec": {"replicas": 6},
    }
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    clusters = {"a": {"env": "prod"}, "b": {"env": "prod"}, "c": {"env": "dev"}}
    now = datetime(2026, 1, 1, tzinfo=UTC)
    routed, warnings = route_and_divide([deployment, config], clusters, now=now)
    assert warnings == []
    assert routed[0].clusters == ("a", "b")
    assert routed[0].division is not None
    assert routed[0].division.plan == {"a": 3, "b": 3}
    assert routed[1].clusters == ("a", "b", "c")
    assert routed[1].division is None
    bad_selector = {
        **deployment,
        "metadata": {
            **deployment["metadata"],
            "annotations": {"federation.alpha.kubernetes.io/cluster-selector": "not json"},
        },
    }
    with pytest.raises(RoutingError) as routing:
        route_and_divide([config, bad_selector], clusters, now=now)
    assert [i for i, _ in routing.value.problems] == [1]
    bad_replicas = {**deployment, "spec": {"replicas": "six"}}
    with pytest.raises(DivisionError) as division:
        route_and_divide([bad_replicas], clusters, now=now)
    assert [(i, path) for i, path, _ in division.value.problems] == [(0, ("spec", "replicas"))]


_LABELS = st.dictionaries(
    st.sampled_from(["location", "tier", "gpu"]), st.sampled_from(["europe", "usa", "1", "2"])
)
_REQUIREMENTS = st.lists(
    st.builds(
        req,
        st.sampled_from(["location", "tier", "gpu"]),
        st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
        st.sampled_from(["europe", "usa", "1", "2"]),
    ),
    max_size=3,
)


@settings(max_examples=200)
@given(
    fleet=st.dictionaries(st.from_regex(r"c[0-9]{1,3}", fullmatch=True), _LABELS, max_size=12),
    selectors=st.lists(st.none() | _REQUIREMENTS, min_size=1, max_size=5),
)
def test_many_clusters_route_as_each_cluster_alone(
    fleet: dict[str, dict[str, str]],
    selectors: list[list[dict[str, Any]] | None],
) -> None:
    """From INDEX_FROM clusters on, selectors are answered by a LabelIndex: the same
    clusters, in the same order, as matching each cluster's labels alone."""
    from clusterplace.federation import routing

    objects = [obj(f"o{i}", selector=s) for i, s in enumerate(selectors)]
    try:
        alone = route(objects, fleet)
    except RoutingError:
        return  # a requirement upstream refuses (Exists with values): not this test's
    saved, routing.INDEX_FROM = routing.INDEX_FROM, 0
    try:
        indexed = route(objects, fleet)
    finally:
        routing.INDEX_FROM = saved
    assert [r.clusters for r in indexed] == [r.clusters for r in alone]
