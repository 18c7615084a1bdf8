"""The Federation ClusterSelector annotation: a JSON list of requirements on cluster labels.

``federation.alpha.kubernetes.io/cluster-selector: '[{"key": "location", "operator":
"in", "values": ["europe"]}]'`` sends an object only to clusters whose labels match
every requirement. Semantics as upstream ``clusterselector.SendToCluster``: no
annotation means every cluster, ``[]``/``null`` too; an invalid annotation is an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from clusterplace import jsontext
from clusterplace.labels import Labels, Operator, Requirement, Selector, SelectorError

__all__ = ["ANNOTATION", "OPERATOR_ALIASES", "parse_cluster_selector", "send_to_cluster"]

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"

# Upstream ConvertOperator; the later version's ">" and "<" are accepted too.
OPERATOR_ALIASES: dict[str, Operator] = {
    "In": Operator.IN,
    "in": Operator.IN,
    "=": Operator.EQUALS,
    "==": Operator.DOUBLE_EQUALS,
    "NotIn": Operator.NOT_IN,
    "notin": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "exists": Operator.EXISTS,
    "!=": Operator.NOT_EQUALS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
    "!": Operator.DOES_NOT_EXIST,
    "Gt": Operator.GREATER_THAN,
    "gt": Operator.GREATER_THAN,
    ">": Operator.GREATER_THAN,
    "Lt": Operator.LESS_THAN,
    "lt": Operator.LESS_THAN,
    "<": Operator.LESS_THAN,
}
_FIELDS = ("key", "operator", "values")


def _field(item: Mapping[str, Any], name: str) -> Any:
    # encoding/json matches field names case-insensitively; unknown fields are ignored.
    if name in item:
        return item[name]
    for key, value in item.items():
        if key.lower() == name:
            return value
    return None


def _requirement(index: int, item: object) -> Requirement:
    where = f"requirement [{index}]"
    if item is None:
        item = {}
    if not isinstance(item, Mapping):
        raise SelectorError(f"{where}: must be an object with key, operator and values")
    key, op_name, values = (_field(item, f) for f in _FIELDS)
    where = f"{where} {json.dumps({f: _field(item, f) for f in _FIELDS}, separators=(',', ':'))}"
    if key is None:
        key = ""
    if op_name is None:
        op_name = ""
    if values is None:
        values = []
    if not isinstance(key, str):
        raise SelectorError(f"{where}: key must be a string")
    if not isinstance(op_name, str):
        raise SelectorError(f"{where}: operator must be a string")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SelectorError(f"{where}: values must be a list of strings")
    op = OPERATOR_ALIASES.get(op_name)
    if op is None:
        raise SelectorError(
            f"{where}: operator {op_name!r} is not recognized; valid operators: "
            + ", ".join(OPERATOR_ALIASES)
        )
    try:
        return Requirement(key, op, values)
    except SelectorError as err:
        raise SelectorError(f"{where}: {err.message}") from None


def parse_cluster_selector(value: str) -> Selector:
    """The selector an annotation value describes. Raises :class:`SelectorError` naming the
    requirement for invalid JSON, an unknown operator or invalid key/values."""
    try:
        items = jsontext.loads(value)
    except json.JSONDecodeError as err:
        raise SelectorError(f"invalid JSON: {err.msg} at character {err.pos}") from None
    except jsontext.JSONDepthError as err:
        raise SelectorError(f"invalid JSON: {err}") from None
    if items is None:
        return Selector.everything()
    if not isinstance(items, list):
        raise SelectorError("must be a JSON array of {key, operator, values} objects")
    return Selector(_requirement(i, item) for i, item in enumerate(items))


def send_to_cluster(cluster_labels: Labels, annotations: Mapping[str, str] | None) -> bool:
    """Whether an object with ``annotations`` goes to a cluster with ``cluster_labels``.

    No cluster-selector annotation: True (every cluster). Raises :class:`SelectorError`
    for an invalid annotation, in which case the object goes nowhere.
    """
    if not annotations or ANNOTATION not in annotations:
        return True
    return parse_cluster_selector(annotations[ANNOTATION]).matches(cluster_labels)
