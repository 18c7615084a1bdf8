"""Typed edits to a fleet: what ``what-if --set/--unset`` and ``--why-not`` speak.

An edit is one small change to one object, written ``KIND/NAME:FIELD=VALUE`` (set) or
``KIND/NAME:FIELD`` (unset), the form scripts use::

    cluster/NAME:labels.KEY=VALUE          cluster/NAME:claims.NAME=VALUE
    cluster/NAME:taints+=KEY[=VALUE]:EFFECT    cluster/NAME:taints-=KEY[=VALUE][:EFFECT]
    placement/NS/NAME:numberOfClusters=5   placement/NS/NAME:clusterSets=a,b
    placement/NS/NAME:predicates=SELECTOR  placement/NS/NAME:predicates+=SELECTOR
    placement/NS/NAME:predicates[0].labelSelector=SELECTOR   (.claimSelector too)
    placement/NS/NAME:weights.PRIORITIZER=W   (Balance, Steady, ResourceAllocatableCPU,
                                               ResourceAllocatableMemory, AddOn/RES/SCORE)
    placement/NS/NAME:mode=Additive|Exact
    placement/NS/NAME:tolerations+=KEY[=VALUE][:EFFECT]
    placement/NS/NAME:spread[0].maxSkew=2  placement/NS/NAME:spread[0].whenUnsatisfiable=X
    clustersetbinding/NS/NAME:clusterSet=SET

Selectors use the ``-l`` syntax (``env=prod,tier in (gold,silver),!legacy``). Applying
edits never changes the fleet given: :func:`apply_edits` returns the changed objects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from clusterplace.api import (
    Fleet,
    KubeObject,
    ManagedCluster,
    ManagedClusterSetBinding,
    Placement,
)
from clusterplace.errors import InputError
from clusterplace.labels import (
    Operator,
    SelectorError,
    label_key_errors,
    label_value_errors,
    parse,
)

__all__ = [
    "Edit",
    "EditError",
    "EditedObject",
    "apply_edits",
    "merge_patch",
    "parse_edit",
    "parse_edits",
]

EFFECTS = ("NoSelect", "PreferNoSelect", "NoSelectIfNew")
BUILT_INS = ("Balance", "Steady", "ResourceAllocatableCPU", "ResourceAllocatableMemory")
_GROUP = "cluster.open-cluster-management.io"

_CLUSTER_FIELDS = "labels.KEY, claims.NAME, taints+=, taints-=, taints"
_PLACEMENT_FIELDS = (
    "numberOfClusters, clusterSets, predicates, predicates+=, predicates[N].labelSelector, "
    "predicates[N].claimSelector, weights.PRIORITIZER, mode, tolerations+=, tolerations, "
    "spread[N].maxSkew, spread[N].whenUnsatisfiable"
)
KINDS = {
    "cluster": "cluster",
    "managedcluster": "cluster",
    "placement": "placement",
    "clustersetbinding": "binding",
    "managedclustersetbinding": "binding",
}


class EditError(InputError):
    """An edit that cannot be parsed or applied: what, where, and what would be valid."""


@dataclass(frozen=True)
class Edit:
    """One change: ``kind`` (cluster, placement, binding), ``ref`` (NAME or NS/NAME),
    ``field`` (as written, with its operator: ``labels.env``, ``taints+``), ``value``
    (None: unset)."""

    kind: str
    ref: str
    field: str
    value: str | None = None

    @property
    def unset(self) -> bool:
        return self.value is None

    @property
    def expression(self) -> str:
        """The edit as ``--set``/``--unset`` take it (without the option)."""
        if self.value is None:
            return f"{self.kind_word}/{self.ref}:{self.field}"
        return f"{self.kind_word}/{self.ref}:{self.field}={self.value}"

    @property
    def option(self) -> str:
        return "--unset" if self.value is None else "--set"

    @property
    def kind_word(self) -> str:
        return "clustersetbinding" if self.kind == "binding" else self.kind

    def __str__(self) -> str:
        return f"{self.option} {self.expression}"

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.option.removeprefix("--"), "expression": self.expression}


@dataclass(frozen=True)
class EditedObject:
    """One object after the edits (None: removed), and the fleet's object before them
    (None: new)."""

    after: KubeObject | None
    before: KubeObject | None


# -- parsing ------------------------------------------------------------------------

_TARGET = re.compile(r"^(?P<kind>[A-Za-z]+)/(?P<ref>[^:]+):(?P<rest>.*)$")
_INDEXED = re.compile(r"^(predicates|spread)\[(\d{1,3})\]\.(\w+)$")


def parse_edit(text: str, unset: bool = False, where: str = "--set") -> Edit:
    """One ``--set`` (or, with ``unset``, ``--unset``) expression as an :class:`Edit`."""
    shown = f"{where} {text!r}"
    target = _TARGET.match(text)
    if target is None:
        if unset and re.fullmatch(r"(?i)(managed)?clustersetbinding/[^:/]+/[^:/]+", text):
            return Edit("binding", text.split("/", 1)[1], "", None)
        form = "KIND/NAME:FIELD" if unset else "KIND/NAME:FIELD=VALUE"
        raise EditError(f"{shown}: expected {form} (e.g. cluster/NAME:labels.env=prod)")
    word, ref, rest = target["kind"], target["ref"], target["rest"]
    kind = KINDS.get(word.lower())
    if kind is None:
        raise EditError(
            f"{shown}: unknown kind {word!r}; valid kinds: cluster, placement, clustersetbinding"
        )
    _check_ref(kind, ref, shown)
    if unset:
        field, value = rest, None
        if "=" in field:
            raise EditError(f"{shown}: --unset takes KIND/NAME:FIELD, without =VALUE")
    else:
        match = re.match(r"^([^=]*?)(\+|-)?=(.*)$", rest, re.DOTALL)
        if match is None:
            raise EditError(f"{shown}: expected FIELD=VALUE after the colon")
        field, value = match[1] + (match[2] or ""), match[3]
    edit = Edit(kind, ref, field, value)
    _validate(edit, shown)
    return edit


def parse_edits(sets: Iterable[str] = (), unsets: Iterable[str] = ()) -> list[Edit]:
    """``--unset`` expressions first, then ``--set`` ones, each in the order given."""
    out = [parse_edit(t, unset=True, where="--unset") for t in unsets]
    return out + [parse_edit(t) for t in sets]


def _check_ref(kind: str, ref: str, shown: str) -> None:
    parts = ref.split("/")
    wanted = 1 if kind == "cluster" else 2
    if len(parts) != wanted or not all(parts):
        form = "cluster/NAME" if kind == "cluster" else f"{kind}/NAMESPACE/NAME"
        raise EditError(f"{shown}: {ref!r} is not a reference of the form {form}")


def _validate(edit: Edit, shown: str) -> None:
    """Check the field and value now, so a typo is reported before anything runs."""
    field, value = edit.field, edit.value
    if edit.kind == "cluster":
        _validate_cluster(field, value, shown)
    elif edit.kind == "placement":
        _validate_placement(field, value, shown)
    elif field != "clusterSet" or not value:
        raise EditError(f"{shown}: a clustersetbinding takes clusterSet=SET")


def _validate_cluster(field: str, value: str | None, shown: str) -> None:
    head, _, key = field.partition(".")
    if head in ("labels", "claims") and key:
        problems = (
            [f"label key {key!r}: {p}" for p in label_key_errors(key)] if head == "labels" else []
        )
        if value is not None and head == "labels":
            problems += [f"label value {value!r}: {p}" for p in label_value_errors(value)]
        if value is not None and head == "claims" and not value:
            problems.append("a claim value must not be empty")
        if problems:
            raise EditError(f"{shown}: {'; '.join(problems)}")
        return
    if field in ("taints+", "taints-") and value is not None:
        parse_taint(value, shown, effect_required=field == "taints+")
        return
    if value is None and (field == "taints" or (head == "taints" and key)):
        return
    raise EditError(f"{shown}: unknown cluster field {field!r}; valid: {_CLUSTER_FIELDS}")


def _validate_placement(field: str, value: str | None, shown: str) -> None:
    indexed = _INDEXED.match(field)
    if field == "numberOfClusters":
        if value is not None and not re.fullmatch(r"\d{1,9}", value):
            raise EditError(f"{shown}: numberOfClusters takes a whole number ≥ 0")
    elif field == "clusterSets":
        if value is not None and not all(re.fullmatch(r"[-a-z0-9.]+", s) for s in value.split(",")):
            raise EditError(f"{shown}: clusterSets takes set names separated by commas")
    elif field in ("predicates", "predicates+"):
        if value is not None:
            selector_expressions(value, shown)
        elif field == "predicates+":
            raise EditError(f"{shown}: predicates+= needs a selector")
    elif indexed and indexed[1] == "predicates":
        if indexed[3] not in ("labelSelector", "claimSelector"):
            raise EditError(f"{shown}: a predicate's fields are labelSelector and claimSelector")
        if value is not None:
            selector_expressions(value, shown)
    elif field.startswith("weights."):
        _prioritizer(field.removeprefix("weights."), shown)
        if value is not None and not (
            re.fullmatch(r"-?\d{1,2}", value) and -10 <= int(value) <= 10
        ):
            raise EditError(f"{shown}: a weight is a whole number from -10 to 10")
    elif field == "mode":
        if value not in ("Additive", "Exact"):
            raise EditError(f"{shown}: mode is Additive or Exact")
    elif field == "tolerations+" and value is not None:
        parse_toleration(value, shown)
    elif field == "tolerations" and value is None:
        return
    elif indexed and indexed[1] == "spread":
        if indexed[3] == "maxSkew":
            if value is not None and not re.fullmatch(r"[1-9]\d{0,8}", value):
                raise EditError(f"{shown}: maxSkew takes a whole number ≥ 1")
        elif indexed[3] == "whenUnsatisfiable":
            if value not in ("DoNotSchedule", "ScheduleAnyway"):
                raise EditError(f"{shown}: whenUnsatisfiable is DoNotSchedule or ScheduleAnyway")
        else:
            raise EditError(f"{shown}: a spread constraint's fields are maxSkew, whenUnsatisfiable")
        if value is None:
            raise EditError(f"{shown}: spread fields can be set, not unset")
    else:
        raise EditError(f"{shown}: unknown placement field {field!r}; valid: {_PLACEMENT_FIELDS}")


def _prioritizer(name: str, shown: str) -> tuple[str, str | None, str | None]:
    """("BuiltIn", name, None) or ("AddOn", resource, score)."""
    if name in BUILT_INS:
        return "BuiltIn", name, None
    parts = name.split("/")
    if len(parts) == 3 and parts[0] == "AddOn" and parts[1] and parts[2]:
        return "AddOn", parts[1], parts[2]
    raise EditError(
        f"{shown}: unknown prioritizer {name!r}; "
        f"valid: {', '.join(BUILT_INS)}, AddOn/RESOURCE/SCORE"
    )


def parse_taint(text: str, shown: str = "taint", effect_required: bool = True) -> dict[str, str]:
    """``KEY[=VALUE]:EFFECT`` (the effect optional when removing)."""
    body, colon, effect = text.rpartition(":")
    if not colon:
        body, effect = text, ""
    if effect_required and not effect:
        raise EditError(f"{shown}: a taint is KEY[=VALUE]:EFFECT with EFFECT one of {EFFECTS}")
    if effect and effect not in EFFECTS:
        raise EditError(f"{shown}: unknown taint effect {effect!r}; valid: {', '.join(EFFECTS)}")
    key, _, value = body.partition("=")
    problems = [f"key {key!r}: {p}" for p in label_key_errors(key)]
    problems += [f"value {value!r}: {p}" for p in label_value_errors(value)] if value else []
    if problems:
        raise EditError(f"{shown}: {'; '.join(problems)}")
    out = {"key": key, "value": value}
    if effect:
        out["effect"] = effect
    return out


def parse_toleration(text: str, shown: str = "toleration") -> dict[str, str]:
    """``KEY=VALUE[:EFFECT]`` (operator Equal) or ``KEY[:EFFECT]`` (operator Exists)."""
    taint = parse_taint(text, shown, effect_required=False)
    out = {"key": taint["key"], "operator": "Equal" if taint["value"] else "Exists"}
    if taint["value"]:
        out["value"] = taint["value"]
    if "effect" in taint:
        out["effect"] = taint["effect"]
    return out


_EXPRESSION_OPERATORS = {
    Operator.IN: "In",
    Operator.EQUALS: "In",
    Operator.DOUBLE_EQUALS: "In",
    Operator.NOT_IN: "NotIn",
    Operator.NOT_EQUALS: "NotIn",
    Operator.EXISTS: "Exists",
    Operator.DOES_NOT_EXIST: "DoesNotExist",
}


def selector_expressions(text: str, shown: str = "selector") -> list[dict[str, Any]]:
    """A ``-l`` selector as ``matchExpressions`` (Gt/Lt have no LabelSelector form)."""
    try:
        selector = parse(text)
    except SelectorError as err:
        raise EditError(f"{shown}: invalid selector: {err}") from None
    out: list[dict[str, Any]] = []
    for req in selector:
        operator = _EXPRESSION_OPERATORS.get(req.operator)
        if operator is None:
            raise EditError(
                f"{shown}: {req} uses {req.operator.value}, which a Placement's "
                "metav1.LabelSelector does not allow (use in, notin, =, !=, exists, !)"
            )
        expression: dict[str, Any] = {"key": req.key, "operator": operator}
        if req.values:
            expression["values"] = sorted(req.values)
        out.append(expression)
    return out


# -- applying -----------------------------------------------------------------------


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
}


def _find(fleet: Fleet, edit: Edit) -> KubeObject | None:
    if edit.kind == "cluster":
        found: KubeObject | None = fleet.clusters.get(edit.ref)
        if found is None:
            raise EditError(f"{edit}: no ManagedCluster {edit.ref!r} in the fleet")
        return found
    namespace, name = edit.ref.split("/")
    if edit.kind == "placement":
        found = fleet.placements.get((namespace, name))
        if found is None:
            raise EditError(f"{edit}: no Placement {name!r} in namespace {namespace!r}")
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
    indexed = _INDEXED.match(field)
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
    kind, first, second = _prioritizer(edit.field.removeprefix("weights."), str(edit))
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


def merge_patch(before: Any, after: Any) -> Any:
    """The JSON merge patch (RFC 7386) that turns ``before`` into ``after``."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    patch: dict[str, Any] = {}
    for key in before.keys() - after.keys():
        patch[key] = None
    for key, value in after.items():
        if key not in before:
            patch[key] = value
        elif before[key] != value:
            patch[key] = merge_patch(before[key], value)
    return patch
