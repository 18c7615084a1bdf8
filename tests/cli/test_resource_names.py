"""The one table of resource names: every name kubectl takes for the OCM kinds resolves,
in any case and with its group; nothing else does."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.cli._resources import (
    RESOURCES,
    ResourceType,
    ResourceTypeError,
    known_names,
    lookup,
    resolve,
    resource_named,
)

# The CRDs' names (open-cluster-management-io/api), and clusterplace's own two.
EXPECTED = {
    "managedclusters": {"managedcluster", "mcl", "mcls", "clusters", "cluster"},
    "managedclustersets": {"managedclusterset", "mclset", "mclsets"},
    "managedclustersetbindings": {"managedclustersetbinding", "mclsetbinding", "mclsetbindings"},
    "placements": {"placement"},
    "placementdecisions": {"placementdecision"},
    "addonplacementscores": {"addonplacementscore"},
    "manifestworkreplicasets": {"manifestworkreplicaset", "mwrs"},
    "manifestworks": {"manifestwork"},
}


def test_the_table_is_the_crds_names() -> None:
    assert {r.plural: set(r.names[1:]) for r in RESOURCES} == EXPECTED
    names = [n for r in RESOURCES for n in r.names]
    assert len(names) == len(set(names)), "a name must reach one kind only"


ALL_NAMES = [(r.plural, n) for r in RESOURCES for n in (*r.names, r.kind)]


@pytest.mark.parametrize(("plural", "name"), ALL_NAMES)
def test_every_name_and_kind_resolves(plural: str, name: str) -> None:
    assert lookup(name) is resource_named(plural)


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.plural)
def test_group_and_version_forms(resource: ResourceType) -> None:
    for name in (resource.plural, resource.singular, *resource.short_names):
        assert lookup(f"{name}.{resource.group}") is resource
        for version in resource.versions:
            assert lookup(f"{name}.{version}.{resource.group}") is resource
    assert lookup(f"{resource.plural}.example.com") is None
    assert lookup(f"{resource.plural}.v9.{resource.group}") is None
    assert lookup(f"{resource.plural}.{resource.group}.extra") is None


def test_clusterplace_s_own_names_take_no_group() -> None:
    assert lookup("clusters") is resource_named("managedclusters")
    assert lookup("clusters.cluster.open-cluster-management.io") is None


@given(st.sampled_from(ALL_NAMES), st.randoms(use_true_random=False))
def test_case_does_not_matter(entry: tuple[str, str], rnd: random.Random) -> None:
    plural, name = entry
    mixed = "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in name)
    assert lookup(mixed) is resource_named(plural)
    resource = resource_named(plural)
    if name not in resource.aliases:  # clusterplace's own names take no group
        assert lookup(f"{mixed}.{resource.group.upper()}") is resource


@given(st.text(min_size=1, max_size=20))
def test_nothing_else_resolves(text: str) -> None:
    known = {n.lower() for _, n in ALL_NAMES}
    typed = text.strip().lower()
    if typed not in known and "." not in typed:
        assert lookup(text) is None


def test_unknown_and_unsupported_names() -> None:
    with pytest.raises(ResourceTypeError) as unknown:
        resolve("pd")
    assert unknown.value.message == 'the server doesn\'t have a resource type "pd"'
    assert unknown.value.exit_code == 2
    supported = [resource_named("placements")]
    with pytest.raises(ResourceTypeError) as other:
        resolve("mcl", supported, "clusterplace describe")
    assert other.value.message == (
        "clusterplace describe does not take managedclusters (it takes placements)"
    )


def test_known_names_list_each_kind_once() -> None:
    lines = known_names()
    assert lines[0] == "managedclusters (managedcluster, mcl, mcls, clusters, cluster)"
    assert "placements (placement)" in lines
    assert len(lines) == len(RESOURCES)


def test_object_names() -> None:
    assert resource_named("managedclusters").object_name("c1") == (
        "managedcluster.cluster.open-cluster-management.io/c1"
    )
    assert resource_named("manifestworkreplicasets").object_name("w") == (
        "manifestworkreplicaset.work.open-cluster-management.io/w"
    )
    assert resource_named("placements").qualified == "placements.cluster.open-cluster-management.io"
