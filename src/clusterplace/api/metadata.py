"""Object metadata checked as the API server checks it: names, namespaces, label and
annotation keys and values.

Names become file names and URL path segments, so an invalid one is refused before
anything is written. The rule for a name depends on the kind (``ValidateObjectMeta``
with the kind's name function); kinds clusterplace does not model get the rule most
kinds use, a DNS-1123 subdomain.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from clusterplace.errors import shorten
from clusterplace.labels.validation import (
    dns1035_label_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    go_quote,
    label_key_errors,
    label_value_errors,
    path_segment_errors,
)

__all__ = ["ANNOTATIONS_MAX_BYTES", "NameRule", "metadata_problems", "name_rule", "quote"]

ANNOTATIONS_MAX_BYTES = 256 * 1024  # apimachinery's TotalAnnotationSizeLimitB

NameRule = Callable[[str], list[str]]

# Kinds whose names follow another rule than a DNS-1123 subdomain.
_NAME_RULES: dict[str, NameRule] = {
    # OCM's webhook: a ManagedCluster's name is also the name of its namespace on the hub.
    "ManagedCluster": dns1123_label_errors,
    "Namespace": dns1123_label_errors,
    "Service": dns1035_label_errors,
    # RBAC names only need to be a path segment ("system:controller:x" is valid).
    "Role": path_segment_errors,
    "ClusterRole": path_segment_errors,
    "RoleBinding": path_segment_errors,
    "ClusterRoleBinding": path_segment_errors,
}

Problem = tuple[tuple[str | int, ...], str]  # (field path, message)


def quote(value: str) -> str:
    """A value as a Kubernetes error quotes it, cut to a readable length."""
    return go_quote(shorten(value))


def name_rule(kind: str) -> NameRule:
    """The validation of ``metadata.name`` for objects of ``kind``."""
    return _NAME_RULES.get(kind, dns1123_subdomain_errors)


def _invalid(value: str, reasons: list[str]) -> str:
    return f"Invalid value: {quote(value)}: {'; '.join(reasons)}"


# Fleets repeat the same label keys and values on thousands of objects: each distinct
# text is checked once (results are tuples, so nobody can change a cached one).
@functools.lru_cache(maxsize=1 << 16)
def _key_reasons(key: str) -> tuple[str, ...]:
    return tuple(label_key_errors(key))


@functools.lru_cache(maxsize=1 << 16)
def _value_reasons(value: str) -> tuple[str, ...]:
    return tuple(label_value_errors(value))


def metadata_problems(kind: str, meta: dict[str, Any]) -> list[Problem]:
    """What the API server would refuse in ``meta`` (a raw ``metadata`` mapping whose
    name is already known to be a non-empty string)."""
    problems: list[Problem] = []
    name = meta["name"]
    reasons = name_rule(kind)(name)
    if reasons:
        problems.append((("metadata", "name"), _invalid(name, reasons)))
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        reasons = dns1123_label_errors(namespace)
        if reasons:
            problems.append((("metadata", "namespace"), _invalid(namespace, reasons)))
    labels = meta.get("labels")
    if isinstance(labels, dict):
        for key, value in labels.items():
            if not isinstance(key, str):
                continue  # the model reports the type
            reasons = list(_key_reasons(key))
            if reasons:
                problems.append((("metadata", "labels", key), _invalid(key, reasons)))
            if isinstance(value, str):
                reasons = list(_value_reasons(value))
                if reasons:
                    problems.append((("metadata", "labels", key), _invalid(value, reasons)))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        size = 0
        for key, value in annotations.items():
            if not isinstance(key, str):
                continue
            reasons = list(_key_reasons(key.lower()))
            if reasons:
                problems.append((("metadata", "annotations", key), _invalid(key, reasons)))
            size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
        if size > ANNOTATIONS_MAX_BYTES:
            problems.append(
                (
                    ("metadata", "annotations"),
                    f"Too long: must have at most {ANNOTATIONS_MAX_BYTES} bytes",
                )
            )
    return problems
