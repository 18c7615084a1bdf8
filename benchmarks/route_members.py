"""``route --to-kubeconfig`` against API-server emulators as member clusters
(``python -m benchmarks.route_members [MEMBERS] [OBJECTS] [RELABELS]``).

MEMBERS emulators (tests/support/members.py), one kubeconfig with a context per
cluster; OBJECTS ConfigMaps, half selecting ``region=eu``, half ``region=us``; the
clusters alternate between the regions, so each holds OBJECTS/2 copies. Measured:

- R1 once, cold: a one-shot ``route --to-kubeconfig`` process applying every copy;
- R2 once, again: the same run with every copy in place (all unchanged);
- R3 watch cold start: ``route --watch --to-kubeconfig`` from process start to every
  copy in every member;
- R4 relabel: a cluster's file rewritten to move it to the other region, to its copies
  in its API server being exactly the new region's (OBJECTS/2 deleted, OBJECTS/2
  applied), p50 and p99 over RELABELS relabels.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import yaml
from tests.support.cli import command
from tests.support.members import members

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"


def _wait(check: Callable[[], bool], timeout: float = 300.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return time.monotonic()
        time.sleep(0.01)
    raise AssertionError("timed out")


def _objects(count: int) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        region = "eu" if i % 2 else "us"
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": f"cm-{i}",
                    "namespace": "bench",
                    "annotations": {
                        ANNOTATION: json.dumps(
                            [{"key": "region", "operator": "In", "values": [region]}]
                        )
                    },
                },
                "data": {"i": str(i), "region": region},
            }
        )
    return out


def _fleet(path: Path, regions: dict[str, str]) -> None:
    docs = [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": n, "labels": {"region": r}},
            "spec": {},
        }
        for n, r in regions.items()
    ]
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump_all(docs))
    tmp.replace(path)


class Holder(Protocol):
    """A member cluster, as the benchmark reads it: the names of the objects it holds."""

    def names(self, plural: str) -> set[str]: ...


# Members started, and a kubeconfig with a context per member named after it.
Servers = Callable[[list[str], Path], AbstractContextManager[tuple[Mapping[str, Holder], Path]]]


# The route's set: its parent ConfigMap (in namespace default) is not one of the copies.
APPLYSET = "bench-route"


def _names(member: Holder) -> set[str]:
    return member.names("configmaps") - {APPLYSET}


def run(
    member_count: int, object_count: int, relabels: int, servers: Servers = members
) -> dict[str, str]:
    """R1-R4 on ``member_count`` members that ``servers`` starts (API-server emulators
    unless told otherwise)."""
    folder = Path(tempfile.mkdtemp(prefix="route-members-"))
    names = [f"m{i}" for i in range(member_count)]
    regions = {n: ("eu" if i % 2 else "us") for i, n in enumerate(names)}
    objects = _objects(object_count)
    want = {
        r: {o["metadata"]["name"] for o in objects if o["data"]["region"] == r}
        for r in ("eu", "us")
    }
    manifests = folder / "manifests"
    manifests.mkdir()
    for obj in objects:
        (manifests / f"{obj['metadata']['name']}.yaml").write_text(yaml.safe_dump(obj))
    fleet = folder / "fleet.yaml"
    _fleet(fleet, regions)
    env = {**os.environ, "NO_COLOR": "1"}
    results: dict[str, str] = {}
    with servers(names, folder) as (started, kubeconfig):
        args = ["-f", str(manifests), "--clusters", str(fleet), "--to-kubeconfig", str(kubeconfig)]
        args += ["--applyset", APPLYSET]
        for label in ("R1-once-cold", "R2-once-unchanged"):
            start = time.monotonic()
            done = subprocess.run(
                [*command(), "route", *args], capture_output=True, text=True, env=env, check=False
            )
            took = time.monotonic() - start
            assert done.returncode == 0, done.stderr
            results[label] = f"{took:.2f} s"
        # The watch starts on members already holding every copy from R1/R2: clear them
        # by moving every cluster to a region no object selects, once.
        _fleet(fleet, dict.fromkeys(names, "none"))
        assert (
            subprocess.run(
                [*command(), "route", *args], capture_output=True, env=env, check=False
            ).returncode
            == 0
        )
        _fleet(fleet, regions)
        assert all(not _names(m) for m in started.values())
        log = (folder / "watch.log").open("w")
        start = time.monotonic()
        proc = subprocess.Popen(
            [*command(), "route", "--watch", *args],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
        )
        try:
            _wait(lambda: all(_names(started[n]) == want[regions[n]] for n in names))
            results["R3-watch-cold-start"] = f"{time.monotonic() - start:.2f} s"
            time.sleep(1.0)
            latencies = []
            for k in range(relabels):
                name = names[k % member_count]
                regions[name] = "eu" if regions[name] == "us" else "us"
                start = time.monotonic()
                _fleet(fleet, regions)
                target = want[regions[name]]
                done_at = _wait(lambda n=name, t=target: _names(started[n]) == t)  # type: ignore[misc]
                latencies.append((done_at - start) * 1000)
                time.sleep(0.2)
            latencies.sort()
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
            results["R4-relabel-p50"] = f"{statistics.median(latencies):.0f} ms"
            results["R4-relabel-p99"] = f"{p99:.0f} ms"
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
            log.close()
    return results


def main() -> int:
    member_count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    object_count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    relabels = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    for key, value in run(member_count, object_count, relabels).items():
        print(f"{key}\t{value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
