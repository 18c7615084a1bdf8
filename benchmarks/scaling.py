"""Scaling curves: time as placements grow (S1 shape) and as clusters grow (S2 shape).

``python -m benchmarks --scaling docs/scaling.png`` prints both series as tables and
plots them side by side (matplotlib, a development dependency).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path

from benchmarks.scenarios import run_s1, run_s2

PLACEMENTS = (1000, 2000, 5000, 10000)
CLUSTERS = (10000, 25000, 50000, 100000)


def _median(
    run: Callable[[dict[str, int]], tuple[float, float]], size: dict[str, int], repeat: int
) -> float:
    return statistics.median(run(size)[0] for _ in range(repeat))


def measure(repeat: int) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    by_placements = [
        (p, _median(run_s1, {"clusters": 1000, "placements": p}, repeat)) for p in PLACEMENTS
    ]
    by_clusters = [(c, _median(run_s2, {"clusters": c}, repeat)) for c in CLUSTERS]
    return by_placements, by_clusters


def plot(
    by_placements: list[tuple[int, float]], by_clusters: list[tuple[int, float]], out: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot([p for p, _ in by_placements], [t for _, t in by_placements], marker="o")
    left.set_title("S1: 1,000 clusters, schedule N placements")
    left.set_xlabel("placements")
    left.set_ylabel("seconds")
    left.grid(True, alpha=0.3)
    right.plot(
        [c for c, _ in by_clusters], [t * 1000 for _, t in by_clusters], marker="o", color="C1"
    )
    right.set_title("S2: one placement over N clusters")
    right.set_xlabel("clusters")
    right.set_ylabel("milliseconds")
    right.grid(True, alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
