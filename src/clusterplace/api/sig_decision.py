"""SIG-Multicluster PlacementDecisions (``multicluster.x-k8s.io/v1alpha1``, KEP-5313):
a placement's OCM PlacementDecisions as the SIG API's slices.

One slice per OCM page (at most 100 clusters each), of the same namespace and name, so a
slice's name is as deterministic as its page's (``<placement>-decision-<k>``):

- labels ``x-k8s.io/cluster-manager: clusterplace`` (a slice without it is never
  touched), ``multicluster.x-k8s.io/decision-key`` and ``placement-key`` (the
  placement's name, as OCM's own writer sets them), ``multicluster.x-k8s.io/decision-index``
  (the slice's order, from 0: the pages ordered by decision group, then by page, so the
  index grows with the group; each slice also carries its page's
  ``decision-group-index`` and ``decision-group-name`` labels);
- ``schedulerName: clusterplace``;
- ``decisions[].clusterProfileRef``: the profile the cluster was read from, or, for a
  ManagedCluster, its name in the placement's namespace (where OCM's hub writes the
  cluster's profile for a namespace that binds its set); ``reason`` as the page's;
- the page's ownerReferences (the Placement): deleted with it by the garbage collector.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from clusterplace.api.placement import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    PlacementDecision,
)
from clusterplace.api.profile import CLUSTER_MANAGER_LABEL, SIG_GROUP

__all__ = [
    "DECISION_INDEX_LABEL",
    "DECISION_KEY_LABEL",
    "MANAGER",
    "PLACEMENT_KEY_LABEL",
    "SIG_DECISION_API_VERSION",
    "ours",
    "sig_slices",
]

SIG_DECISION_API_VERSION = f"{SIG_GROUP}/v1alpha1"
MANAGER = "clusterplace"
DECISION_KEY_LABEL = f"{SIG_GROUP}/decision-key"
DECISION_INDEX_LABEL = f"{SIG_GROUP}/decision-index"
PLACEMENT_KEY_LABEL = f"{SIG_GROUP}/placement-key"

Origin = Callable[[str], tuple[str, str] | None]  # cluster name -> its profile, if any
_PAGE = re.compile(r"-decision-([0-9]+)$")


def ours(obj: dict[str, Any]) -> bool:
    """Whether a SIG PlacementDecision carries clusterplace's manager label."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return isinstance(labels, dict) and labels.get(CLUSTER_MANAGER_LABEL) == MANAGER


def _order(page: PlacementDecision) -> tuple[int, int, str]:
    group = page.labels.get(DECISION_GROUP_INDEX_LABEL, "")
    found = _PAGE.search(page.name)
    return (
        int(group) if group.isdigit() else 0,
        int(found.group(1)) if found else 0,
        page.name,
    )


def sig_slices(
    placement: str, pages: Sequence[PlacementDecision], origin: Origin
) -> list[dict[str, Any]]:
    """The SIG slices of placement ``placement``'s OCM ``pages`` (see the module's
    docstring), in decision-index order."""
    out = []
    for index, page in enumerate(sorted(pages, key=_order)):
        labels = {
            CLUSTER_MANAGER_LABEL: MANAGER,
            DECISION_KEY_LABEL: placement,
            DECISION_INDEX_LABEL: str(index),
            PLACEMENT_KEY_LABEL: placement,
        }
        for key in (DECISION_GROUP_INDEX_LABEL, DECISION_GROUP_NAME_LABEL):
            if key in page.labels:
                labels[key] = page.labels[key]
        decisions = []
        for decision in page.status.decisions if page.status else ():
            found = origin(decision.cluster_name)
            namespace, name = found if found else (page.namespace, decision.cluster_name)
            entry: dict[str, Any] = {"clusterProfileRef": {"name": name, "namespace": namespace}}
            if decision.reason:
                entry["reason"] = decision.reason
            decisions.append(entry)
        metadata: dict[str, Any] = {
            "name": page.name,
            "namespace": page.namespace,
            "labels": labels,
        }
        owners = page.metadata.owner_references
        if owners:
            metadata["ownerReferences"] = [
                o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in owners
            ]
        out.append(
            {
                "apiVersion": SIG_DECISION_API_VERSION,
                "kind": "PlacementDecision",
                "metadata": metadata,
                "schedulerName": MANAGER,
                "decisions": decisions,
            }
        )
    return out
