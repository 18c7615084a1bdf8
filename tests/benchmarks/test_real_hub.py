"""``python -m benchmarks --real-hub``: without a real API server its rows say skipped and
name the variables to set (an error only where the run is told a server is required),
and what it counts from the server's audit log and the controller's reports."""

from __future__ import annotations

import json
from pathlib import Path

import benchmarks.__main__ as runner
import pytest
from benchmarks.real_hub import AuditWrites, synced

from tests.support.envtest import ASSETS_VAR, CRDS_VAR, REQUIRE_VAR


def test_without_a_server_the_rows_are_skipped_naming_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in (ASSETS_VAR, CRDS_VAR, REQUIRE_VAR):
        monkeypatch.delenv(var, raising=False)
    assert runner.main(["--real-hub", "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "cores (" in lines[0] and lines[0].endswith("quick sizes")
    header = next(i for i, line in enumerate(lines) if line.startswith("SCENARIO"))
    (row,) = lines[header + 1 :]
    assert row.startswith("KR*") and "skipped" in row
    assert ASSETS_VAR in row and CRDS_VAR in row


def test_a_required_server_that_is_missing_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ASSETS_VAR, raising=False)
    monkeypatch.setenv(CRDS_VAR, "/nowhere")
    monkeypatch.setenv(REQUIRE_VAR, "1")
    assert runner.main(["--real-hub", "--quick"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"python -m benchmarks --real-hub: {REQUIRE_VAR}=1 but ")
    assert ASSETS_VAR in err
    assert "Traceback" not in err


def _entry(verb: str, agent: str) -> str:
    return json.dumps({"verb": verb, "userAgent": agent, "requestURI": "/x"}) + "\n"


def test_audit_writes_count_the_controllers_writes_since_the_last_count(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    log.write_text(_entry("create", "clusterplace/1.0"))
    writes = AuditWrites(log)  # what was there before is not counted
    with log.open("a") as out:
        out.write(_entry("create", "clusterplace/1.0 (linux)"))
        out.write(_entry("patch", "clusterplace/1.0"))
        out.write(_entry("patch", "clusterplace/1.0"))
        out.write(_entry("watch", "clusterplace/1.0"))  # a read
        out.write(_entry("patch", "kubectl/v1.36"))  # someone else's
        out.write(_entry("delete", "clusterplace/1.0")[:20])  # still being written
    assert writes.count() == {"create": 1, "patch": 2}
    with log.open("a") as out:
        out.write(_entry("delete", "clusterplace/1.0")[20:])
    assert writes.count() == {"delete": 1}
    assert writes.count() == {}


def test_the_controllers_reports_give_placements_and_syncs() -> None:
    lines = [
        (1.0, "controller: synced 12 placements (20 syncs): 15 writes, 3 events"),
        (1.1, "controller: watching"),
        (1.2, "controller: synced 5 placements: 4 writes, 0 events"),
    ]
    assert synced(lines) == (17, 25)
