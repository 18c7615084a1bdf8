"""``python -m benchmarks [--quick] [--repeat N] [--only S1,S2]``: run the scenarios, print a table.
(``--live``: the directory hub's controller end to end; ``--route-watch``: route --watch
end to end; ``--scaling PNG``: scaling curves.)

Each run of a scenario is a fresh process (so peak memory is its own, and nothing one
run remembers serves the next), ``--repeat`` runs; the table shows the median.
``--quick`` runs every scenario at a small size (for CI: it keeps the suite from
rotting and asserts nothing about time).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import platform
import statistics
import sys
from pathlib import Path

from benchmarks.scenarios import SCENARIOS, Scenario, run_in_child
from clusterplace.outputs import format_table


def run_fresh(name: str, size: dict[str, int]) -> tuple[tuple[float, float], float]:
    """One run of scenario ``name`` in a fresh process: ((seconds, units), peak KiB)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=run_in_child, args=(name, size, queue))
    proc.start()
    run, peak_kib = queue.get()
    proc.join()
    return run, peak_kib


def measure(
    scenario: Scenario, size: dict[str, int], repeat: int
) -> tuple[float, float, float, tuple[float, float]]:
    """(median seconds, units per second, peak MiB, (fastest, slowest) seconds), each
    run in a fresh process."""
    results = [run_fresh(scenario.name, size) for _ in range(repeat)]
    times = [run[0] for run, _ in results]
    seconds = statistics.median(times)
    units = results[0][0][1]
    peak_kib = max(peak for _, peak in results)
    rate = units / seconds if seconds else float("inf")
    return seconds, rate, peak_kib / 1024, (min(times), max(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI")
    parser.add_argument("--repeat", type=int, default=None, help="runs per scenario (median)")
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--scaling", metavar="PNG", help="measure scaling curves and plot them")
    parser.add_argument(
        "--live", action="store_true", help="the directory hub's controller, end to end"
    )
    parser.add_argument(
        "--route-watch", action="store_true", help="route --watch, end to end (W1-W3)"
    )
    args = parser.parse_args(argv)
    if args.scaling:
        return _scaling(Path(args.scaling), args.repeat or 3)
    if args.live:
        return _live(args.quick)
    if args.route_watch:
        return _route_watch(args.quick)
    repeat = args.repeat or (1 if args.quick else 5)
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only.split(",")]
    python = f"{platform.python_implementation()} {platform.python_version()}"
    sizes = "quick" if args.quick else "full"
    print(
        f"# {python} on {platform.machine()}, {mp.cpu_count()} cores; "
        f"{sizes} sizes, median of {repeat}"
    )
    rows = []
    for scenario in chosen:
        size = scenario.quick if args.quick else scenario.sizes
        seconds, rate, peak, (fastest, slowest) = measure(scenario, size, repeat)
        target = "" if scenario.target is None or args.quick else f"{scenario.target:g} s"
        rows.append(
            [
                scenario.name,
                scenario.description,
                " ".join(f"{k}={v}" for k, v in size.items()),
                f"{seconds:.4f} s",
                f"{fastest:.4f}–{slowest:.4f} s",
                f"{rate:,.0f} {scenario.unit}/s",
                f"{peak:,.0f} MiB",
                target,
            ]
        )
        sys.stdout.flush()
    print(
        format_table(
            ["SCENARIO", "WHAT", "SIZE", "MEDIAN", "RANGE", "THROUGHPUT", "PEAK RSS", "TARGET"],
            rows,
        ),
        end="",
    )
    return 0


def _live(quick: bool) -> int:
    from benchmarks.live_hub import live_rows

    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {mp.cpu_count()} cores"
    )
    headers = ["SCENARIO", "WHAT", "SIZE", "RESULT", "TARGET / RATE"]
    print(format_table(headers, live_rows(quick)), end="")
    return 0


def _route_watch(quick: bool) -> int:
    from benchmarks.route_watch import watch_rows

    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {mp.cpu_count()} cores"
    )
    headers = ["SCENARIO", "WHAT", "SIZE", "RESULT", "NOTE"]
    print(format_table(headers, watch_rows(quick)), end="")
    return 0


def _scaling(out: Path, repeat: int) -> int:
    from benchmarks.scaling import measure, plot

    by_placements, by_clusters = measure(repeat)
    print(
        format_table(
            ["PLACEMENTS (1,000 CLUSTERS)", "S1 MEDIAN"],
            [[f"{p:,}", f"{t:.3f} s"] for p, t in by_placements],
        ),
        end="",
    )
    print(
        format_table(
            ["CLUSTERS (1 PLACEMENT)", "S2 MEDIAN"],
            [[f"{c:,}", f"{t * 1000:.1f} ms"] for c, t in by_clusters],
        ),
        end="",
    )
    plot(by_placements, by_clusters, out)
    print(f"plotted to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
