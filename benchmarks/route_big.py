"""``route`` of 1,000 objects to 1,000 clusters into an output folder, beside the floor:
a plain Python loop writing the very same files (same paths, same bytes, no
temporaries, no journal, no syncing), both in the same run, one after the other.

``route-1000x1000`` times ``clusterplace route -q`` as its own process (start to exit:
reading the inputs, routing, dividing replicas, rendering every copy, the crash-safe
transaction and the index) into an empty folder; its row's target column says how it
compares with the plain loop, measured in the same fresh process right after it.
``route-1000x1000-rerun`` times a second run over the folder the first left (nothing
changed: nothing may be written), ``route-1000x1000-one`` a run after one object
changed (only that object's copies may be rewritten). The runs check both, untimed.

The inputs: clusters in 10 regions, 3 environments, 2 tiers; one object in twenty goes
to every cluster, the others select one or two regions (some also an environment, or
not a tier); one in ten is a Deployment whose replicas are divided among its clusters.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clusterplace.outputs.dumpers import dump_yaml_stream

__all__ = [
    "plain_loop",
    "route_inputs",
    "run_route_big",
    "run_route_big_one",
    "run_route_big_rerun",
]

REGIONS = 10
ENVIRONMENTS = ("production", "staging", "development")
ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
PREFERENCES = "federation.kubernetes.io/deployment-preferences"
NOW = "2026-11-22T00:00:00Z"


def _cluster(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": f"cluster{i:04d}",
            "labels": {
                "region": f"r{(i * 7) % REGIONS:02d}",
                "environment": ENVIRONMENTS[i % 3],
                "tier": ("gold", "silver")[(i // 3) % 2],
            },
        },
        "spec": {"hubAcceptsClient": True},
    }


def _selector(i: int) -> list[dict[str, Any]]:
    regions = [f"r{(i + k) % REGIONS:02d}" for k in (0, 3, 6)][: 1 + i % 3]
    requirements: list[dict[str, Any]] = [{"key": "region", "operator": "In", "values": regions}]
    if i % 3 == 1:
        requirements.append({"key": "environment", "operator": "In", "values": ["production"]})
    elif i % 7 == 2:
        requirements.append({"key": "tier", "operator": "NotIn", "values": ["silver"]})
    return requirements


def _object(i: int, revision: int = 1) -> dict[str, Any]:
    annotations: dict[str, str] = {}
    if i % 20 != 0:
        annotations[ANNOTATION] = json.dumps(_selector(i))
    meta: dict[str, Any] = {
        "name": f"app{i:04d}",
        "namespace": f"team{i % 8}",
        "labels": {"app": f"app{i:04d}", "team": f"team{i % 8}"},
    }
    if annotations:
        meta["annotations"] = annotations
    if i % 10 == 5:
        annotations[PREFERENCES] = json.dumps(
            {"rebalance": True, "clusters": {"*": {"weight": 1, "maxReplicas": 3}}}
        )
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta,
            "spec": {
                "replicas": 60,
                "selector": {"matchLabels": {"app": f"app{i:04d}"}},
                "template": {
                    "metadata": {"labels": {"app": f"app{i:04d}"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "app",
                                "image": f"registry.example/app:{revision}",
                                "ports": [{"containerPort": 8080}],
                                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                            }
                        ]
                    },
                },
            },
        }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta,
        "data": {
            "setting": f"value {i}",
            "mode": "production",
            "revision": str(revision),
            "endpoint": f"https://app{i:04d}.team{i % 8}.example:8443/api",
        },
    }


def route_inputs(root: Path, size: dict[str, int], changed: int | None = None) -> list[str]:
    """Write the fleet and the manifests (object ``changed`` at its second revision)
    under ``root``; the arguments of ``route`` that read them."""
    fleet, manifests = root / "fleet.yaml", root / "manifests.yaml"
    fleet.write_text(dump_yaml_stream([_cluster(i) for i in range(size["clusters"])]))
    objects = [_object(i, 2 if i == changed else 1) for i in range(size["objects"])]
    manifests.write_text(dump_yaml_stream(objects))
    return ["route", "-f", str(manifests), "--clusters", str(fleet), "--now", NOW]


def _route(args: list[str], out: Path) -> float:
    """Wall seconds of one ``clusterplace route -q`` process."""
    command = [str(Path(sys.executable).parent / "clusterplace"), *args, "-q"]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--output-dir", str(out)], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"route failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


def _files(folder: Path) -> Iterator[tuple[str, bytes]]:
    for cluster in sorted(folder.iterdir()):
        if cluster.name.startswith("."):
            continue
        for path in sorted(cluster.iterdir()):
            yield f"{cluster.name}/{path.name}", path.read_bytes()


def plain_loop(files: dict[str, bytes], out: Path) -> float:
    """Seconds a plain Python loop takes to write ``files`` (relpath -> bytes) under
    ``out``: a folder per cluster, then open, write and close each file."""
    start = time.perf_counter()
    out.mkdir()
    made: set[str] = set()
    for rel, data in files.items():
        cluster = rel.partition("/")[0]
        if cluster not in made:
            (out / cluster).mkdir()
            made.add(cluster)
        with open(out / rel, "wb") as handle:  # noqa: PTH123 (the plain way)
            handle.write(data)
    return time.perf_counter() - start


def _first(root: Path, size: dict[str, int]) -> tuple[list[str], float, float, dict[str, bytes]]:
    """Route into an empty folder, then the plain loop writing the files it wrote."""
    args = route_inputs(root, size)
    seconds = _route(args, root / "out")
    files = dict(_files(root / "out"))
    plain = plain_loop(files, root / "plain")
    shutil.rmtree(root / "plain")
    return args, seconds, plain, files


def run_route_big(size: dict[str, int]) -> tuple[float, float, float]:
    """A first run into an empty folder, and the plain loop's time in the same run."""
    with tempfile.TemporaryDirectory(prefix="clusterplace-bench-") as tmp:
        _, seconds, plain, files = _first(Path(tmp), size)
        return seconds, len(files), plain


def _mtimes(folder: Path) -> dict[str, int]:
    return {
        f"{cluster.name}/{path.name}": path.stat().st_mtime_ns
        for cluster in folder.iterdir()
        if not cluster.name.startswith(".")
        for path in cluster.iterdir()
    }


def run_route_big_rerun(size: dict[str, int]) -> tuple[float, float]:
    """A second run with nothing changed: it must write no file."""
    with tempfile.TemporaryDirectory(prefix="clusterplace-bench-") as tmp:
        args, _, _, files = _first(Path(tmp), size)
        out = Path(tmp) / "out"
        before = _mtimes(out) | {".": out.stat().st_mtime_ns}
        seconds = _route(args, out)
        if _mtimes(out) | {".": out.stat().st_mtime_ns} != before:
            raise RuntimeError("a re-run with nothing changed wrote files")
        return seconds, len(files)


def run_route_big_one(size: dict[str, int]) -> tuple[float, float]:
    """A run after one Deployment changed: only its copies may be rewritten."""
    with tempfile.TemporaryDirectory(prefix="clusterplace-bench-") as tmp:
        root = Path(tmp)
        _, _, _, files = _first(root, size)
        out = root / "out"
        before = _mtimes(out)
        seconds = _route(route_inputs(root, size, changed=5), out)
        after = _mtimes(out)
        rewritten = {rel for rel in after if after[rel] != before.get(rel)}
        own = {rel for rel in after if rel.endswith("_team5_app0005.yaml")}
        if rewritten != own or not own:
            raise RuntimeError(f"{len(rewritten)} files rewritten, {len(own)} expected")
        return seconds, len(files)
