"""Federation replica preferences: the typed model and its annotation, decoded as upstream.

``federation.kubernetes.io/replica-set-preferences`` (ReplicaSets) and
``federation.kubernetes.io/deployment-preferences`` (Deployments) hold JSON such as
``{"rebalance": true, "clusters": {"*": {"minReplicas": 1, "maxReplicas": 5, "weight": 2}}}``.

Upstream decodes the text with Go's ``encoding/json`` into structs without JSON tags, and
the decoding rules are reproduced here because they decide what a user's text means:

- keys match field names without regard to case (Go folds ``ſ`` to ``s`` and the Kelvin
  sign to ``k`` as well); unknown keys are ignored;
- ``null`` leaves an integer or boolean field as it was, empties ``maxReplicas`` and
  ``clusters``, and as a cluster's value gives that cluster all defaults;
- a repeated key decodes again into the same field: a repeated ``clusters`` object adds
  its entries to the map, a repeated cluster name replaces that cluster's entry;
- integers must be written as integers (``1.0``, ``1e2`` and ``"1"`` are errors) within
  int64; ``rebalance`` must be a boolean;
- any error makes the whole annotation invalid.

Beyond upstream, negative numbers are invalid too (see docs/semantics.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from clusterplace.errors import ClusterplaceError
from clusterplace.labels import parse_go_int64

__all__ = [
    "DEPLOYMENT_PREFERENCES",
    "REPLICA_SET_PREFERENCES",
    "ClusterPreferences",
    "PreferencesError",
    "ReplicaPreferences",
    "parse_preferences",
]

REPLICA_SET_PREFERENCES = "federation.kubernetes.io/replica-set-preferences"
DEPLOYMENT_PREFERENCES = "federation.kubernetes.io/deployment-preferences"


class PreferencesError(ClusterplaceError, ValueError):
    """A preferences annotation that upstream could not decode (or that holds a negative
    number); the planner then uses :meth:`ReplicaPreferences.default`."""


@dataclass(frozen=True)
class ClusterPreferences:
    """What one cluster (or ``"*"``, every cluster without its own entry) asks for."""

    min_replicas: int = 0
    max_replicas: int | None = None  # None: unbounded
    weight: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "minReplicas": self.min_replicas,
            "maxReplicas": self.max_replicas,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class ReplicaPreferences:
    """The decoded annotation. ``clusters`` maps cluster names and ``"*"`` to preferences."""

    rebalance: bool = False
    clusters: Mapping[str, ClusterPreferences] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def default(cls) -> ReplicaPreferences:
        """Upstream's preferences when the annotation is absent or invalid: every cluster
        weight 1, no rebalancing."""
        return cls(False, MappingProxyType({"*": ClusterPreferences(weight=1)}))

    def for_cluster(self, name: str) -> ClusterPreferences | None:
        """The cluster's own entry, else ``"*"``, else None (the cluster gets nothing)."""
        found = self.clusters.get(name)
        return found if found is not None else self.clusters.get("*")

    def to_dict(self) -> dict[str, Any]:
        return {
            "rebalance": self.rebalance,
            "clusters": {name: pref.to_dict() for name, pref in self.clusters.items()},
        }


# --- Go encoding/json, as far as these two structs need it ------------------------------------


class _Number(str):
    """A JSON number kept as its literal text: Go parses int64 fields from the text."""


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in order, duplicates kept."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Non-ASCII letters whose Go case fold (``foldRune``: the smallest rune of the letter's
# SimpleFold orbit) is an ASCII letter; no other non-ASCII text can match an ASCII name.
_FOLD_TO_ASCII = {"ſ": "S", "\u212a": "K", "ı": "I"}


def _fold(text: str) -> str:
    """Go's ``foldName`` as far as matching ASCII field names needs it."""
    if text.isascii():
        return text.upper()
    return "".join(ch.upper() if ch.isascii() else _FOLD_TO_ASCII.get(ch, ch) for ch in text)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Number):
        return f"number {value}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, _Pairs):
        return "object"
    return "array"


def _int64(value: Any, where: str) -> int:
    number = parse_go_int64(value) if isinstance(value, _Number) else None
    if number is None:
        raise PreferencesError(f"{where}: cannot decode {_json_type(value)} as an int64")
    return number


def _field(key: str, names: Mapping[str, str]) -> str | None:
    return names.get(_fold(key))


_TOP = {"REBALANCE": "rebalance", "CLUSTERS": "clusters"}
_CLUSTER = {"MINREPLICAS": "minReplicas", "MAXREPLICAS": "maxReplicas", "WEIGHT": "weight"}


def _cluster(value: Any, where: str) -> ClusterPreferences:
    if value is None:
        return ClusterPreferences()
    if not isinstance(value, _Pairs):
        raise PreferencesError(f"{where}: cannot decode {_json_type(value)} as an object")
    min_replicas, max_replicas, weight = 0, None, 0
    for key, item in value:
        name = _field(key, _CLUSTER)
        if name is None:
            continue  # unknown keys are ignored, as by upstream
        if name == "maxReplicas":
            max_replicas = None if item is None else _int64(item, f"{where}.{name}")
        elif item is None:
            continue  # null leaves an integer as it was
        elif name == "minReplicas":
            min_replicas = _int64(item, f"{where}.{name}")
        else:
            weight = _int64(item, f"{where}.{name}")
    return ClusterPreferences(min_replicas, max_replicas, weight)


def _decode(value: Any) -> ReplicaPreferences:
    if value is None:
        return ReplicaPreferences()  # `null` decodes to the zero value, without an error
    if not isinstance(value, _Pairs):
        raise PreferencesError(f"cannot decode {_json_type(value)} as an object")
    rebalance = False
    clusters: dict[str, ClusterPreferences] | None = None
    for key, item in value:
        name = _field(key, _TOP)
        if name == "rebalance":
            if item is None:
                continue
            if not isinstance(item, bool):
                raise PreferencesError(f"rebalance: cannot decode {_json_type(item)} as a bool")
            rebalance = item
        elif name == "clusters":
            if item is None:
                clusters = None
                continue
            if not isinstance(item, _Pairs):
                raise PreferencesError(f"clusters: cannot decode {_json_type(item)} as an object")
            if clusters is None:
                clusters = {}
            for cluster, prefs in item:
                clusters[cluster] = _cluster(prefs, f"clusters[{json.dumps(cluster)}]")
    return ReplicaPreferences(rebalance, MappingProxyType(dict(clusters or {})))


def _check_not_negative(prefs: ReplicaPreferences) -> None:
    for cluster, pref in prefs.clusters.items():
        for name, number in pref.to_dict().items():
            if number is not None and number < 0:
                raise PreferencesError(
                    f"clusters[{json.dumps(cluster)}].{name}: {number} is negative"
                )


def parse_preferences(text: str) -> ReplicaPreferences:
    """Decode an annotation's text as upstream does. Raises :class:`PreferencesError`
    for invalid JSON, a value of the wrong type, an int64 overflow or a negative number."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_Pairs,
            parse_int=_Number,
            parse_float=_Number,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as err:
        raise PreferencesError(f"invalid JSON: {err.msg} at character {err.pos}") from None
    except (ValueError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        raise PreferencesError(f"invalid JSON: {reason}") from None
    prefs = _decode(value)
    _check_not_negative(prefs)
    return prefs
