"""The explorer's JSON API (documented by OpenAPI at /openapi.json). Every endpoint
reads; ``POST /api/what-if`` computes on edits sent with it and keeps nothing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from clusterplace.delivery.explain import UnknownReplicaSetError, timestamp
from clusterplace.errors import ClusterplaceError, shorten
from clusterplace.labels import SelectorError, parse
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.scheduling import parse_edits, what_if, why_not
from clusterplace.web.state import Explorer

__all__ = ["Problem", "WhatIfRequest", "router"]

router = APIRouter(prefix="/api")


class Problem(BaseModel):
    """An error: what is wrong with the request."""

    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "Invalid input"},
    404: {"model": Problem, "description": "No such object"},
}


EditText = Annotated[str, StringConstraints(max_length=4096)]


class WhatIfRequest(BaseModel):
    """Edits in the ``what-if`` command's syntax (``--unset`` ones applied first)."""

    set: list[EditText] = Field(default_factory=list, max_length=200)
    unset: list[EditText] = Field(default_factory=list, max_length=200)


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
    selected_by: dict[str, list[str]] = {}
    for result in state.run.result.placements:
        ref = f"{result.placement.namespace}/{result.placement.name}"
        for pd in result.decisions:
            for name in pd.cluster_names:
                selected_by.setdefault(name, []).append(ref)
    rows = []
    for name, cluster in sorted(state.run.fleet.clusters.items()):
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
                "selectedBy": selected_by.get(name, []),
            }
        )
    return rows


def placement_rows(state: Explorer) -> list[dict[str, Any]]:
    rows = []
    for result in state.run.result.placements:
        placement = result.placement
        rows.append(
            {
                "namespace": placement.namespace,
                "name": placement.name,
                "satisfied": result.satisfied,
                "selected": sum(len(pd.cluster_names) for pd in result.decisions),
                "wanted": placement.spec.number_of_clusters,
                "groups": [
                    {"name": g.name, "index": g.index, "clusters": len(g.clusters)}
                    for g in result.groups
                ],
                "status": result.skipped or result.error or result.status.code.value,
            }
        )
    return rows


@router.get("/clusters", responses=ERRORS, summary="Clusters, filtered by a label selector")
def clusters(
    request: Request, selector: str = Query("", max_length=2000, description="-l syntax")
) -> Any:
    state = explorer(request)
    try:
        return {"clusters": cluster_rows(state, selector), "hubProblem": state.problem}
    except SelectorError as err:
        return problem(400, f"invalid selector {selector!r}: {err}")


@router.get("/placements", summary="Placements: satisfied, selected/wanted, groups")
def placements(request: Request) -> Any:
    state = explorer(request)
    return {"placements": placement_rows(state), "hubProblem": state.problem}


@router.get(
    "/placements/{namespace}/{name}",
    responses=ERRORS,
    summary="Every cluster's fate for one placement (explain -o wide)",
)
def placement(request: Request, namespace: str, name: str) -> Any:
    state = explorer(request)
    found = state.explained(namespace, name)
    if found is None:
        return problem(404, f'placement "{name}" not found in namespace "{namespace}"')
    result, items = found
    return {
        "hubProblem": state.problem,
        "namespace": namespace,
        "name": name,
        "numberOfClusters": result.placement.spec.number_of_clusters,
        "clusters": [i.to_dict() for i in items],
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
) -> Any:
    state = explorer(request)
    names = sorted(state.run.fleet.clusters)
    column = {n: i for i, n in enumerate(names)}
    rows = []
    placed = state.run.result.placements
    for result in placed[offset : offset + limit]:
        outcome = result.outcome
        totals = outcome.totals if outcome is not None else {}
        chosen = [column[n] for pd in result.decisions for n in pd.cluster_names if n in column]
        rows.append(
            {
                "placement": f"{result.placement.namespace}/{result.placement.name}",
                "cells": [[column[n], t] for n, t in totals.items() if n in column],
                "selected": chosen,
            }
        )
    return {
        "clusters": names,
        "rows": rows,
        "offset": offset,
        "total": len(placed),
        "hubProblem": state.problem,
    }


@router.post(
    "/what-if",
    responses=ERRORS,
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


@router.get("/live", summary="The hub's events after a cursor, and the placements now")
def live(request: Request, since: int = Query(0, ge=0, le=2**62)) -> Any:
    """``offset`` is the cursor to ask after next (a directory hub's log offset, or a
    Kubernetes hub's event count); at most the newest 1,000 events come at once."""
    state = explorer(request)
    batch = state.events_after(since)
    return {
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
    state = explorer(request)
    now = state.rollout_time()
    return {
        "now": timestamp(now),
        "rollouts": [r.to_dict() for r in state.rollouts(now)],
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
    return {**found.to_dict(), "hubProblem": state.problem}


@router.get("/modules", responses=ERRORS, summary="The defkit plan matrix (with --module)")
def modules(request: Request) -> Any:
    state = explorer(request)
    if state.module is None:
        return problem(404, "no module: start the explorer with --module DIR")
    from clusterplace.defkit.plan import plan

    names = sorted(state.run.fleet.clusters)
    plans = {n: plan(state.module, state.run.fleet.clusters[n].labels) for n in names}
    return {
        "hubProblem": state.problem,
        "module": state.module.name,
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
