"""The edit language: ``KIND/NAME:FIELD=VALUE`` (``--set``) and ``KIND/NAME:FIELD``
(``--unset``) parsed into checked :class:`Edit` s, the form ``what-if`` and scripts use::

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
    addonplacementscore/CLUSTER/NAME:validUntil=TIME   (RFC 3339; --unset: never expires)
    addonplacementscore/CLUSTER/NAME:scores.SCORE=N    (-100..100)

Selectors use the ``-l`` syntax (``env=prod,tier in (gold,silver),!legacy``). Every field
and value is checked here, so a typo is reported before anything is scheduled; what an
edit does to an object is :mod:`clusterplace.scheduling.edits.apply`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clusterplace.api.base import parse_time
from clusterplace.errors import InputError, shorten
from clusterplace.labels import (
    Operator,
    SelectorError,
    label_key_errors,
    label_value_errors,
    parse,
)

__all__ = [
    "BUILT_INS",
    "EFFECTS",
    "INDEXED",
    "KINDS",
    "Edit",
    "EditError",
    "parse_edit",
    "parse_edits",
    "parse_taint",
    "parse_toleration",
    "prioritizer",
    "selector_expressions",
]

EFFECTS = ("NoSelect", "PreferNoSelect", "NoSelectIfNew")
BUILT_INS = ("Balance", "Steady", "ResourceAllocatableCPU", "ResourceAllocatableMemory")

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
    "addonplacementscore": "score",
}
_WORDS = {"binding": "clustersetbinding", "score": "addonplacementscore"}


class EditError(InputError):
    """An edit that cannot be parsed or applied: what, where, and what would be valid."""


@dataclass(frozen=True)
class Edit:
    """One change: ``kind`` (cluster, placement, binding, score), ``ref`` (NAME or NS/NAME),
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
        return _WORDS.get(self.kind, self.kind)

    def __str__(self) -> str:
        return f"{self.option} {shorten(self.expression)}"

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.option.removeprefix("--"), "expression": self.expression}


# -- parsing ------------------------------------------------------------------------


def _q(text: str) -> str:
    """A user's text as an error quotes it: cut to 80 characters (an edit may be huge)."""
    return repr(shorten(text))


_TARGET = re.compile(r"^(?P<kind>[A-Za-z]+)/(?P<ref>[^:]+):(?P<rest>.*)$")
# ``predicates[N].FIELD`` and ``spread[N].FIELD``; the apply module reads the same groups.
INDEXED = re.compile(r"^(predicates|spread)\[(\d{1,3})\]\.(\w+)$")


def parse_edit(text: str, unset: bool = False, where: str = "--set") -> Edit:
    """One ``--set`` (or, with ``unset``, ``--unset``) expression as an :class:`Edit`."""
    shown = f"{where} {_q(text)}"
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
            f"{shown}: unknown kind {_q(word)}; "
            "valid kinds: cluster, placement, clustersetbinding, addonplacementscore"
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
        form = "cluster/NAME" if kind == "cluster" else f"{_WORDS.get(kind, kind)}/NAMESPACE/NAME"
        raise EditError(f"{shown}: {_q(ref)} is not a reference of the form {form}")


def _validate(edit: Edit, shown: str) -> None:
    """Check the field and value now, so a typo is reported before anything runs."""
    field, value = edit.field, edit.value
    if edit.kind == "cluster":
        _validate_cluster(field, value, shown)
    elif edit.kind == "placement":
        _validate_placement(field, value, shown)
    elif edit.kind == "score":
        _validate_score(field, value, shown)
    elif field != "clusterSet" or not value:
        raise EditError(f"{shown}: a clustersetbinding takes clusterSet=SET")


def _validate_cluster(field: str, value: str | None, shown: str) -> None:
    head, _, key = field.partition(".")
    if head in ("labels", "claims") and key:
        problems = (
            [f"label key {_q(key)}: {p}" for p in label_key_errors(key)] if head == "labels" else []
        )
        if value is not None and head == "labels":
            problems += [f"label value {_q(value)}: {p}" for p in label_value_errors(value)]
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
    raise EditError(f"{shown}: unknown cluster field {_q(field)}; valid: {_CLUSTER_FIELDS}")


def _validate_score(field: str, value: str | None, shown: str) -> None:
    head, _, name = field.partition(".")
    if field == "validUntil":
        if value is not None:
            try:
                parse_time(value)
            except ValueError:
                raise EditError(
                    f"{shown}: validUntil takes an RFC 3339 time (2026-11-22T12:00:00Z)"
                ) from None
        return
    if head == "scores" and name:
        if value is not None and not (
            re.fullmatch(r"-?\d{1,3}", value) and -100 <= int(value) <= 100
        ):
            raise EditError(f"{shown}: a score is a whole number from -100 to 100")
        return
    raise EditError(
        f"{shown}: unknown addonplacementscore field {_q(field)}; valid: validUntil, scores.NAME"
    )


def _validate_placement(field: str, value: str | None, shown: str) -> None:
    indexed = INDEXED.match(field)
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
        prioritizer(field.removeprefix("weights."), shown)
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
        raise EditError(f"{shown}: unknown placement field {_q(field)}; valid: {_PLACEMENT_FIELDS}")


def prioritizer(name: str, shown: str) -> tuple[str, str | None, str | None]:
    """A weight's PRIORITIZER as ("BuiltIn", name, None) or ("AddOn", resource, score)
    (shared with the apply module, which builds the score coordinate from it)."""
    if name in BUILT_INS:
        return "BuiltIn", name, None
    parts = name.split("/")
    if len(parts) == 3 and parts[0] == "AddOn" and parts[1] and parts[2]:
        return "AddOn", parts[1], parts[2]
    raise EditError(
        f"{shown}: unknown prioritizer {_q(name)}; "
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
        raise EditError(f"{shown}: unknown taint effect {_q(effect)}; valid: {', '.join(EFFECTS)}")
    key, _, value = body.partition("=")
    problems = [f"key {_q(key)}: {p}" for p in label_key_errors(key)]
    problems += [f"value {_q(value)}: {p}" for p in label_value_errors(value)] if value else []
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
