"""Every object ``schedule`` emits is one an OCM hub's API server accepts: validated
against OCM's CRD schemas (tests/data/crds), with fields a hub would prune refused."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import KubeObject
from tests.support.builders import NOW, cluster, placement, world
from tests.support.cli import run_in_process
from tests.support.paths import DATA, FLEET
from tests.support.scheduling import run_all

CRDS = DATA / "crds"


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The structural schema as JSON Schema: objects with properties take no others (a
    hub would silently prune them), and the int32/int64 formats are range checks."""
    schema = copy.deepcopy(schema)
    stack = [schema]
    while stack:
        node = stack.pop()
        if node.get("type") == "object" and "properties" in node:
            node.setdefault("additionalProperties", False)
        if node.get("format") == "int32":
            node.update(minimum=max(node.get("minimum", -(2**31)), -(2**31)), maximum=2**31 - 1)
        if node.get("format") == "int64":
            node.update(minimum=max(node.get("minimum", -(2**63)), -(2**63)), maximum=2**63 - 1)
        stack.extend(v for v in node.get("properties", {}).values())
        if isinstance(node.get("items"), dict):
            stack.append(node["items"])
    return schema


def _validator(name: str) -> jsonschema.protocols.Validator:
    crd = yaml.safe_load((CRDS / name).read_text(encoding="utf-8"))
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1beta1"]
    schema = _strict(version["schema"]["openAPIV3Schema"])
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


VALIDATORS = {
    "Placement": _validator("placements-status.crd.yaml"),
    "PlacementDecision": _validator("placementdecisions.crd.yaml"),
}


def _check(objects: list[dict[str, Any]]) -> None:
    assert objects
    for obj in objects:
        errors = [
            f"{obj['kind']}/{obj['metadata']['name']}: {e.json_path}: {e.message}"
            for e in VALIDATORS[obj["kind"]].iter_errors(obj)
        ]
        assert not errors, errors
        assert all(ref.get("uid") for ref in obj["metadata"].get("ownerReferences", []))


def test_the_example_fleets_output_is_valid() -> None:
    out = run_in_process("schedule", "-f", str(FLEET), "-o", "json")
    assert out.code == 0, out.stderr
    _check(json.loads(out.stdout)["items"])


def _emitted(objects: list[KubeObject]) -> list[dict[str, Any]]:
    result = run_all(objects, now=NOW)
    emitted: list[dict[str, Any]] = []
    for placed in result.placements:
        emitted.append(placed.placement.model_dump(mode="json", by_alias=True, exclude_none=True))
        emitted += [
            pd.model_dump(mode="json", by_alias=True, exclude_none=True) for pd in placed.decisions
        ]
    return emitted


@settings(max_examples=60, deadline=None)
@given(
    clusters=st.integers(0, 120),
    number=st.none() | st.integers(0, 150),
    per_group=st.none() | st.integers(1, 60),
    uid=st.booleans(),
)
def test_scheduled_objects_are_valid(
    clusters: int, number: int | None, per_group: int | None, uid: bool
) -> None:
    spec: dict[str, Any] = {}
    if number is not None:
        spec["numberOfClusters"] = number
    if per_group is not None:
        spec["decisionStrategy"] = {"groupStrategy": {"clustersPerDecisionGroup": per_group}}
    pl = placement(**spec)
    pl.metadata.uid = "0c4a7e4e-3b7d-4d7c-9d1e-5e1c3f3b2a10" if uid else None
    objects = world(*(cluster(f"c{i:03d}") for i in range(clusters)), placement_obj=pl)
    emitted = _emitted(objects)
    _check(emitted)
    owners = [o["metadata"].get("ownerReferences") for o in emitted if o["kind"] != "Placement"]
    if uid:
        assert all(refs and refs[0]["uid"] == pl.metadata.uid for refs in owners)
    else:
        assert all(refs is None for refs in owners)


def test_an_invented_field_would_be_caught() -> None:
    emitted = _emitted(world(cluster("c1")))
    emitted[0]["status"]["surprise"] = 1
    with pytest.raises(AssertionError, match="surprise"):
        _check(emitted)
