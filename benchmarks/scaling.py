"""Scaling curves: time as placements grow (S1 shape) and as clusters grow (S2 shape).

``python -m benchmarks --scaling docs/scaling.png`` prints both series as tables and
plots them side by side (matplotlib, a development dependency).
"""

from __future__ import annotations

import statistics
from pathlib import Path

PLACEMENTS = (1000, 2000, 5000, 10000)
CLUSTERS = (10000, 25000, 50000, 100000)


def _median(name: str, size: dict[str, int], repeat: int) -> float:
    from benchmarks.__main__ import run_fresh

    return statistics.median(run_fresh(name, size)[0][0] for _ in range(repeat))


def measure(repeat: int) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """S1 over growing placements and S2 (warm indexes, other placement) over growing
    fleets: the scenarios themselves, each run in a fresh process."""
    by_placements = [
        (p, _median("S1", {"clusters": 1000, "placements": p}, repeat)) for p in PLACEMENTS
    ]
    by_clusters = [(c, _median("S2", {"clusters": c}, repeat)) for c in CLUSTERS]
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
