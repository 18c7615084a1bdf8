"""``python -m benchmarks`` prints each scenario's row as it is measured, after a progress
line, then the aligned table; an interrupted run still prints what it measured."""

from __future__ import annotations

import benchmarks.__main__ as runner
import pytest
from benchmarks.scenarios import Scenario

Measured = tuple[float, float, float, tuple[float, float], str]


def fake_measure(interrupt_at: str | None = None):
    def measure(scenario: Scenario, size: dict[str, int], repeat: int) -> Measured:
        if scenario.name == interrupt_at:
            raise KeyboardInterrupt
        return 0.25, 400.0, 80.0, (0.2, 0.3), ""

    return measure


def test_each_row_is_printed_as_it_is_measured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "measure", fake_measure())
    assert runner.main(["--quick", "--only", "S4,S5-index"]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[0].endswith("quick sizes, median of 1")
    assert lines[1] == "# scenario 1 of 2: S4 (0:00 elapsed)"
    assert lines[2].startswith("S4  load ManagedCluster YAML into typed objects  clusters=200  ")
    assert "0.2500 s  0.2000–0.3000 s  400 clusters/s  80 MiB" in lines[2]
    assert lines[3] == "# scenario 2 of 2: S5-index (0:00 elapsed)"
    assert lines[4].startswith("S5-index  ")
    assert lines[5] == "# 2 scenarios in 0:00"
    assert lines[6].split()[:3] == ["SCENARIO", "WHAT", "SIZE"]
    assert [line.split()[0] for line in lines[7:]] == ["S4", "S5-index"]
    assert out.err == ""  # no bar: stderr is not a terminal


def test_an_interrupted_run_prints_the_rows_it_measured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "measure", fake_measure(interrupt_at="S5-index"))
    assert runner.main(["--quick", "--only", "S4,S5-index,S5-matches"]) == 130
    lines = capsys.readouterr().out.splitlines()
    assert "# interrupted: 1 of 3 scenarios measured" in lines
    table = lines[lines.index("# 1 scenario in 0:00") + 1 :]
    assert table[0].split()[0] == "SCENARIO"
    assert [line.split()[0] for line in table[1:]] == ["S4"]
