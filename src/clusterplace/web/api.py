"""The explorer's JSON API (documented by OpenAPI at /openapi.json). Every endpoint
reads; ``POST /api/what-if`` computes on edits sent with it and keeps nothing."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field, StringConstraints

from clusterplace.api import ManagedCluster
from clusterplace.collector import collector_paused
from clusterplace.delivery.explain import UnknownReplicaSetError, timestamp
from clusterplace.errors import ClusterplaceError, shorten
from clusterplace.labels import SelectorError, parse
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.scheduling import (
    SetSelectorError,
    cluster_set_selector,
    parse_edits,
    what_if,
    why_not,
)
from clusterplace.web.edits import check_edits
from clusterplace.web.fates import FateFilter, group_labels, missing_scores, ranked
from clusterplace.web.guards import MAX_BODY_BYTES
from clusterplace.web.heat import heatmap_data
from clusterplace.web.listing import PlacementFilter, page_of, placement_rows
from clusterplace.web.order import naturally, ref_key
from clusterplace.web.responses import SafeJSONResponse as JSONResponse
from clusterplace.web.state import Explorer

__all__ = ["EditCheckRequest", "Problem", "WhatIfRequest", "router"]

router = APIRouter(prefix="/api", default_response_class=JSONResponse)


class Problem(BaseModel):
    """An error: what is wrong with the request."""

    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "Invalid input"},
    404: {"model": Problem, "description": "No such object"},
}
# Every request body is capped (web.guards.BodyLimit): the POST endpoints say so.
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {
        "model": Problem,
        "description": f"The request body is larger than the limit ({MAX_BODY_BYTES} bytes)",
    },
}


EditText = Annotated[str, StringConstraints(max_length=4096)]
PIVOT_AT = 8  # the Modules matrix turns around above this many clusters
PLACEMENTS_LIMIT = 500  # placements in one answer of GET /api/placements, unless asked
MAX_PLACEMENTS_LIMIT = 5000


class WhatIfRequest(BaseModel):
    """Edits in the ``what-if`` command's syntax (``--unset`` ones applied first)."""

    set: list[EditText] = Field(default_factory=list, max_length=200)
    unset: list[EditText] = Field(default_factory=list, max_length=200)


class EditItem(BaseModel):
    """One edit as the what-if page keeps it."""

    op: Literal["set", "unset"]
    expression: EditText


class EditCheckRequest(BaseModel):
    """Edits to check, in the order the page lists them."""

    edits: list[EditItem] = Field(default_factory=list, max_length=400)


def explorer(request: Request) -> Explorer:
    found: Explorer = request.app.state.explorer
    found.refresh()
    return found


def problem(status: int, detail: str) -> JSONResponse:
    """An error answer; however long the message grew, at most 2,000 characters."""
    return JSONResponse({"detail": shorten(detail, 2000)}, status_code=status)


def cluster_rows(state: Explorer, selector: str) -> list[dict[str, Any]]:
    """Every cluster (matching the ``-l`` selector) with what placements selected it;
    raises SelectorError for a bad selector."""
    chosen = parse(selector) if selector.strip() else None
    fleet = state.run.fleet
    sets = []
    for set_name, cluster_set in sorted(fleet.cluster_sets.items()):
        try:
            sets.append((set_name, cluster_set_selector(cluster_set)))
        except SetSelectorError:
            continue  # an invalid set selects nothing (the scheduler says so)
    selected_by: dict[str, list[str]] = {}
    for result in state.run.result.placements:
        ref = f"{result.placement.namespace}/{result.placement.name}"
        for pd in result.decisions:
            for name in pd.cluster_names:
                selected_by.setdefault(name, []).append(ref)
    rows = []
    for name in naturally(fleet.clusters):
        cluster = fleet.clusters[name]
        if chosen is not None and not chosen.matches(cluster.labels):
            continue
        status = cluster.status
        rows.append(
            {
                "name": name,
                "labels": dict(cluster.labels),
                "claims": cluster.claims,
                "taints": [
                    f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
                    for t in cluster.taints
                ],
                "allocatable": dict((status.allocatable or {}) if status else {}),
                "available": availability(cluster),
                "sets": [n for n, found in sets if found.matches(cluster.labels)],
                "selectedBy": sorted(
                    selected_by.get(name, []), key=lambda r: ref_key(*r.split("/", 1))
                ),
            }
        )
    return rows


AVAILABLE = "ManagedClusterConditionAvailable"


def availability(cluster: ManagedCluster) -> dict[str, str] | None:
    """The cluster's ManagedClusterConditionAvailable condition: its status (True,
    False, Unknown), reason and message; None when the cluster reports none."""
    conditions = (cluster.status.conditions if cluster.status else None) or []
    for condition in conditions:
        if condition.type == AVAILABLE:
            return {
                "status": condition.status,
                "reason": condition.reason or "",
                "message": condition.message or "",
            }
    return None


@router.get("/clusters", responses=ERRORS, summary="Clusters, filtered by a label selector")
def clusters(
    request: Request, selector: str = Query("", max_length=2000, description="-l syntax")
) -> Any:
    state = explorer(request)
    try:
        return {"clusters": cluster_rows(state, selector), "hubProblem": state.problem}
    except SelectorError as err:
        return problem(400, f"invalid selector {selector!r}: {err}")


@router.get(
    "/placements",
    summary="Placements: satisfied, selected/wanted, groups; filtered, a page at a time",
)
def placements(
    request: Request,
    search: str = Query("", max_length=400, description="in namespace/name, any case"),
    show: Literal["all", "satisfied", "unsatisfied"] = Query("all"),
    status: str = Query("", max_length=400, description="only placements with this status"),
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(PLACEMENTS_LIMIT, ge=1, le=MAX_PLACEMENTS_LIMIT),
) -> Any:
    """Placements by namespace and name in natural order (``cluster2`` before
    ``cluster10``), those that pass the filters from ``offset`` on, at most ``limit``;
    ``total`` is how many the fleet has, ``matched`` how many pass the filters (more
    pages follow while ``offset`` + ``limit`` < ``matched``)."""
    state = explorer(request)
    with state.lock:
        listing = state.listing()
        kept = listing.kept(PlacementFilter(search, show, status))
        rows = page_of(state, kept[offset : offset + limit])
    return {
        "placements": rows,
        "total": len(listing.entries),
        "matched": len(kept),
        "offset": offset,
        "hubProblem": state.problem,
    }


@router.get(
    "/placements/{namespace}/{name}",
    responses=ERRORS,
    summary="Every cluster's fate for one placement (explain -o wide), filtered, a page at a time",
)
def placement(
    request: Request,
    namespace: str,
    name: str,
    stage: str = Query("", max_length=100, description="only clusters decided at this stage"),
    show: Literal["all", "selected", "rejected"] = Query("all"),
    search: str = Query("", max_length=400, description="in the cluster's name, any case"),
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(100_000, ge=1, le=100_000),
) -> Any:
    """Clusters in rank order (the ranked ones first, the rest by name in natural
    order), each with its decision group (``decisionGroup``: index, and name when
    named) when selected, and ``missingScores`` when a ResourceAllocatable prioritizer
    gave it no score (each with its weight and why: it counts 0); ``matched`` is how
    many pass the filters, ``clusters`` the ones from ``offset`` on."""
    state = explorer(request)
    found = state.explained(namespace, name)
    if found is None:
        return problem(404, f'placement "{name}" not found in namespace "{namespace}"')
    result, items = found
    groups = group_labels(result)
    chosen = FateFilter(stage, show, search)
    shown = [i for i in ranked(items) if chosen.keeps(i)]
    rows = []
    clusters = state.run.fleet.clusters
    for item in shown[offset : offset + limit]:
        row = item.to_dict()
        missing = missing_scores(item, clusters.get(item.cluster))
        if missing:
            row["missingScores"] = [
                {"prioritizer": p, "weight": item.weights.get(p, 0), "reason": why}
                for p, why in missing
            ]
        group = groups.get(item.cluster) if item.selected else None
        if group is not None:
            index, group_name = group
            row.setdefault(
                "decisionGroup",
                {"index": index, "name": group_name} if group_name else {"index": index},
            )
        rows.append(row)
    return {
        "hubProblem": state.problem,
        "namespace": namespace,
        "name": name,
        "numberOfClusters": result.placement.spec.number_of_clusters,
        "selected": sum(i.selected for i in items),
        "matched": len(shown),
        "offset": offset,
        "clusters": rows,
    }


@router.get(
    "/placements/{namespace}/{name}/why-not/{cluster}",
    responses=ERRORS,
    summary="Verified changes that would make the placement select the cluster",
)
def placement_why_not(request: Request, namespace: str, name: str, cluster: str) -> Any:
    state = explorer(request)
    try:
        with state.lock:
            answer = why_not(state.run, namespace, name, cluster)
    except ClusterplaceError as err:
        return problem(404, str(err))
    return {**answer.to_dict(), "hubProblem": state.problem}


@router.get("/heatmap", summary="Placements x clusters: total scores and selections")
def heatmap(
    request: Request,
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(1000, ge=1, le=2000),
    group_by: str = Query(
        "", alias="groupBy", max_length=317, description="a label key: one column per value"
    ),
) -> Any:
    """Per placement (``rows``, from ``offset``) the feasible clusters' total scores
    (``cells``: ``[column, total]``) and the ``selected`` columns; with ``groupBy``, one
    column per value of that label (``groups``) and per row ``groups``: ``[group,
    feasible, selected, mean total, best total]``. ``range`` is the lowest and highest
    total in the rows; ``labelKeys`` the label keys to group by."""
    state = explorer(request)
    # A page holds up to 250,000 cells: built and encoded with the cyclic collector
    # paused (they form no cycles; its scans of them cost more than building them).
    with collector_paused():
        with state.lock:
            results = state.run.result.placements
            ordered = [results[e.position] for e in state.listing().entries]  # as listed
            data = heatmap_data(state.run.fleet.clusters, ordered, offset, limit, group_by)
        data["hubProblem"] = state.problem
        return JSONResponse(data)


@router.post(
    "/what-if",
    responses={**ERRORS, **TOO_LARGE},
    summary="Per-placement diff of edits (nothing is kept or written)",
)
def post_what_if(request: Request, body: WhatIfRequest) -> Any:
    state = explorer(request)
    try:
        edits = parse_edits(body.set, body.unset)
        with state.lock:
            answer = what_if(state.run, edits)
    except ClusterplaceError as err:
        return problem(400, str(err))
    data = answer.to_dict()
    data["patch"] = dump_yaml_stream(answer.patches()) if edits else ""
    data["hubProblem"] = state.problem
    return data


@router.post(
    "/what-if/check",
    responses={400: ERRORS[400], **TOO_LARGE},
    summary="Check edits one by one (parsed, applied to copies; nothing is scheduled or kept)",
)
def post_what_if_check(request: Request, body: EditCheckRequest) -> Any:
    """Per edit, in the order sent, ``error``: why it cannot be applied (it does not
    parse, names an object the fleet does not have, or makes an object invalid), or
    null. Edits are checked in the order what-if applies them: unsets first."""
    state = explorer(request)
    with state.lock:
        checked = check_edits(state.run.fleet, [(e.op, e.expression) for e in body.edits])
    return {
        "edits": [{"op": c.op, "expression": c.expression, "error": c.error} for c in checked],
        "valid": all(c.error is None for c in checked),
        "hubProblem": state.problem,
    }


@router.get("/live", summary="The hub's events after a cursor, and the placements now")
def live(request: Request, since: int = Query(0, ge=0, le=2**62)) -> Any:
    """``offset`` is the cursor to ask after next (a directory hub's log offset, or a
    Kubernetes hub's event count); at most the newest 1,000 events come at once."""
    state = explorer(request)
    batch = state.events_after(since)
    return {
        "live": state.source.events is not None,
        "events": batch.events,
        "offset": batch.cursor,
        "problem": batch.problem,
        "placements": placement_rows(state),
        "hubProblem": state.problem,
    }


@router.get(
    "/rollouts",
    summary="Every ManifestWorkReplicaSet's rollout: states, why clusters wait (explain rollout)",
)
def rollouts(request: Request) -> Any:
    """Each rollout with ``notStarted``: true on a hub that holds no status of the
    ManifestWorkReplicaSet yet (no controller has synced it; its conditions are what
    the first sync would write)."""
    state = explorer(request)
    now = state.rollout_time()
    return {
        "now": timestamp(now),
        "rollouts": [
            {**r.to_dict(), "notStarted": state.not_started(r.namespace, r.name)}
            for r in state.rollouts(now)
        ],
        "hubProblem": state.problem,
    }


@router.get(
    "/rollouts/{namespace}/{name}",
    responses=ERRORS,
    summary="One ManifestWorkReplicaSet's rollout (explain rollout -o json)",
)
def rollout(request: Request, namespace: str, name: str) -> Any:
    state = explorer(request)
    try:
        found = state.rollout(namespace, name, state.rollout_time())
    except UnknownReplicaSetError as err:
        return problem(404, str(err))
    return {
        **found.to_dict(),
        "notStarted": state.not_started(namespace, name),
        "hubProblem": state.problem,
    }


@router.get("/modules", responses=ERRORS, summary="The defkit plan matrix (with --module)")
def modules(request: Request) -> Any:
    state = explorer(request)
    if state.module is None:
        return problem(404, "no module: start the explorer with --module DIR")
    from clusterplace.defkit.plan import plan

    names = naturally(state.run.fleet.clusters)
    plans = {n: plan(state.module, state.run.fleet.clusters[n].labels) for n in names}
    definitions = len(state.module.definitions)
    return {
        "hubProblem": state.problem,
        "module": state.module.name,
        # As plan-module prints it: above 8 clusters (and more than definitions), one
        # row per cluster, so the matrix grows down, never sideways.
        "clustersAsRows": len(names) > PIVOT_AT and len(names) > definitions,
        "clusters": names,
        "definitions": [
            {
                "kind": loaded.definition.KIND,
                "name": loaded.definition.name,
                "verdicts": [
                    {"eligible": plans[n][i].eligible, "reason": plans[n][i].reason} for n in names
                ],
            }
            for i, loaded in enumerate(state.module.definitions)
        ],
    }
