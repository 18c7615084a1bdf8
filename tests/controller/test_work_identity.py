"""Which work is whose, through the real ``clusterplace controller --hub DIR --once``
process: two placementRefs of one ManifestWorkReplicaSet that share clusters, and two
MWRSs of one name in two namespaces, each get works of their own and settle (the run
ends, a second run writes nothing); a work someone else holds is never taken over but
named in a condition and an event; two refs to one placement with different strategies
write nothing and say why; a work left in the namespace of a cluster that is gone is
deleted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.support.cli import Result

GROUP = "cluster.open-cluster-management.io"
WORK = "work.open-cluster-management.io"
OWNER = f"{WORK}/manifestworkreplicaset"
PLACEMENT = f"{WORK}/placementname"
NOW = "2026-06-01T00:00:00Z"

Run = Callable[..., Result]


def _cluster(name: str, ring: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": {f"{GROUP}/clusterset": "fleet", "ring": ring}},
        "spec": {"hubAcceptsClient": True},
    }


def _namespace(namespace: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": f"{GROUP}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "fleet", "namespace": namespace},
            "spec": {"clusterSet": "fleet"},
        }
    ]


def _placement(namespace: str, name: str, ring: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if ring is not None:
        selector = {"labelSelector": {"matchLabels": {"ring": ring}}}
        spec["predicates"] = [{"requiredClusterSelector": selector}]
    return {
        "apiVersion": f"{GROUP}/v1beta1",
        "kind": "Placement",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _mwrs(namespace: str, refs: list[dict[str, Any]], value: str = "1") -> dict[str, Any]:
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"cfg-{namespace}", "namespace": "default"},
        "data": {"value": value},
    }
    return {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ManifestWorkReplicaSet",
        "metadata": {"name": "cfg", "namespace": namespace},
        "spec": {
            "manifestWorkTemplate": {"workload": {"manifests": [manifest]}},
            "placementRefs": refs,
        },
    }


def _write(hub: Path, docs: list[dict[str, Any]]) -> None:
    hub.mkdir(exist_ok=True)
    fleet = {"apiVersion": f"{GROUP}/v1beta2", "kind": "ManagedClusterSet"}
    fleet["metadata"] = {"name": "fleet"}  # type: ignore[assignment]
    (hub / "hub.yaml").write_text(yaml.safe_dump_all([fleet, *docs]))


def _once(run_process: Run, hub: Path) -> str:
    """One ``controller --once`` (a child process, which must end), its summary line."""
    done = run_process("controller", "--hub", str(hub), "--once", "--now", NOW, timeout=300)
    assert done.code == 0, done.stderr
    assert "did not settle" not in done.stderr, done.stderr
    return (done.stdout + done.stderr).strip().splitlines()[-1]


def _works(hub: Path) -> dict[tuple[str, str], dict[str, Any]]:
    folder = hub / ".clusterplace" / "manifestworks"
    return {
        (p.parent.name, p.stem): yaml.safe_load(p.read_text())
        for p in sorted(folder.glob("*/*.yaml"))
    }


def _owners(hub: Path) -> list[tuple[str, str | None, str | None]]:
    """(cluster, owner label, placement label) of every work, sorted."""
    return sorted(
        (cluster, w["metadata"]["labels"].get(OWNER), w["metadata"]["labels"].get(PLACEMENT))
        for (cluster, _), w in _works(hub).items()
    )


def _conditions(hub: Path, namespace: str = "apps") -> dict[str, dict[str, Any]]:
    path = hub / ".clusterplace" / "manifestworkreplicasets" / namespace / "cfg.yaml"
    found = yaml.safe_load(path.read_text())["status"]["conditions"]
    return {c["type"]: c for c in found}


def _events(hub: Path, reason: str) -> list[dict[str, Any]]:
    lines = (hub / ".clusterplace" / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["reason"] == reason]


def test_two_refs_sharing_a_cluster_each_keep_their_own_work(
    run_process: Run, tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    _write(
        hub,
        [
            _cluster("c1", "canary"),
            _cluster("c2", "main"),
            *_namespace("apps"),
            _placement("apps", "all"),
            _placement("apps", "canary", ring="canary"),
            _mwrs("apps", [{"name": "all"}, {"name": "canary"}]),
        ],
    )
    _once(run_process, hub)
    # c1 is in both placements: one work for each, neither overwriting the other.
    assert _owners(hub) == [
        ("c1", "apps.cfg", "all"),
        ("c1", "apps.cfg", "canary"),
        ("c2", "apps.cfg", "all"),
    ]
    before = _works(hub)
    assert _once(run_process, hub).endswith("1 ManifestWorkReplicaSet: 0 writes")
    assert _works(hub) == before


def test_two_replica_sets_of_one_name_in_two_namespaces_do_not_share_a_work(
    run_process: Run, tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    docs: list[dict[str, Any]] = [_cluster("c1", "main")]
    for namespace in ("apps", "team-a"):
        docs += [
            *_namespace(namespace),
            _placement(namespace, "p"),
            _mwrs(namespace, [{"name": "p"}]),
        ]
    _write(hub, docs)
    _once(run_process, hub)
    assert _owners(hub) == [("c1", "apps.cfg", "p"), ("c1", "team-a.cfg", "p")]
    manifests = sorted(
        w["spec"]["workload"]["manifests"][0]["metadata"]["name"] for w in _works(hub).values()
    )
    assert manifests == ["cfg-apps", "cfg-team-a"]  # each its own template
    before = _works(hub)
    assert _once(run_process, hub).endswith("2 ManifestWorkReplicaSets: 0 writes")
    assert _works(hub) == before


def test_works_named_by_an_earlier_version_are_kept_and_the_run_settles(
    run_process: Run, tmp_path: Path
) -> None:
    """Works named after the MWRS alone (as earlier versions named every work) stay the
    works of the placement their label names; the other ref gets its own."""
    hub = tmp_path / "hub"
    _write(
        hub,
        [
            _cluster("c1", "canary"),
            *_namespace("apps"),
            _placement("apps", "all"),
            _placement("apps", "canary", ring="canary"),
            _mwrs("apps", [{"name": "all"}, {"name": "canary"}]),
        ],
    )
    _once(run_process, hub)
    ((_, name), work) = next(
        (k, w) for k, w in _works(hub).items() if w["metadata"]["labels"][PLACEMENT] == "canary"
    )
    folder = hub / ".clusterplace" / "manifestworks" / "c1"
    (folder / f"{name}.yaml").rename(folder / "cfg.yaml")
    work["metadata"]["name"] = "cfg"
    (folder / "cfg.yaml").write_text(yaml.safe_dump(work))
    assert _once(run_process, hub).endswith("1 ManifestWorkReplicaSet: 0 writes")
    assert "c1/cfg" in {f"{c}/{n}" for c, n in _works(hub)}
    assert _owners(hub) == [("c1", "apps.cfg", "all"), ("c1", "apps.cfg", "canary")]


def test_a_work_someone_else_holds_is_named_never_taken_over(
    run_process: Run, tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    _write(
        hub,
        [
            _cluster("c1", "main"),
            *_namespace("apps"),
            _placement("apps", "p"),
            _mwrs("apps", [{"name": "p"}]),
        ],
    )
    _once(run_process, hub)
    ((cluster, name),) = _works(hub)
    # Someone replaces the work with one of their own, under the same name.
    theirs = {
        "apiVersion": f"{WORK}/v1",
        "kind": "ManifestWork",
        "metadata": {"name": name, "namespace": cluster, "labels": {"team": "ops"}},
        "spec": {"workload": {"manifests": [{"apiVersion": "v1", "kind": "Namespace"}]}},
    }
    path = hub / ".clusterplace" / "manifestworks" / cluster / f"{name}.yaml"
    path.write_text(yaml.safe_dump(theirs))
    _once(run_process, hub)
    assert yaml.safe_load(path.read_text()) == theirs  # left as it is
    conflict = _conditions(hub)["WorkConflict"]
    assert (conflict["status"], conflict["reason"]) == ("True", "HeldByAnotherOwner")
    assert f"ManifestWork {cluster}/{name} carries no ManifestWorkReplicaSet" in conflict["message"]
    (event,) = _events(hub, "WorkConflict")
    assert event["type"] == "Warning" and event["note"] == conflict["message"]
    # Settled: a second run writes nothing and records no second event.
    assert _once(run_process, hub).endswith("1 ManifestWorkReplicaSet: 0 writes")
    assert len(_events(hub, "WorkConflict")) == 1
    # Once the name is free again, the work is written and the condition clears.
    path.unlink()
    _once(run_process, hub)
    assert _owners(hub) == [("c1", "apps.cfg", "p")]
    conflict = _conditions(hub)["WorkConflict"]
    assert (conflict["status"], conflict["reason"]) == ("False", "AsExpected")


def test_two_refs_to_one_placement_with_different_strategies_write_nothing(
    run_process: Run, tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    progressive: dict[str, Any] = {"type": "Progressive", "progressive": {"maxConcurrency": 1}}
    refs: list[dict[str, Any]] = [{"name": "p"}, {"name": "p", "rolloutStrategy": progressive}]
    _write(
        hub,
        [
            _cluster("c1", "main"),
            _cluster("c2", "main"),
            *_namespace("apps"),
            _placement("apps", "p"),
            _mwrs("apps", refs),
        ],
    )
    _once(run_process, hub)
    assert _works(hub) == {}
    conflict = _conditions(hub)["WorkConflict"]
    assert (conflict["status"], conflict["reason"]) == ("True", "DuplicatePlacementRef")
    assert conflict["message"].startswith(
        "spec.placementRefs[0], spec.placementRefs[1] name placement p with different "
        "rolloutStrategies"
    )
    # The same strategy twice is one rollout: the works are written.
    _write(
        hub,
        [
            _cluster("c1", "main"),
            _cluster("c2", "main"),
            *_namespace("apps"),
            _placement("apps", "p"),
            _mwrs("apps", [{"name": "p"}, {"name": "p"}]),
        ],
    )
    _once(run_process, hub)
    assert _owners(hub) == [("c1", "apps.cfg", "p"), ("c2", "apps.cfg", "p")]
    assert _conditions(hub)["WorkConflict"]["status"] == "False"


def test_a_work_in_the_namespace_of_no_cluster_is_deleted(run_process: Run, tmp_path: Path) -> None:
    """A stray work: its owner's label, in a namespace no ManagedCluster has, and a spec
    the template no longer has (so no rollout status would ever remove it)."""
    hub = tmp_path / "hub"
    _write(
        hub,
        [
            _cluster("c1", "main"),
            *_namespace("apps"),
            _placement("apps", "p"),
            _mwrs("apps", [{"name": "p"}]),
        ],
    )
    _once(run_process, hub)
    ((_, name), work) = next(iter(_works(hub).items()))
    work["metadata"]["namespace"] = "gone"
    work["spec"]["workload"]["manifests"][0]["data"]["value"] = "0"
    stray = hub / ".clusterplace" / "manifestworks" / "gone" / f"{name}.yaml"
    stray.parent.mkdir()
    stray.write_text(yaml.safe_dump(work))
    _once(run_process, hub)
    assert not stray.exists()
    assert _owners(hub) == [("c1", "apps.cfg", "p")]
