"""Rollout scenarios: one ManifestWorkReplicaSet over a placement of many clusters in
decision groups, Progressive with a window, on the directory hub's sink (files written),
driven by a simulated work agent that reports each work done.

R1: from a work's status change (its agent reporting it done) reaching the delivery
controller to the next works written, median and 99th percentile.
R2: a whole rollout: every cluster's work written, the agent reporting each done as soon
as it is written, until every cluster has the template and the MWRS is Complete.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from clusterplace.api import ManifestWork, ManifestWorkReplicaSet, Placement, PlacementDecision
from clusterplace.controller import DeliveryReconciler, Engine, ObjectChange
from clusterplace.hub.directory import OutLayout
from clusterplace.hub.directory.sink import DirectorySink

__all__ = ["rollout_objects", "run_full_rollout", "run_status_latency"]

NOW = datetime(2026, 11, 22, tzinfo=UTC)
GROUP = "cluster.open-cluster-management.io"
NS = "apps"


def rollout_objects(clusters: int, groups: int, concurrency: int) -> list[Any]:
    """A Placement of ``clusters`` clusters in ``groups`` decision groups (pages of 100),
    and an MWRS rolling one ConfigMap out over it, Progressive with ``concurrency``."""
    per_group = clusters // groups
    placement = Placement.model_validate(
        {
            "apiVersion": f"{GROUP}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "web", "namespace": NS},
            "status": {
                "numberOfSelectedClusters": clusters,
                "decisionGroups": [
                    {"decisionGroupIndex": g, "decisionGroupName": f"g{g}", "clusterCount": 0}
                    for g in range(groups)
                ],
            },
        }
    )
    objects: list[Any] = [placement]
    page = 0
    for g in range(groups):
        names = [f"cluster{g * per_group + i:05d}" for i in range(per_group)]
        for start in range(0, len(names), 100):
            page += 1
            objects.append(
                PlacementDecision.model_validate(
                    {
                        "apiVersion": f"{GROUP}/v1beta1",
                        "kind": "PlacementDecision",
                        "metadata": {
                            "name": f"web-decision-{page}",
                            "namespace": NS,
                            "labels": {
                                f"{GROUP}/placement": "web",
                                f"{GROUP}/decision-group-index": str(g),
                                f"{GROUP}/decision-group-name": f"g{g}",
                            },
                        },
                        "status": {
                            "decisions": [
                                {"clusterName": n, "reason": ""} for n in names[start : start + 100]
                            ]
                        },
                    }
                )
            )
    objects.append(
        ManifestWorkReplicaSet.model_validate(
            {
                "apiVersion": "work.open-cluster-management.io/v1alpha1",
                "kind": "ManifestWorkReplicaSet",
                "metadata": {"name": "web", "namespace": NS},
                "spec": {
                    "manifestWorkTemplate": {
                        "workload": {
                            "manifests": [
                                {
                                    "apiVersion": "v1",
                                    "kind": "ConfigMap",
                                    "metadata": {"name": "web", "namespace": "default"},
                                    "data": {"version": "1"},
                                }
                            ]
                        }
                    },
                    "placementRefs": [
                        {
                            "name": "web",
                            "rolloutStrategy": {
                                "type": "Progressive",
                                "progressive": {"maxConcurrency": concurrency},
                            },
                        }
                    ],
                },
            }
        )
    )
    return objects


def done(work: ManifestWork, at: datetime) -> ManifestWork:
    """``work`` as its agent reports it once applied and no longer progressing."""
    generation = work.metadata.generation or 1
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions = [
        {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "lastTransitionTime": stamp,
            "observedGeneration": generation,
        }
        for kind, status in (("Applied", "True"), ("Progressing", "False"), ("Available", "True"))
    ]
    body = work.to_dict()
    body["status"] = {"conditions": conditions}
    return ManifestWork.model_validate(body)


class _Hub:
    """A delivery controller on a directory sink, with the agent's reports fed in."""

    def __init__(self, folder: Path, size: dict[str, int]) -> None:
        self.clock = NOW
        self.sink = DirectorySink(OutLayout(folder), lambda: self.clock)
        self.delivery = DeliveryReconciler(Engine(), self.sink, now=lambda: self.clock)
        self.sink.publish = self.delivery.engine.observe
        objects = rollout_objects(size["clusters"], size["groups"], size["concurrency"])
        self.delivery.engine.observe(ObjectChange(None, o) for o in objects)
        asyncio.run(self.delivery.drain())

    def pending(self) -> list[ManifestWork]:
        """Works written that the agent has not reported on yet."""
        return [w for w in self.sink.store.works.values() if w.status is None]

    def report(self, works: list[ManifestWork]) -> None:
        self.clock += timedelta(seconds=1)
        self.delivery.engine.observe(ObjectChange(w, done(w, self.clock)) for w in works)
        for work in works:  # the agent wrote into the work's file: OUT holds it now
            self.sink.store.works[(work.namespace, work.name)] = done(work, self.clock)
        asyncio.run(self.delivery.drain())


def run_status_latency(size: dict[str, int], quantile: float = 0.5) -> tuple[float, float]:
    """R1: one work reported done -> the next work written (the window slides by one)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        hub = _Hub(Path(tmp), size)
        for _ in range(size["changes"]):
            before = len(hub.sink.store.works)
            work = hub.pending()[0]
            start = time.perf_counter()
            hub.report([work])
            times.append(time.perf_counter() - start)
            if len(hub.sink.store.works) != before + 1:
                raise AssertionError("a work done did not admit the next cluster")
    times.sort()
    at = min(len(times) - 1, round(quantile * (len(times) - 1)))
    return (statistics.median(times) if quantile == 0.5 else times[at]), 1


def run_full_rollout(size: dict[str, int]) -> tuple[float, float]:
    """R2: the whole rollout, the agent reporting every written work done at once."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        hub = _Hub(Path(tmp), size)
        rounds = 0
        while pending := hub.pending():
            hub.report(pending)
            rounds += 1
        seconds = time.perf_counter() - start
        mwrs = next(iter(hub.delivery.state.works.work_sets.values()))
        conditions = (
            {c.type: c.reason for c in (mwrs.status.conditions or [])} if mwrs.status else {}
        )
        if (
            len(hub.sink.store.works) != size["clusters"]
            or conditions.get("PlacementRolledOut") != "Complete"
        ):
            raise AssertionError(f"the rollout did not complete: {conditions}")
    return seconds, size["clusters"]
