"""``-o`` templates are bounded, through the real process: deep or long templates and
endless template files are usage errors (exit 2) that name the limit, never a traceback
or a process that fills memory; an empty template is a usage error, as in kubectl; and
nested ranges print as they go, in flat memory."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from clusterplace.outputs.formats import MAX_TEMPLATE_FILE_BYTES
from clusterplace.outputs.jsonpath import MAX_PATH_STEPS, MAX_RANGE_DEPTH, MAX_TEMPLATE_CHARS
from tests.support.cli import CLI_ENV, Result, command
from tests.support.paths import FLEET, ROOT
from tests.support.waiting import wait_for

RunProcess = Callable[..., Result]
GET = ["get", "clusters", "-f", str(FLEET)]
LONG_PATH = ".a" * 20_000


def _usage_error(result: Result, *needles: str) -> None:
    assert result.code == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_a_20000_step_path_is_refused_naming_the_limit(run_process: RunProcess) -> None:
    result = run_process(*GET, "-o", "jsonpath={" + LONG_PATH + "}")
    _usage_error(result, f"more than {MAX_PATH_STEPS} steps")
    assert len(result.stderr) < 2_000  # the path is quoted shortened, not whole


def test_a_20000_step_custom_column_is_refused_naming_the_limit(
    run_process: RunProcess,
) -> None:
    result = run_process(*GET, "-o", "custom-columns=A:" + LONG_PATH)
    _usage_error(result, f"more than {MAX_PATH_STEPS} steps")


def test_deeply_nested_ranges_are_refused_naming_the_limit(run_process: RunProcess) -> None:
    depth = MAX_RANGE_DEPTH + 1
    result = run_process(*GET, "-o", "jsonpath=" + "{range a}" * depth + "{end}" * depth)
    _usage_error(result, f"nested more than {MAX_RANGE_DEPTH} deep")
    # 5,000 of them are over the size limit before they are parsed at all.
    many = "{range a}" * 5_000 + "{end}" * 5_000
    result = run_process(*GET, "-o", "jsonpath=" + many)
    _usage_error(result, f"more than the limit of {MAX_TEMPLATE_CHARS}")


def test_ranges_at_the_limit_still_work(run_process: RunProcess) -> None:
    depth = MAX_RANGE_DEPTH
    template = "{range .items[0]}" + "{range @}" * (depth - 1) + "{.metadata.name}"
    result = run_process(*GET, "-o", "jsonpath=" + template + "{end}" * depth)
    assert result.code == 0, result.stderr
    assert result.stdout == "aws-prod-euw1"


def test_a_long_template_file_is_refused_naming_the_limit(
    run_process: RunProcess, tmp_path: Path
) -> None:
    template = tmp_path / "long.jsonpath"
    template.write_text("{.kind}" * (MAX_TEMPLATE_CHARS // 7 + 1))
    result = run_process(*GET, "-o", f"jsonpath-file={template}")
    _usage_error(result, f"more than the limit of {MAX_TEMPLATE_CHARS}")
    huge = tmp_path / "huge.jsonpath"
    huge.write_bytes(b"x" * (MAX_TEMPLATE_FILE_BYTES + 1))
    for option in ("jsonpath-file", "custom-columns-file"):
        result = run_process(*GET, "-o", f"{option}={huge}")
        _usage_error(result, f"limit of {MAX_TEMPLATE_FILE_BYTES} bytes", str(huge))


@pytest.mark.parametrize("option", ["jsonpath-file", "custom-columns-file"])
def test_devices_and_pipes_are_not_template_files(
    run_process: RunProcess, tmp_path: Path, option: str
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        result = run_process(*GET, "-o", f"{option}={path}", timeout=60)
        _usage_error(result, f"{option} {path}: ", "not a regular file")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # kubectl's own words (kubectl get -o jsonpath= exits 1 with them).
        ("jsonpath=", "template format specified but no template given"),
        ("jsonpath-file=", "template format specified but no template given"),
        ("custom-columns=", "custom-columns format specified but no custom columns given"),
    ],
)
def test_an_empty_template_is_a_usage_error(
    run_process: RunProcess, value: str, message: str
) -> None:
    _usage_error(run_process(*GET, "-o", value), message)


def test_an_empty_template_file_is_a_usage_error(run_process: RunProcess, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonpath"
    empty.write_text("\n")
    _usage_error(run_process(*GET, "-o", f"jsonpath-file={empty}"), "is empty")


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for process {pid}")


def test_nested_ranges_print_as_they_go_in_flat_memory() -> None:
    """Seven ranges over the example fleet's clusters make 12**7 lines: the first of
    them arrive at once, while memory stays where it started."""
    ranges = 7
    template = "{range $.items[*]}" * ranges + '{.metadata.name}{"\\n"}' + "{end}" * ranges
    names = subprocess.run(
        [*command(), *GET, "-o", "name"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    proc = subprocess.Popen(
        [*command(), *GET, "-o", "jsonpath=" + template],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, **CLI_ENV},
    )
    stdout = proc.stdout
    assert stdout is not None
    wanted = 4 * 1024 * 1024  # 64 times the pieces the template writes in
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(stdout.read(wanted)), daemon=True)
    try:
        reader.start()
        wait_for(lambda: not reader.is_alive(), timeout=120, what="4 MiB of output")
        rss = _rss_kib(proc.pid)
        assert proc.poll() is None  # still printing: 12**7 lines are far more than 4 MiB
    finally:
        proc.kill()
        proc.wait()
        stdout.close()
    lines = got[0].decode().split("\n")
    assert lines[: len(names)] == [n.rpartition("/")[2] for n in names]
    assert rss < 300 * 1024, f"{rss} KiB resident after 4 MiB of output"
