"""``route --to-kubeconfig`` routes a Namespace into member emulators as any other
object: applied where its selector chooses, listed with the ownership label, pruned
where it does not any more (the emulator serves ``/api/v1/namespaces`` as the
cluster-scoped resource it is)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.support.cli import Result
from tests.support.members import members

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
LABEL = "federation.clusterplace.io/managed-by"


def fleet(path: Path, regions: dict[str, str]) -> None:
    path.write_text(
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


def namespace(name: str, region: str) -> dict[str, Any]:
    selector = [{"key": "region", "operator": "In", "values": [region]}]
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "annotations": {ANNOTATION: json.dumps(selector)}},
    }


def test_a_namespace_is_applied_where_chosen_and_pruned_where_not(
    tmp_path: Path, run: Callable[..., Result]
) -> None:
    with members(["a", "c"], tmp_path) as (started, kubeconfig):
        manifests = tmp_path / "manifests.yaml"
        manifests.write_text(yaml.safe_dump_all([namespace("shop", "eu")]))
        # Someone else's namespace, beside clusterplace's, in both members.
        for member in started.values():
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "theirs"}}
            assert member.request("POST", "/api/v1/namespaces", body)[0] == 201
        clusters = tmp_path / "fleet.yaml"
        fleet(clusters, {"a": "eu", "c": "us"})
        args = ["route", "-f", str(manifests), "--clusters", str(clusters)]
        args += ["--to-kubeconfig", str(kubeconfig)]
        first = run(*args)
        assert first.code == 0, first.stderr
        assert started["a"].names("namespaces") == {"shop", "theirs"}
        assert started["c"].names("namespaces") == {"theirs"}
        shop = started["a"].objects("namespaces")[(None, "shop")]
        assert shop["metadata"]["labels"][LABEL] == "clusterplace"

        fleet(clusters, {"a": "us", "c": "eu"})
        moved = run(*args)
        assert moved.code == 0, moved.stderr
        assert started["a"].names("namespaces") == {"theirs"}
        assert started["c"].names("namespaces") == {"shop", "theirs"}
