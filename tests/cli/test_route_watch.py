"""``clusterplace route --watch`` as a real process: a relabel moves a cluster's copies
within a second and touches nothing else, a bad edit keeps the last good state, a copy
deleted by hand comes back, SIGTERM and SIGINT stop it with exit 0, and the output
folder stays locked while it runs."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import command
from tests.support.route_watch import Watch
from tests.support.waiting import wait_for

ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
INDEX = ".clusterplace-route.json"


def write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.edit")
    temporary.write_text(text)
    temporary.replace(path)


def cluster(name: str, region: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": {"region": region}},
        "spec": {"hubAcceptsClient": True},
    }


def selector(region: str) -> dict[str, str]:
    return {ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": [region]}])}


def manifests() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": f"{region}-settings",
                "namespace": "shop",
                "annotations": selector(region),
            },
            "data": {"region": region},
        }
        for region in ("eu", "us")
    ]
    objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    objects.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "annotations": selector("eu")},
            "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}}},
        }
    )
    return objects


REGIONS = {"c0": "eu", "c1": "us", "c2": "eu", "c3": "us"}


def write_fleet(path: Path, regions: dict[str, str]) -> None:
    write_atomic(path, yaml.safe_dump_all([cluster(n, r) for n, r in regions.items()]))


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(manifests folder, fleet file, output folder)."""
    folder = tmp_path / "manifests"
    folder.mkdir()
    for obj in manifests():
        (folder / f"{obj['kind'].lower()}-{obj['metadata']['name']}.yaml").write_text(
            yaml.safe_dump(obj, width=1000)
        )
    fleet = tmp_path / "fleet.yaml"
    write_fleet(fleet, REGIONS)
    return folder, fleet, tmp_path / "out"


@pytest.fixture
def watch(setup: tuple[Path, Path, Path], tmp_path: Path) -> Iterator[Watch]:
    folder, fleet, out = setup
    running = Watch(
        "-f", str(folder), "--clusters", str(fleet), "--output-dir", str(out), cwd=tmp_path
    )
    try:
        running.wait_watching()
        yield running
    finally:
        if running.proc.poll() is None:
            running.stop(signal.SIGKILL)


def files(out: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every copy: (bytes, inode, mtime_ns); the index and other hidden files left out."""
    found = {}
    for path in sorted(out.rglob("*.yaml")):
        info = path.stat()
        found[path.relative_to(out).as_posix()] = (path.read_bytes(), info.st_ino, info.st_mtime_ns)
    return found


def route_once(folder: Path, fleet: Path, out: Path) -> dict[str, bytes]:
    """What a one-shot route of the same inputs writes, index included."""
    done = subprocess.run(
        [
            *command(),
            "route",
            "-f",
            str(folder),
            "--clusters",
            str(fleet),
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return tree(out)


def tree(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def test_a_relabel_moves_the_copies_within_a_second_and_touches_nothing_else(
    setup: tuple[Path, Path, Path], watch: Watch, tmp_path: Path
) -> None:
    folder, fleet, out = setup
    assert route_once(folder, fleet, tmp_path / "once-before") == tree(out)
    before = files(out)
    assert "c1/configmap_shop_us-settings.yaml" in before
    assert "c1/configmap_shop_eu-settings.yaml" not in before

    start = time.monotonic()
    write_fleet(fleet, {**REGIONS, "c1": "eu"})
    c1 = out / "c1"

    def moved() -> bool:
        return (c1 / "configmap_shop_eu-settings.yaml").exists() and not (
            c1 / "configmap_shop_us-settings.yaml"
        ).exists()

    done = wait_for(moved, what="c1's copies to move", poll=0.005)
    assert done - start < 1.0, f"took {done - start:.2f} s"
    wait_for(lambda: "c1" in watch.text().split("watching", 1)[1], what="the change set's line")

    after = files(out)
    assert route_once(folder, fleet, tmp_path / "once-after") == tree(out)
    for rel, (data, inode, mtime) in before.items():
        if rel in after and after[rel][0] == data:
            # Unchanged content: never rewritten.
            assert after[rel][1:] == (inode, mtime), rel
    # Only c1's copies and the web Deployment's shares (divided again) changed.
    changed = {
        rel
        for rel in before.keys() | after.keys()
        if before.get(rel, (b"",))[0] != after.get(rel, (b"",))[0]
    }
    assert {rel for rel in changed if not rel.startswith("c1/")} == {
        "c0/deployment.apps_shop_web.yaml",
        "c2/deployment.apps_shop_web.yaml",
    }
    shares = {
        c: yaml.safe_load((out / c / "deployment.apps_shop_web.yaml").read_text())["spec"][
            "replicas"
        ]
        for c in ("c0", "c1", "c2")
    }
    assert sum(shares.values()) == 6 and set(shares.values()) == {2}
    line = [entry for entry in watch.text().splitlines() if "c1 " in entry][-1]
    assert line.startswith(f"route: {out}: ") and "c1 +2 -1" in line, line

    # And back: the copies go again.
    write_fleet(fleet, REGIONS)
    wait_for(lambda: (c1 / "configmap_shop_us-settings.yaml").exists(), what="c1 back")
    wait_for(lambda: not (c1 / "deployment.apps_shop_web.yaml").exists(), what="web gone")
    assert watch.stop() == 0
    assert tree(out) == route_once(folder, fleet, tmp_path / "once-back")


def test_a_bad_edit_is_reported_and_the_last_good_state_stays(
    setup: tuple[Path, Path, Path], watch: Watch, tmp_path: Path
) -> None:
    folder, fleet, out = setup
    before = tree(out)
    settings = folder / "configmap-eu-settings.yaml"
    good = settings.read_text()
    # An invalid annotation, then invalid YAML, in place (as an editor saves).
    settings.write_text(good.replace('"operator": "In"', '"operator": "Within"'))
    wait_for(lambda: "Within" in watch.text(), what="the report")
    settings.write_text("metadata: [\n")
    wait_for(lambda: "invalid YAML" in watch.text(), what="the second report")
    fleet.write_text(fleet.read_text() + "---\nkind: ManagedCluster\nmetadata: {name: [}\n")
    wait_for(lambda: f"{fleet}:" in watch.text(), what="the fleet report")
    time.sleep(0.3)
    assert tree(out) == before
    text = watch.text()
    assert f"route: {settings}:" in text and "operator 'Within' is not recognized" in text
    assert f"route: {settings}:2: invalid YAML" in text  # as route reports it
    assert f"(the last good version of {settings} stays in force)" in text
    # Fixed: the changes made since are applied, and only then.
    write_fleet(fleet, {**REGIONS, "c3": "eu"})
    settings.write_text(good.replace("region: eu", "region: europe"))
    wait_for(
        lambda: (
            b"europe" in (out / "c3" / "configmap_shop_eu-settings.yaml").read_bytes()
            if (out / "c3" / "configmap_shop_eu-settings.yaml").exists()
            else False
        ),
        what="the fixed file's copies",
    )
    assert watch.stop() == 0
    assert tree(out) == route_once(folder, fleet, tmp_path / "once")


def test_a_copy_deleted_by_hand_comes_back_and_one_edited_is_kept(
    setup: tuple[Path, Path, Path], watch: Watch
) -> None:
    _, _, out = setup
    deleted = out / "c0" / "namespace_shop.yaml"
    text = deleted.read_bytes()
    deleted.unlink()
    wait_for(deleted.exists, what="the copy to come back")
    assert deleted.read_bytes() == text
    edited = out / "c2" / "namespace_shop.yaml"
    edited.write_text(edited.read_text() + "# mine\n")
    wait_for(lambda: "edited by hand" in watch.text(), what="the warning")
    assert edited.read_text().endswith("# mine\n")
    assert f"route: warning: {edited}: edited by hand" in watch.text()
    assert watch.stop() == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_stop_it_with_exit_0(watch: Watch, sig: int) -> None:
    assert watch.stop(sig) == 0
    assert watch.text().rstrip().endswith("route: stopped")


def test_the_output_folder_stays_locked_while_it_runs(
    setup: tuple[Path, Path, Path], watch: Watch, tmp_path: Path
) -> None:
    folder, fleet, out = setup
    args = ["-f", str(folder), "--clusters", str(fleet), "--output-dir", str(out)]
    for extra in (["--watch"], []):
        done = subprocess.run(
            [*command(), "route", *extra, *args], capture_output=True, text=True, check=False
        )
        assert done.returncode == 1
        assert "another clusterplace run is writing here" in done.stderr
    assert watch.stop() == 0
    # Released: a run may write now.
    assert (
        subprocess.run([*command(), "route", *args], capture_output=True, check=False).returncode
        == 0
    )


def test_a_second_watch_waits_for_the_lock_with_lock_timeout(
    setup: tuple[Path, Path, Path], watch: Watch, tmp_path: Path
) -> None:
    folder, fleet, out = setup
    second = Watch(
        "-f",
        str(folder),
        "--clusters",
        str(fleet),
        "--output-dir",
        str(out),
        "--lock-timeout",
        "60",
        cwd=tmp_path,
    )
    try:
        wait_for(lambda: "waiting for it" in second.text(), what="the second to wait")
        assert watch.stop() == 0
        second.wait_watching()
    finally:
        assert second.stop() == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--dry-run"], 2, "--dry-run: not with --watch"),
        (["--format", "json"], 2, "--format: not with --watch"),
        (["--now", "2026-01-01T00:00:00Z"], 2, "--now: not with --watch"),
    ],
)
def test_options_that_do_not_go_with_watch(
    setup: tuple[Path, Path, Path], tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    folder, fleet, out = setup
    done = subprocess.run(
        [
            *command(),
            "route",
            "--watch",
            "-f",
            str(folder),
            "--clusters",
            str(fleet),
            "--output-dir",
            str(out),
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == code and message in done.stderr, done.stderr
    assert not out.exists()


def test_standard_input_cannot_be_watched(setup: tuple[Path, Path, Path]) -> None:
    _, fleet, out = setup
    done = subprocess.run(
        [
            *command(),
            "route",
            "--watch",
            "-f",
            "-",
            "--clusters",
            str(fleet),
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        input="",
        check=False,
    )
    assert done.returncode == 1
    assert "standard input (-) cannot be watched" in done.stderr
