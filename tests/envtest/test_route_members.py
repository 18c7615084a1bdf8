"""``clusterplace route --to-kubeconfig`` into real API servers: member ``a`` on one
server, member ``b`` on another, member ``r`` on ``a``'s server as a user with no
rights. A first run into fresh members creates each Namespace, and each
CustomResourceDefinition (Established), before what lives in them; a second run
changes nothing; a move prunes only what clusterplace applied, in the reverse order;
a field another manager owns is a conflict that ``--force`` takes over; RBAC refuses
the restricted member alone."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import (
    ADMIN_TOKEN,
    RESTRICTED_TOKEN,
    RESTRICTED_USER,
    Envtest,
    envtest_server,
    write_kubeconfig,
)
from tests.support.waiting import wait_for

Run = Callable[..., Result]

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
LABEL = "federation.clusterplace.io/managed-by"
GROUP = "shop.example.com"


@pytest.fixture(scope="module")
def second(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    """Member ``b`` 's own API server."""
    with envtest_server(tmp_path_factory.mktemp("member-b")) as server:
        yield server


class Members:
    """Members a (``envtest``), b (``second``) and r (``envtest`` as the restricted
    user); a fleet file and a manifests file in ``folder``."""

    def __init__(self, folder: Path, a: Envtest, b: Envtest) -> None:
        self.folder = folder
        self.servers = {"a": a, "b": b}
        self.kubeconfig = write_kubeconfig(
            folder / "members.kubeconfig",
            {"a": (a, ADMIN_TOKEN), "b": (b, ADMIN_TOKEN), "r": (a, RESTRICTED_TOKEN)},
        )
        self.fleet = folder / "fleet.yaml"
        self.manifests = folder / "manifests.yaml"

    def regions(self, regions: dict[str, str]) -> None:
        self.fleet.write_text(
            yaml.safe_dump_all(
                [
                    {
                        "apiVersion": "cluster.open-cluster-management.io/v1",
                        "kind": "ManagedCluster",
                        "metadata": {"name": name, "labels": {"region": region}},
                        "spec": {"hubAcceptsClient": True},
                    }
                    for name, region in regions.items()
                ]
            )
        )

    def route(self, run: Run, *extra: str) -> Result:
        return run(
            "route",
            "-f",
            str(self.manifests),
            "--clusters",
            str(self.fleet),
            "--to-kubeconfig",
            str(self.kubeconfig),
            *extra,
        )

    def get(self, member: str, path: str) -> Any:
        return self.servers[member].get(path)

    def names(self, member: str, path: str) -> set[str]:
        items = (self.get(member, path) or {}).get("items") or ()
        return {item["metadata"]["name"] for item in items}

    def our_writes(self, member: str, since: int = 0) -> list[dict[str, Any]]:
        """The audit log's requests by clusterplace that change something."""
        return [
            e
            for e in self.servers[member].audit()[since:]
            if str(e.get("userAgent", "")).startswith("clusterplace/")
            and e.get("verb") not in ("get", "list", "watch")
        ]


@pytest.fixture
def members(tmp_path: Path, envtest: Envtest, second: Envtest) -> Iterator[Members]:
    """The members; after the test, everything clusterplace made in them is deleted
    (the servers are the module's: the next test starts from members holding none)."""
    yield Members(tmp_path, envtest, second)
    for server in (envtest, second):
        for path in (
            "/api/v1/namespaces",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        ):
            listing = server.get(f"{path}?labelSelector={LABEL}%3Dclusterplace") or {}
            for item in listing.get("items") or ():
                server.request("DELETE", f"{path}/{item['metadata']['name']}")
            wait_for(
                lambda server=server, path=path: (
                    not (  # type: ignore[misc]
                        server.get(f"{path}?labelSelector={LABEL}%3Dclusterplace") or {}
                    ).get("items")
                ),
                60,
                f"clusterplace's {path.rsplit('/', 1)[1]} deleted",
            )


def rows(result: Result) -> dict[str, list[str]]:
    lines = result.stdout.splitlines()
    return {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}


def eu_only() -> dict[str, str]:
    return {ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": ["eu"]}])}


def shop(namespace: str) -> list[dict[str, Any]]:
    """A namespace, what lives in it and a custom resource with its definition, listed
    in the order a dependency check would refuse (the dependents first)."""
    plural = f"carts{namespace.replace('-', '')}"
    kind = f"Cart{namespace.replace('-', '').capitalize()}"
    return [
        {
            "apiVersion": f"{GROUP}/v1",
            "kind": kind,
            "metadata": {"name": "basket", "namespace": namespace},
            "spec": {"items": 3},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace, "annotations": eu_only()},
            "spec": {
                "replicas": 4,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": namespace},
            "data": {"currency": "EUR"},
        },
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {
                "group": GROUP,
                "scope": "Namespaced",
                "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {
                            "openAPIV3Schema": {
                                "type": "object",
                                "x-kubernetes-preserve-unknown-fields": True,
                            }
                        },
                    }
                ],
            },
        },
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
    ]


def test_a_first_run_into_fresh_members_converges_and_a_second_changes_nothing(
    members: Members, run: Run
) -> None:
    ns = "shop-first"
    members.manifests.write_text(yaml.safe_dump_all(shop(ns)))
    members.regions({"a": "eu", "b": "us"})
    first = members.route(run)
    assert first.code == 0, first.stderr + first.stdout
    assert rows(first)["a"] == ["5", "0", "0", "0", "converged"]
    assert rows(first)["b"] == ["4", "0", "0", "0", "converged"]
    crd_plural = f"carts{ns.replace('-', '')}"
    for member in ("a", "b"):
        assert ns in members.names(member, "/api/v1/namespaces")
        assert members.names(member, f"/api/v1/namespaces/{ns}/configmaps") >= {"settings"}
        basket = members.get(member, f"/apis/{GROUP}/v1/namespaces/{ns}/{crd_plural}/basket")
        assert basket["spec"] == {"items": 3}
        assert basket["metadata"]["labels"][LABEL] == "clusterplace"
    assert members.names("a", f"/apis/apps/v1/namespaces/{ns}/deployments") == {"web"}
    assert not members.names("b", f"/apis/apps/v1/namespaces/{ns}/deployments")
    # The set's parent (a ConfigMap in default) first, naming what the set will hold;
    # then the namespace and the definition before what needs them.
    writes = members.our_writes("b")
    assert (writes[0]["objectRef"]["resource"], writes[0]["objectRef"]["namespace"]) == (
        "configmaps",
        "default",
    )
    order = [e["objectRef"]["resource"] for e in writes[1:]]
    assert order.index("namespaces") < order.index("configmaps")
    assert order.index("customresourcedefinitions") < order.index(crd_plural)

    before = {m: len(members.servers[m].audit()) for m in ("a", "b")}
    again = members.route(run)
    assert again.code == 0, again.stderr
    assert rows(again)["a"] == ["0", "5", "0", "0", "converged"]
    assert rows(again)["b"] == ["0", "4", "0", "0", "converged"]
    # Idempotent: the applies sent changed no object (no new resourceVersion).
    for member in ("a", "b"):
        writes = members.our_writes(member, before[member])
        assert writes and all(e["verb"] == "patch" for e in writes)
        assert all(e["responseStatus"]["code"] == 200 for e in writes)
    web = members.get("a", f"/apis/apps/v1/namespaces/{ns}/deployments/web")
    assert web["metadata"]["generation"] == 1


def test_a_move_prunes_only_what_it_applied_in_reverse_order(members: Members, run: Run) -> None:
    ns = "shop-move"
    members.manifests.write_text(yaml.safe_dump_all(shop(ns)))
    members.regions({"a": "eu", "b": "eu"})
    assert members.route(run).code == 0
    # Someone else's objects beside clusterplace's copies in b.
    b = members.servers["b"]
    theirs = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "theirs"}}
    status, _ = b.request("POST", f"/api/v1/namespaces/{ns}/configmaps", theirs)
    assert status == 201
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "api"}},
            "template": {
                "metadata": {"labels": {"app": "api"}},
                "spec": {"containers": [{"name": "api", "image": "nginx"}]},
            },
        },
    }
    assert b.request("POST", f"/apis/apps/v1/namespaces/{ns}/deployments", deployment)[0] == 201

    members.regions({"a": "eu", "b": "us"})
    moved = members.route(run)
    assert moved.code == 0, moved.stderr
    assert rows(moved)["b"] == ["0", "4", "1", "0", "converged"]
    assert members.names("b", f"/apis/apps/v1/namespaces/{ns}/deployments") == {"api"}
    assert members.names("b", f"/api/v1/namespaces/{ns}/configmaps") >= {"settings", "theirs"}

    # b leaves the fleet's routing entirely: everything it holds of clusterplace's goes,
    # the namespace last, and nothing of anyone else's was deleted by clusterplace.
    mark = len(b.audit())
    members.manifests.write_text(
        yaml.safe_dump_all(
            [{**m, "metadata": {**m["metadata"], "annotations": eu_only()}} for m in shop(ns)]
        )
    )
    gone = members.route(run)
    assert gone.code == 0, gone.stderr
    assert rows(gone)["b"] == ["0", "0", "4", "0", "converged"]
    deletes = [e["objectRef"] for e in members.our_writes("b", mark) if e["verb"] == "delete"]
    plural = f"carts{ns.replace('-', '')}"
    assert [(d["resource"], d["name"]) for d in deletes] == [
        (plural, "basket"),
        ("customresourcedefinitions", f"{plural}.{GROUP}"),
        ("configmaps", "settings"),
        ("namespaces", ns),
    ]
    assert rows(gone)["a"] == ["4", "1", "0", "0", "converged"]  # the new annotation


def test_a_field_another_manager_owns_is_a_conflict_and_force_takes_it(
    members: Members, run: Run
) -> None:
    ns = "shop-conflict"
    members.manifests.write_text(yaml.safe_dump_all(shop(ns)))
    members.regions({"a": "eu", "b": "us"})
    assert members.route(run).code == 0
    b = members.servers["b"]
    patch = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"currency": "CHF"}}
    status, body = b.request(
        "PATCH",
        f"/api/v1/namespaces/{ns}/configmaps/settings?fieldManager=finance&force=true",
        patch,
        content_type="application/apply-patch+yaml",
    )
    assert status == 200, body
    result = members.route(run)
    assert result.code == 1
    assert rows(result)["b"][-1] == "conflict"
    assert rows(result)["a"][-1] == "converged"
    assert "another field manager" in result.stderr and "--force" in result.stderr
    assert "finance" in result.stderr
    settings = f"/api/v1/namespaces/{ns}/configmaps/settings"
    assert members.get("b", settings)["data"] == {"currency": "CHF"}
    forced = members.route(run, "--force")
    assert forced.code == 0, forced.stderr
    taken = members.get("b", settings)
    assert taken["data"] == {"currency": "EUR"}
    owners = {
        f["manager"]
        for f in taken["metadata"]["managedFields"]
        if "f:currency" in json.dumps(f.get("fieldsV1"))
    }
    assert owners == {"clusterplace"}


def test_rbac_refuses_the_restricted_member_alone(members: Members, run: Run) -> None:
    ns = "shop-rbac"
    members.manifests.write_text(
        yaml.safe_dump_all([m for m in shop(ns) if m["kind"] in ("Namespace", "ConfigMap")])
    )
    members.regions({"a": "eu", "b": "us", "r": "us"})
    result = members.route(run)
    assert result.code == 1
    assert rows(result)["r"][-1] == "forbidden"
    assert rows(result)["a"][-1] == "converged" and rows(result)["b"][-1] == "converged"
    assert "forbidden" in result.stderr
    assert not [
        e
        for e in members.servers["a"].audit()
        if e.get("user", {}).get("username") == RESTRICTED_USER
        and e.get("verb") not in ("get", "list", "watch")
        and e.get("responseStatus", {}).get("code") != 403
    ]


def test_a_custom_resource_waits_for_its_definition_in_watch_mode_too(
    members: Members, tmp_path: Path
) -> None:
    """The incremental path (``--watch`` 's change sets) orders its applies too: a
    namespace and definition added to the inputs later go before their dependents."""
    from clusterplace.fedsync.target import ClusterChanges, Copy
    from clusterplace.hub.kubernetes.members import MemberTarget

    ns = "shop-watch"
    target = MemberTarget(members.kubeconfig)
    target.open()
    try:
        copies = {
            f"{i}.yaml": Copy(
                f"{m['kind']}/{m['metadata'].get('namespace', '')}/{m['metadata']['name']}",
                f"{i}.yaml",
                m,
                yaml.safe_dump(m),
            )
            for i, m in enumerate(shop(ns))
        }
        outcomes = target.apply({"b": ClusterChanges(put=copies)})
        assert {o.action for o in outcomes} == {"add"}, [o.message for o in outcomes]
        assert target.status["b"] == "converged"
        deletes = target.apply({"b": ClusterChanges(delete={n: c.obj for n, c in copies.items()})})
        assert {o.action for o in deletes} == {"remove"}
    finally:
        target.close()
    b = members.servers["b"]
    wait_for(
        lambda: (
            (b.get(f"/api/v1/namespaces/{ns}") or {}).get("status", {}).get("phase")
            in (None, "Terminating")
        ),
        30,
        f"namespace {ns} deleted",
    )


def test_a_definition_that_never_becomes_established_refuses_its_resources_alone(
    members: Members, run: Run
) -> None:
    """A CustomResourceDefinition whose short name another one holds is never
    Established: its custom resources are refused, saying so; the rest converges."""
    ns = "shop-names"
    docs = shop(ns)
    crd = next(m for m in docs if m["kind"] == "CustomResourceDefinition")
    crd["spec"]["names"]["shortNames"] = ["cart"]
    holder = json.loads(json.dumps(crd))
    holder["metadata"]["name"] = f"holders.{GROUP}"
    holder["spec"]["names"] = {"plural": "holders", "kind": "Holder", "shortNames": ["cart"]}
    status, body = members.servers["a"].request(
        "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", holder
    )
    assert status == 201, body
    try:
        members.manifests.write_text(yaml.safe_dump_all(docs))
        members.regions({"a": "eu", "b": "us"})
        result = members.route(run)
        assert result.code == 1
        assert rows(result)["a"] == ["4", "0", "0", "0", "failed"]
        assert rows(result)["b"][-1] == "converged"
        assert f"CustomResourceDefinition {crd['metadata']['name']} has names" in result.stderr
        assert "Traceback" not in result.stderr
    finally:
        members.servers["a"].request(
            "DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/holders.{GROUP}"
        )
