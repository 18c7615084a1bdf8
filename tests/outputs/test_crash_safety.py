"""Output folders survive crashes, full disks, read-only file systems and concurrent
runs: every failure is a clear error, and a re-run converges to a clean run's result.
Faults are injected into the OS calls of a child process (``tests.support.faults``);
the runs around them (first runs, re-runs) are in process. Real processes also for a
lock held by another process, standard output on /dev/full, and the umask."""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.outputs import FileTransaction, OutputError
from clusterplace.outputs.journal import JOURNAL_NAME, TEMP_PREFIX
from clusterplace.outputs.lock import folder_lock
from tests.support import paths
from tests.support.cli import command, run_in_process, run_process
from tests.support.faults import run_with_fault

FLEET = str(paths.FLEET)
MANIFESTS = str(paths.MANIFESTS)
MODULE = str(paths.EXAMPLES / "my-platform")


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file with its bytes, and every folder (``None``): a leftover empty folder
    is a difference too."""
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def route_args(out: Path, manifests: str = MANIFESTS) -> list[str]:
    return ["route", "-f", manifests, "--clusters", FLEET, "--output-dir", str(out)]


@pytest.fixture(scope="module")
def clean_route(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes | None]:
    out = tmp_path_factory.mktemp("clean") / "out"
    assert run_in_process(*route_args(out)).code == 0
    return tree(out)


@pytest.fixture(scope="module")
def changed_manifests(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The example manifests with one object dropped and one changed: a second run
    then adds, updates and removes files."""
    folder = tmp_path_factory.mktemp("changed")
    for path in sorted(Path(MANIFESTS).iterdir()):
        if "cronjob" in path.name:
            continue
        text = path.read_text()
        if "gdpr" in path.name:
            text = text.replace("data:", "data:\n  extra: 'yes'", 1)
        (folder / path.name).write_text(text)
    return str(folder)


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(die_at=st.integers(1, 400), second=st.booleans())
def test_a_run_killed_at_any_call_converges_on_re_run(
    tmp_path_factory: pytest.TempPathFactory,
    clean_route: dict[str, bytes | None],
    changed_manifests: str,
    die_at: int,
    second: bool,
) -> None:
    out = tmp_path_factory.mktemp("killed") / "out"
    manifests = MANIFESTS
    if second:  # the killed run changes an existing folder
        assert run_in_process(*route_args(out, changed_manifests)).code == 0
    killed = run_with_fault(route_args(out, manifests), die_at=die_at)
    assert killed.returncode in (0, 137), killed.stderr
    # Whatever was left: the previous state, the new one, or a journal to finish.
    again = run_in_process(*route_args(out, manifests))
    assert again.code == 0, again.stderr
    assert tree(out) == clean_route
    assert not any(TEMP_PREFIX in name or JOURNAL_NAME in name for name in tree(out))


@pytest.fixture(scope="module")
def wider_fleet(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The example fleet and one more cluster: a run to it makes a folder that a run
    to the example fleet alone must not leave behind."""
    folder = tmp_path_factory.mktemp("wider")
    for path in sorted(Path(FLEET).iterdir()):
        shutil.copy(path, folder / path.name)
    (folder / "zz-extra.yaml").write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: zz-extra}\n"
    )
    return str(folder)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(die_at=st.integers(1, 400))
def test_a_killed_run_leaves_no_folder_a_clean_run_would_not_have(
    tmp_path_factory: pytest.TempPathFactory,
    clean_route: dict[str, bytes | None],
    wider_fleet: str,
    die_at: int,
) -> None:
    out = tmp_path_factory.mktemp("killed") / "out"
    wider = ["route", "-f", MANIFESTS, "--clusters", wider_fleet, "--output-dir", str(out)]
    killed = run_with_fault(wider, die_at=die_at)
    assert killed.returncode in (0, 137), killed.stderr
    again = run_in_process(*route_args(out))  # without the extra cluster
    assert again.code == 0, again.stderr
    assert tree(out) == clean_route  # no zz-extra/, not even empty


@pytest.mark.slow
def test_a_killed_run_leaves_the_old_or_the_new_folder_never_a_mix(
    tmp_path: Path, clean_route: dict[str, bytes | None], changed_manifests: str
) -> None:
    out = tmp_path / "out"
    assert run_in_process(*route_args(out, changed_manifests)).code == 0
    old = tree(out)
    seen = set()
    for die_at in range(1, 200, 7):
        trial = tmp_path / f"t{die_at}"
        shutil.copytree(out, trial)
        run_with_fault(route_args(trial), die_at=die_at)
        # Before the journal exists the old files are all in place; after it, the next
        # run finishes the change (tested above). Never a mix of old and new files.
        if (trial / JOURNAL_NAME).exists():
            seen.add("journal")
            continue
        plain = {k: v for k, v in tree(trial).items() if TEMP_PREFIX not in k}
        assert plain in (old, clean_route), die_at
        seen.add("old" if plain == old else "new")
    assert {"old", "new"} <= seen  # crash points on both sides of the commit point


def test_a_second_run_waits_for_the_lock_or_fails_clearly(
    tmp_path: Path, clean_route: dict[str, bytes | None]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with folder_lock(out):  # held by this process: the run must be another one
        busy = run_process(*route_args(out))
    assert busy.code == 1
    assert "another clusterplace run is writing here" in busy.stderr
    assert tree(out) == {}

    held = threading.Event()

    def hold() -> None:
        with folder_lock(out):
            held.set()
            time.sleep(1.0)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    waited = run_process(*route_args(out), "--lock-timeout", "30")
    thread.join()
    assert waited.code == 0, waited.stderr
    assert tree(out) == clean_route


WRITERS = {
    "route": lambda out: route_args(out),
    "apply-module": lambda out: [
        *("apply-module", MODULE, "--ignore-placement", "--conflict", "overwrite"),
        *("--out", str(out)),
    ],
    "gen-module": lambda out: ["gen-module", MODULE, "--output-dir", str(out)],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize(
    ("code", "text"),
    [
        (errno.EROFS, "Read-only file system"),
        (errno.ENOSPC, "No space left on device"),
        (errno.EACCES, "Permission denied"),
        (errno.ENAMETOOLONG, "File name too long"),
    ],
)
@pytest.mark.parametrize("existing", [False, True])
def test_every_writing_command_reports_a_failing_disk_and_writes_nothing(
    tmp_path: Path, command: str, code: int, text: str, existing: bool
) -> None:
    out = tmp_path / "out"
    if existing:
        assert run_in_process(*WRITERS[command](out)).code == 0
        (out / "keep.txt").write_text("mine\n")
        next(p for p in sorted(out.rglob("*")) if p.suffix in (".yaml", ".cue")).unlink()
    before = tree(out)
    result = run_with_fault(
        WRITERS[command](out), fail_under=str(out), errno=code, fail_calls=("open", "mkdir")
    )
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert f"cannot write: {text}" in result.stderr
    assert tree(out) == before


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("at", [1, 2, 3])
def test_a_disk_filling_up_mid_write_leaves_nothing_behind(
    tmp_path: Path, command: str, at: int
) -> None:
    out = tmp_path / "out"
    result = run_with_fault(WRITERS[command](out), enospc_write_at=at)
    assert result.returncode == 1, result.stderr
    assert "cannot write: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree(out) == {}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_dangling_symlink_as_output_folder_is_an_error(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "nowhere")
    result = run_in_process(*WRITERS[command](out))
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "cannot write" in result.stderr


def test_standard_output_on_a_full_device_is_an_error() -> None:
    with open("/dev/full", "w") as full:  # noqa: PTH123
        proc = subprocess.run(
            [*command(), "schedule", "-f", FLEET, "-o", "yaml"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert proc.returncode == 1
    assert "standard output: cannot write: No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_files_honour_the_umask(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            "sh",
            "-c",
            f"umask 027 && {shlex.join(command())} gen-module {MODULE} --output-dir {out}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    modes = {p.stat().st_mode & 0o777 for p in out.rglob("*.cue")}
    assert modes == {0o640}


def test_a_nul_in_a_path_is_an_output_error(tmp_path: Path) -> None:
    tx = FileTransaction(tmp_path)
    with pytest.raises(OutputError, match="NUL"):
        tx.write(tmp_path / "a\x00b", "x")


def test_leftovers_of_an_unfinished_run_are_removed(
    tmp_path: Path, clean_route: dict[str, bytes | None]
) -> None:
    out = tmp_path / "out"
    (out / "eu-west").mkdir(parents=True)
    (out / "eu-west" / f"{TEMP_PREFIX}0123").write_text("half")
    (out / f"{TEMP_PREFIX}journal").write_text("{")
    assert run_in_process(*route_args(out)).code == 0
    assert tree(out) == clean_route


def test_a_damaged_journal_is_reported_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / JOURNAL_NAME).write_text(
        '{"kind": "ClusterplaceJournal", "renames": [["x", "../../victim"]], "deletes": []}'
    )
    result = run_in_process(*route_args(out))
    assert result.code == 1 and "not a clusterplace journal" in result.stderr


def test_os_errors_keep_their_reason() -> None:
    assert "No space" in str(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
