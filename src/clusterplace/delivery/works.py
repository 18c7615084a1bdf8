"""ManifestWorks as a ManifestWorkReplicaSet makes and reads them: the work for one
cluster, when two works are the same, what a work's status conditions say about its
rollout, and what the admission webhook refuses in a work's manifests.

All of it is upstream's (OCM's MWRS controller and work webhook) but the name a work
gets where the hub names nothing (:func:`work_name`, clusterplace's own);
docs/semantics.md, "Delivery", says what each rule means for a user.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from clusterplace.api import ManifestWork, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.api.base import format_time
from clusterplace.api.placement import DECISION_GROUP_INDEX_LABEL, DECISION_GROUP_NAME_LABEL
from clusterplace.api.work import MWRS_LABEL, MWRS_PLACEMENT_LABEL, WORK_GROUP, ManifestWorkSpec
from clusterplace.errors import ClusterplaceError
from clusterplace.labels.validation import go_quote, label_value_errors, parse_go_int64

__all__ = [
    "MANIFEST_LIMIT",
    "DecisionGroupError",
    "decision_pages",
    "desired_work",
    "owner_label_problem",
    "rollout_status",
    "same_spec",
    "same_work",
    "template_problems",
    "work_name",
    "work_owner",
]

MANIFEST_LIMIT = 500 * 1024  # bytes of JSON, the webhook's default --manifestLimit

APPLIED, AVAILABLE, PROGRESSING, DEGRADED = "Applied", "Available", "Progressing", "Degraded"


def rollout_status(work: ManifestWork) -> dict[str, Any]:
    """The rollout status of the cluster ``work`` is in, read from its conditions as
    upstream's MWRS controller reads them: ``{"clusterName", "status",
    "lastTransitionTime"}`` (RFC 3339, or None) for :func:`clusterplace.delivery.plan_rollout`.

    ToApply until the agent applied the current generation and reports Progressing
    for it (and Degraded, if it reports one, for it too); then Failed (Progressing and
    Degraded both True, timed from Degraded), Progressing (Progressing True or
    Unknown) or Succeeded (Progressing False, timed from that transition: the soak).
    """
    generation = work.metadata.generation or 0
    applied, progressing, degraded = (work.condition(t) for t in (APPLIED, PROGRESSING, DEGRADED))
    status: dict[str, Any] = {"clusterName": work.namespace, "status": "ToApply"}
    if (
        applied is None
        or (applied.observed_generation or 0) != generation
        or applied.status != "True"
        or progressing is None
        or (progressing.observed_generation or 0) != generation
        or (degraded is not None and (degraded.observed_generation or 0) != generation)
    ):
        status["lastTransitionTime"] = None
        return status
    since: datetime = progressing.last_transition_time
    if progressing.status == "True" and degraded is not None and degraded.status == "True":
        status["status"], since = "Failed", degraded.last_transition_time
    elif progressing.status == "False":
        status["status"] = "Succeeded"
    else:
        status["status"] = "Progressing"
    status["lastTransitionTime"] = format_time(since)
    return status


def _comparable(spec: ManifestWorkSpec) -> dict[str, Any]:
    """The spec as upstream compares it: manifests without the creation timestamps that
    a decode into an object adds."""
    data = spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    manifests = data.get("workload", {}).get("manifests", [])
    for at, manifest in enumerate(manifests):
        for path in (("metadata",), ("spec", "template", "metadata")):
            node: Any = manifest
            for part in path:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict) and "creationTimestamp" in node:
                manifests[at] = manifest = copy.deepcopy(manifest)
                _drop(manifest, path)
    return data


def _drop(manifest: dict[str, Any], path: tuple[str, ...]) -> None:
    node: Any = manifest
    for part in path:
        node = node[part]
    del node["creationTimestamp"]


def same_spec(desired: ManifestWorkSpec, current: ManifestWorkSpec) -> bool:
    """Whether two work specs are the same as upstream compares them (creation
    timestamps in manifests aside)."""
    return desired == current or _comparable(desired) == _comparable(current)


def same_work(desired: ManifestWork, current: ManifestWork) -> bool:
    """Whether ``current`` already is ``desired``: the same spec, labels, annotations
    and owner references (upstream's ``ManifestWorkEqual``)."""
    if not same_spec(desired.spec, current.spec):
        return False
    if desired.labels != current.labels or desired.annotations != current.annotations:
        return False
    return (desired.metadata.owner_references or []) == (current.metadata.owner_references or [])


def desired_work(
    mwrs: ManifestWorkReplicaSet, cluster: str, placement: str, name: str
) -> ManifestWork:
    """The work ``mwrs`` wants in ``cluster``'s namespace for ``placement``: its labels
    are the MWRS's plus the owner and placement labels, its spec the template. An empty
    ``name`` asks the hub to name it: ``generateName`` is the MWRS's name, as upstream
    creates works (the API server appends a random suffix)."""
    labels = {**mwrs.labels, MWRS_LABEL: mwrs.owner_key, MWRS_PLACEMENT_LABEL: placement}
    naming = {"name": name} if name else {"generateName": mwrs.name}
    return ManifestWork.model_validate(
        {
            "apiVersion": f"{WORK_GROUP}/v1",
            "kind": "ManifestWork",
            "metadata": {**naming, "namespace": cluster, "labels": labels},
            "spec": mwrs.spec.manifest_work_template.model_dump(
                mode="json", by_alias=True, exclude_none=True
            ),
        }
    )


WORK_NAME_MAX = 253  # a ManifestWork's name is a DNS subdomain
DIGEST_LENGTH = 10  # hex characters of the owner's digest in a work's name


def work_name(mwrs: ManifestWorkReplicaSet, placement: str) -> str:
    """The name of the work ``mwrs`` makes for ``placement`` where the hub names
    nothing (a directory hub): the MWRS's name, a dash and a digest of its namespace,
    name and the placement. Deterministic, and two MWRSs (of any namespace) or two
    placementRefs of one MWRS never share a name, so never a work. (A Kubernetes hub
    names new works itself: ``generateName``.)"""
    identity = f"{mwrs.namespace}/{mwrs.name}/{placement}".encode()
    digest = hashlib.sha256(identity).hexdigest()[:DIGEST_LENGTH]
    prefix = mwrs.name[: WORK_NAME_MAX - DIGEST_LENGTH - 1].rstrip(".-")
    return f"{prefix}-{digest}"


def work_owner(work: ManifestWork) -> tuple[str | None, str | None]:
    """Who holds ``work``: its owner label (``<namespace>.<name>`` of an MWRS) and its
    placement label, each None when missing."""
    return work.labels.get(MWRS_LABEL), work.labels.get(MWRS_PLACEMENT_LABEL)


def owner_label_problem(mwrs: ManifestWorkReplicaSet) -> str | None:
    """Why ``<namespace>.<name>`` cannot be the owner label's value (more than 63
    characters, say), or None."""
    errors = label_value_errors(mwrs.owner_key)
    if not errors:
        return None
    return f"label value {mwrs.owner_key!r} of {MWRS_LABEL} is invalid: {'; '.join(errors)}"


def _size(manifest: Mapping[str, Any]) -> int:
    # As the API server stores it: compact JSON, keys sorted, <, > and & escaped.
    text = json.dumps(manifest, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    extra = 5 * sum(text.count(c) for c in "<>&")  # each becomes \u003c, 6 bytes not 1
    return len(text.encode()) + extra


def template_problems(spec: ManifestWorkSpec, limit: int = MANIFEST_LIMIT) -> list[str]:
    """What the work webhook refuses in ``spec``'s manifests, in its order and words
    (it stops at the first problem; so does this): none, over ``limit`` bytes, a
    manifest without a name or with ``generateName``, two manifests for one object."""
    manifests = spec.workload.manifests
    if not manifests:
        return ["Workload manifests should not be empty"]
    total = sum(_size(m) for m in manifests)
    if total > limit:
        return [f"the size of manifests is {total} bytes which exceeds the {limit} limit"]
    seen: set[tuple[str, str, str, str]] = set()
    for manifest in manifests:
        metadata = manifest.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        if not metadata.get("name"):
            return ["name must be set in manifest"]
        if metadata.get("generateName"):
            return ["generateName must not be set in manifest"]
        api_version, kind = str(manifest.get("apiVersion", "")), str(manifest.get("kind", ""))
        namespace, name = str(metadata.get("namespace", "")), str(metadata["name"])
        key = (api_version, kind, namespace, name)
        if key in seen:
            return [
                f"duplicate manifest for resource {namespace}/{name} "
                f"with resource type {api_version}.{kind}"
            ]
        seen.add(key)
    return []


class DecisionGroupError(ClusterplaceError, ValueError):
    """A PlacementDecision whose decision-group index label is missing or not a number:
    its clusters cannot be put in a group (upstream's tracker refuses it too)."""


def decision_pages(decisions: Iterable[PlacementDecision]) -> list[dict[str, Any]]:
    """A placement's decisions as :func:`clusterplace.delivery.plan_rollout` takes them:
    each page's name, decision group (from its labels) and clusters. Raises
    :class:`DecisionGroupError` for a page without a numeric group index label."""
    pages = []
    for pd in decisions:
        index_text = pd.labels.get(DECISION_GROUP_INDEX_LABEL, "")
        index = parse_go_int64(index_text)
        if index is None:
            raise DecisionGroupError(
                f"PlacementDecision {pd.namespace}/{pd.name}: incorrect group index: "
                f"label {DECISION_GROUP_INDEX_LABEL} is {go_quote(index_text)}, not an integer"
            )
        index = (index + 2**31) % 2**32 - 2**31  # upstream keeps the low 32 bits
        pages.append(
            {
                "name": pd.name,
                "groupName": pd.labels.get(DECISION_GROUP_NAME_LABEL, ""),
                "groupIndex": index,
                "clusters": pd.cluster_names,
            }
        )
    return pages
