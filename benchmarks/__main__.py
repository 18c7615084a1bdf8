"""``python -m benchmarks [--quick] [--repeat N] [--only S1,S2]``: run the scenarios, print a table.
(``--live``: the directory hub's controller end to end; ``--real-hub``: the Kubernetes
hub's controller and route --to-kubeconfig on a real API server; ``--route-watch``: route
--watch end to end; ``--scaling PNG``: scaling curves.)

Each run of a scenario is a fresh process (so peak memory is its own, and nothing one
run remembers serves the next), ``--repeat`` runs; the table shows the median.
``--quick`` runs every scenario at a small size (for CI: it keeps the suite from
rotting and asserts nothing about time).

A full run takes about 25 minutes (docs/benchmarks.md): each scenario's row is printed
as soon as it is measured, after a progress line (scenario i of n, time elapsed), and
the aligned table of every row comes at the end. Ctrl-C stops the run and still prints
the table of the scenarios measured so far. On a terminal, stderr also shows a bar with
the scenario running and its time.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from benchmarks.scenarios import SCENARIOS, Scenario, run_in_child
from clusterplace.cli._progress import progress
from clusterplace.outputs import format_table

HEADERS = ["SCENARIO", "WHAT", "SIZE", "MEDIAN", "RANGE", "THROUGHPUT", "PEAK RSS", "TARGET"]


Run = tuple[float, float] | tuple[float, float, float]


def run_fresh(name: str, size: dict[str, int]) -> tuple[Run, float]:
    """One run of scenario ``name`` in a fresh process: ((seconds, units[, baseline
    seconds]), peak KiB)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=run_in_child, args=(name, size, queue))
    proc.start()
    try:
        run, peak_kib = queue.get()
    except BaseException:  # interrupted (Ctrl-C): the run is abandoned
        proc.terminate()
        proc.join()
        raise
    proc.join()
    return run, peak_kib


def measure(
    scenario: Scenario, size: dict[str, int], repeat: int
) -> tuple[float, float, float, tuple[float, float], str]:
    """(median seconds, units per second, peak MiB, (fastest, slowest) seconds, how it
    compares with its baseline measured in the same runs, if it has one), each run in a
    fresh process."""
    results = [run_fresh(scenario.name, size) for _ in range(repeat)]
    times = [run[0] for run, _ in results]
    seconds = statistics.median(times)
    units = results[0][0][1]
    peak_kib = max(peak for _, peak in results)
    rate = units / seconds if seconds else float("inf")
    return seconds, rate, peak_kib / 1024, (min(times), max(times)), _versus(scenario, results)


def _versus(scenario: Scenario, results: list[tuple[Run, float]]) -> str:
    """``3.0x plain loop: 2.41x (2.30–2.55x; plain loop 21.3 s)``: the scenario's time
    over its baseline's, run by run (each run measures both, one after the other)."""
    if scenario.versus is None:
        return ""
    ratios = [run[0] / run[2] for run, _ in results if len(run) == 3 and run[2] > 0]
    baselines = [run[2] for run, _ in results if len(run) == 3]
    if not ratios:
        return ""
    goal = "" if scenario.target is None else f"{scenario.target:g}x "
    return (
        f"{goal}{scenario.versus}: {statistics.median(ratios):.2f}x "
        f"({min(ratios):.2f}–{max(ratios):.2f}x; {scenario.versus} "
        f"{statistics.median(baselines):.1f} s)"
    )


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
        "--real-hub",
        action="store_true",
        help="the Kubernetes hub's controller and route --to-kubeconfig on a real API server "
        "(KUBEBUILDER_ASSETS, CLUSTERPLACE_ENVTEST_CRDS; skipped without them)",
    )
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        metavar="N",
        help="with --real-hub: also N sharded replicas (2N shards) on the same fleet, "
        "beside the single controller (KS rows)",
    )
    parser.add_argument(
        "--route-watch", action="store_true", help="route --watch, end to end (W1-W3)"
    )
    args = parser.parse_args(argv)
    if args.scaling:
        return _scaling(Path(args.scaling), args.repeat or 3)
    if args.live:
        return _live(args.quick)
    if args.replicas < 1:
        parser.error("--replicas: give 1 or more")
    if args.real_hub:
        return _real_hub(args.quick, args.replicas)
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
    rows: list[list[str]] = []
    start = time.monotonic()
    code = 0
    try:
        with progress("benchmarks", total=len(chosen)) as bar:
            for i, scenario in enumerate(chosen, 1):
                elapsed = _clock(time.monotonic() - start)
                print(f"# scenario {i} of {len(chosen)}: {scenario.name} ({elapsed} elapsed)")
                sys.stdout.flush()
                bar.phase(f"{scenario.name} (scenario {i} of {len(chosen)})", len(chosen))
                bar.update(i - 1)
                row = _row(scenario, args.quick, repeat)
                rows.append(row)
                print("  ".join(cell for cell in row if cell))
                sys.stdout.flush()
    except KeyboardInterrupt:
        print(f"# interrupted: {len(rows)} of {len(chosen)} scenarios measured")
        code = 130
    done = f"{len(rows)} scenario{'' if len(rows) == 1 else 's'}"
    print(f"# {done} in {_clock(time.monotonic() - start)}")
    print(format_table(HEADERS, rows), end="")
    return code


def _row(scenario: Scenario, quick: bool, repeat: int) -> list[str]:
    """One scenario measured, as a row of the table."""
    size = scenario.quick if quick else scenario.sizes
    seconds, rate, peak, (fastest, slowest), versus = measure(scenario, size, repeat)
    target = "" if scenario.target is None or quick else f"{scenario.target:g} s"
    if scenario.versus is not None:
        target = versus
    return [
        scenario.name,
        scenario.description,
        " ".join(f"{k}={v}" for k, v in size.items()),
        f"{seconds:.4f} s",
        f"{fastest:.4f}–{slowest:.4f} s",
        f"{rate:,.0f} {scenario.unit}/s",
        f"{peak:,.0f} MiB",
        target,
    ]


def _clock(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _live(quick: bool) -> int:
    from benchmarks.live_hub import live_rows

    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {mp.cpu_count()} cores"
    )
    headers = ["SCENARIO", "WHAT", "SIZE", "RESULT", "TARGET / RATE"]
    print(format_table(headers, live_rows(quick)), end="")
    return 0


def _real_hub(quick: bool, replicas: int = 1) -> int:
    from benchmarks.real_hub import NotConfigured, machine, real_hub_rows

    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"# {python}; {machine()}; {'quick' if quick else 'full'} sizes")
    sys.stdout.flush()
    try:
        rows = real_hub_rows(quick, replicas)
    except NotConfigured as err:
        print(f"python -m benchmarks --real-hub: {err}", file=sys.stderr)
        return 1
    print(f"# done; load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    headers = ["SCENARIO", "WHAT", "SIZE", "RESULT", "NOTE"]
    print(format_table(headers, rows), end="")
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
