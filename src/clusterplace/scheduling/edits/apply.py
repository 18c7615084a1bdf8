"""Applying parsed :class:`~clusterplace.scheduling.edits.language.Edit` s to a fleet's
objects (what-if exports them as JSON merge patches: :mod:`clusterplace.mergepatch`).

Applying edits never changes the fleet given: :func:`apply_edits` returns the changed
objects (each validated as its kind), and callers such as what-if decide where they go.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    KubeObject,
    ManagedCluster,
    ManagedClusterSetBinding,
    Placement,
)
from clusterplace.errors import shorten
from clusterplace.scheduling.edits.language import (
    INDEXED,
    Edit,
    EditError,
    parse_taint,
    parse_toleration,
    prioritizer,
    selector_expressions,
)

__all__ = ["EditedObject", "apply_edits"]

_GROUP = "cluster.open-cluster-management.io"


@dataclass(frozen=True)
class EditedObject:
    """One object after the edits (None: removed), and the fleet's object before them
    (None: new)."""

    after: KubeObject | None
    before: KubeObject | None


def apply_edits(fleet: Fleet, edits: Sequence[Edit]) -> list[EditedObject]:
    """The objects the edits change, in the order first changed (the fleet is unchanged).

    Edits of one object build on each other. Raises :class:`EditError` when an edit
    names an object the fleet does not have, or makes an object invalid.
    """
    bodies: dict[tuple[str, str], dict[str, Any]] = {}
    before: dict[tuple[str, str], KubeObject | None] = {}
    for edit in edits:
        key = (edit.kind, edit.ref)
        if key not in bodies:
            found = _find(fleet, edit)
            before[key] = found
            bodies[key] = found.to_dict() if found is not None else _new_binding(edit)
        _apply(bodies[key], edit)
    changes = []
    for key, body in bodies.items():
        kind = key[0]
        if body.pop("__deleted__", False):
            changes.append(EditedObject(None, before[key]))
            continue
        model = _MODELS[kind]
        try:
            after = model.model_validate(body)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise EditError(
                f"the edits make {kind} {key[1]} invalid: {where}: {first['msg']}"
            ) from None
        changes.append(EditedObject(after, before[key]))
    return changes


_MODELS: dict[str, type[KubeObject]] = {
    "cluster": ManagedCluster,
    "placement": Placement,
    "binding": ManagedClusterSetBinding,
    "score": AddOnPlacementScore,
}


def _find(fleet: Fleet, edit: Edit) -> KubeObject | None:
    if edit.kind == "cluster":
        found: KubeObject | None = fleet.clusters.get(edit.ref)
        if found is None:
            raise EditError(f"{edit}: no ManagedCluster {shorten(edit.ref)!r} in the fleet")
        return found
    namespace, name = edit.ref.split("/")
    if edit.kind == "placement":
        found = fleet.placements.get((namespace, name))
        if found is None:
            raise EditError(
                f"{edit}: no Placement {shorten(name)!r} in namespace {shorten(namespace)!r}"
            )
        return found
    if edit.kind == "score":
        found = fleet.scores.get((namespace, name))
        if found is None:
            raise EditError(f"{edit}: no AddOnPlacementScore {shorten(edit.ref)!r} in the fleet")
        return found
    found = fleet.bindings.get((namespace, name))
    if found is None and edit.unset:
        raise EditError(f"{edit}: no ManagedClusterSetBinding {namespace}/{name} to remove")
    return found


def _new_binding(edit: Edit) -> dict[str, Any]:
    namespace, name = edit.ref.split("/")
    return {
        "apiVersion": f"{_GROUP}/v1beta2",
        "kind": "ManagedClusterSetBinding",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterSet": edit.value or name},
    }


def _apply(body: dict[str, Any], edit: Edit) -> None:
    if edit.kind == "cluster":
        _apply_cluster(body, edit.field, edit.value)
    elif edit.kind == "placement":
        _apply_placement(body.setdefault("spec", {}), edit)
    elif edit.kind == "score":
        _apply_score(body.setdefault("status", {}), edit.field, edit.value)
    elif edit.value is None:
        body["__deleted__"] = True
    else:
        body["spec"] = {"clusterSet": edit.value}


def _apply_cluster(body: dict[str, Any], field: str, value: str | None) -> None:
    head, _, key = field.partition(".")
    if head == "labels":
        labels = body["metadata"].setdefault("labels", {})
        _put(labels, key, value)
    elif head == "claims":
        status = body.setdefault("status", {})
        claims = [c for c in status.get("clusterClaims", []) if c["name"] != key]
        if value is not None:
            claims.append({"name": key, "value": value})
        status["clusterClaims"] = claims
    elif field == "taints+" and value is not None:
        taints = body.setdefault("spec", {}).setdefault("taints", [])
        new = parse_taint(value)
        taints[:] = [t for t in taints if not _same_taint(t, new)] + [new]
    elif field == "taints-" and value is not None:
        spec = body.setdefault("spec", {})
        gone = parse_taint(value, effect_required=False)
        spec["taints"] = [t for t in spec.get("taints", []) if not _same_taint(t, gone)]
    elif field == "taints":
        body.setdefault("spec", {})["taints"] = []
    elif head == "taints":
        spec = body.setdefault("spec", {})
        spec["taints"] = [t for t in spec.get("taints", []) if t["key"] != key]


def _apply_score(status: dict[str, Any], field: str, value: str | None) -> None:
    if field == "validUntil":
        _put(status, "validUntil", value)
        return
    name = field.removeprefix("scores.")
    scores = [s for s in status.get("scores") or [] if s["name"] != name]
    if value is not None:
        scores.append({"name": name, "value": int(value)})
    status["scores"] = scores


def _same_taint(taint: dict[str, Any], wanted: dict[str, str]) -> bool:
    """Whether ``taint`` is the one ``wanted`` names (key, and the value and effect given)."""
    if taint["key"] != wanted["key"]:
        return False
    if wanted.get("value") and taint.get("value", "") != wanted["value"]:
        return False
    return not wanted.get("effect") or taint.get("effect") == wanted["effect"]


def _put(table: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value


def _apply_placement(spec: dict[str, Any], edit: Edit) -> None:
    field, value = edit.field, edit.value
    indexed = INDEXED.match(field)
    if field == "numberOfClusters":
        _put(spec, "numberOfClusters", None if value is None else int(value))
    elif field == "clusterSets":
        _put(spec, "clusterSets", None if value is None else value.split(","))
    elif field == "predicates":
        _put(spec, "predicates", None if value is None else [_predicate(value)])
    elif field == "predicates+" and value is not None:
        spec.setdefault("predicates", []).append(_predicate(value))
    elif indexed and indexed[1] == "predicates":
        _apply_predicate(spec, edit, int(indexed[2]), indexed[3])
    elif field.startswith("weights."):
        _apply_weight(spec, edit)
    elif field == "mode":
        spec.setdefault("prioritizerPolicy", {})["mode"] = value
    elif field == "tolerations+" and value is not None:
        spec.setdefault("tolerations", []).append(parse_toleration(value))
    elif field == "tolerations":
        spec.pop("tolerations", None)
    elif indexed and indexed[1] == "spread":
        constraints = (spec.get("spreadPolicy") or {}).get("spreadConstraints") or []
        index = int(indexed[2])
        if index >= len(constraints):
            raise EditError(f"{edit}: the placement has {len(constraints)} spread constraint(s)")
        number = indexed[3] == "maxSkew" and value is not None
        constraints[index][indexed[3]] = int(value) if number and value else value


def _predicate(text: str) -> dict[str, Any]:
    return {
        "requiredClusterSelector": {
            "labelSelector": {"matchExpressions": selector_expressions(text)}
        }
    }


def _apply_predicate(spec: dict[str, Any], edit: Edit, index: int, which: str) -> None:
    predicates = spec.get("predicates") or []
    if index > len(predicates) or (edit.value is None and index >= len(predicates)):
        raise EditError(f"{edit}: the placement has {len(predicates)} predicate(s)")
    if index == len(predicates):
        predicates.append({"requiredClusterSelector": {}})
        spec["predicates"] = predicates
    selector = predicates[index].setdefault("requiredClusterSelector", {})
    if edit.value is None:
        selector.pop(which, None)
    else:
        selector[which] = {"matchExpressions": selector_expressions(edit.value)}


def _apply_weight(spec: dict[str, Any], edit: Edit) -> None:
    kind, first, second = prioritizer(edit.field.removeprefix("weights."), str(edit))
    policy = spec.setdefault("prioritizerPolicy", {})
    configurations = policy.setdefault("configurations", [])

    def same(config: dict[str, Any]) -> bool:
        coordinate = config.get("scoreCoordinate", {})
        if coordinate.get("type", "BuiltIn") != kind:
            return False
        if kind == "BuiltIn":
            return bool(coordinate.get("builtIn") == first)
        add_on = coordinate.get("addOn") or {}
        return add_on.get("resourceName") == first and add_on.get("scoreName") == second

    kept = [c for c in configurations if not same(c)]
    if edit.value is not None:
        found = [c for c in configurations if same(c)]
        if found:
            for config in found:
                config["weight"] = int(edit.value)
            kept = configurations
        else:
            coordinate: dict[str, Any] = {"type": kind}
            if kind == "BuiltIn":
                coordinate["builtIn"] = first
            else:
                coordinate["addOn"] = {"resourceName": first, "scoreName": second}
            kept.append({"scoreCoordinate": coordinate, "weight": int(edit.value)})
    policy["configurations"] = kept
