"""Parity with OCM's own scheduler on its benchmark fleet (performance-anchors.md, S1).

``tests/data/ocm_s1_first200_decisions.txt`` holds upstream's decisions for the first
200 placements (of its 10,000-placement run, recorded with OCM's Go scheduler), one line
per placement: ``benchmark-<k> <cluster>,<cluster>,...`` in PlacementDecision order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from benchmarks.fleets import s1_fleet

from clusterplace.api import Fleet
from clusterplace.scheduling import schedule

DATA = Path(__file__).parents[1] / "data" / "ocm_s1_first200_decisions.txt"


def test_first_200_placements_decide_exactly_as_upstream() -> None:
    expected = [line.split(" ")[1] for line in DATA.read_text().splitlines()]
    result = schedule(Fleet.of(s1_fleet(1000, len(expected))), now=datetime(2026, 1, 1, tzinfo=UTC))
    got = [
        ",".join(d.cluster_name for pd in r.decisions for d in pd.status.decisions)
        for r in result.placements
    ]
    assert got == expected
