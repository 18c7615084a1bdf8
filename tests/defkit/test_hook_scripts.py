"""Hook scripts: their whole process group ends with them, output is bounded, and
timeouts are Go durations."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.defkit.hooks import HookError, _run_script
from clusterplace.defkit.script_runner import KEEP_BYTES, run_script
from clusterplace.durations import DurationError, parse_go_duration


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose.
    with open(f"/proc/{pid}/stat") as stat:  # noqa: PTH123
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_a_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    with pytest.raises(HookError, match=r"timed out after 0.5s"):
        _run_script(f"sleep 60 & echo $! > {pidfile}; wait", tmp_path, 0.5)
    pid = int(pidfile.read_text())
    time.sleep(0.1)
    assert not _alive(pid)


def test_background_children_do_not_outlive_the_hook(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    start = time.monotonic()
    result = run_script(f"sleep 120 & echo $! > {pidfile}; echo done", tmp_path, 600)
    assert result.code == 0 and result.stdout == "done\n"
    # Not a speed check: the run returned long before the background sleep would end.
    assert time.monotonic() - start < 100
    assert not _alive(int(pidfile.read_text()))


def test_sigterm_to_clusterplace_kills_the_hook_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    code = (
        "from pathlib import Path\n"
        "from clusterplace.defkit.script_runner import run_script\n"
        f"run_script('sleep 60 & echo $! > {pidfile}; wait', Path('{tmp_path}'), 60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 128 + signal.SIGTERM
    time.sleep(0.1)
    assert not _alive(int(pidfile.read_text()))


def test_output_is_bounded_and_decoded_leniently(tmp_path: Path) -> None:
    big = "head -c 50000000 /dev/zero | tr '\\0' 'x'; printf '\\377 end\\n'"
    result = run_script(big, tmp_path, 60)
    assert result.code == 0
    assert len(result.stdout.encode()) <= KEEP_BYTES + 8
    assert result.stdout.endswith("\ufffd end\n")


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("exit 3", "exit code 3: no output"),
        ("echo oops >&2; exit 4", "exit code 4: oops"),
        ("echo out; exit 5", "exit code 5: out"),
    ],
)
def test_failures_say_something(tmp_path: Path, script: str, message: str) -> None:
    with pytest.raises(HookError) as found:
        _run_script(script, tmp_path, 10)
    assert str(found.value) == message


@pytest.mark.parametrize(
    ("text", "seconds"), [("30s", 30), ("1m30s", 90), ("1.5h", 5400), ("300ms", 0.3), ("0", 0)]
)
def test_go_durations(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nan", 'invalid duration "nan"'),
        ("5", 'missing unit in duration "5"'),
        ("1x", 'unknown unit "x" in duration "1x"'),
        ("", 'invalid duration ""'),
    ],
)
def test_bad_go_durations(text: str, message: str) -> None:
    with pytest.raises(DurationError, match=message):
        parse_go_duration(text)


_units = st.sampled_from(["ns", "us", "ms", "s", "m", "h"])
_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


@given(st.lists(st.tuples(st.integers(0, 10_000), _units), min_size=1, max_size=4))
def test_durations_sum_their_parts(parts: list[tuple[int, str]]) -> None:
    text = "".join(f"{n}{u}" for n, u in parts)
    assert parse_go_duration(text) == pytest.approx(sum(n * _scale[u] for n, u in parts))
    assert parse_go_duration("-" + text) == pytest.approx(-parse_go_duration(text))


@given(st.text(max_size=12))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    with contextlib.suppress(DurationError):
        parse_go_duration(text)
