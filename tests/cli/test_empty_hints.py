"""Where ``get`` shows nothing (no PlacementDecisions, Placements without status)
because manifests were read without ``--schedule``, a hint on stderr says where the
answer comes from; it is never said when the answer is there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.support.cli import Result
from tests.support.paths import FLEET

Run = Callable[..., Result]
F = ["-f", str(FLEET)]
DECISIONS_HINT = (
    "hint: PlacementDecisions are written by a hub's controller, not found in manifests: "
    "--schedule shows those it would write (or read a hub's: --hub DIR, --kubeconfig PATH)\n"
)
PLACEMENTS_HINT = (
    "hint: the input's Placements have no status: --schedule shows them as a hub would "
    "after scheduling (or read a hub's: --hub DIR, --kubeconfig PATH)\n"
)


def test_no_decisions_in_manifests_says_where_they_come_from(run: Run) -> None:
    result = run("get", "placementdecisions", "-A", *F)
    assert result.code == 0 and result.stdout == ""
    assert result.stderr == "No resources found.\n" + DECISIONS_HINT


def test_placements_without_status_say_where_it_comes_from(run: Run) -> None:
    result = run("get", "placements", "-n", "apps", *F)
    assert result.code == 0
    assert result.stdout.splitlines()[1].split()[1:] == ["<none>"] * 3
    assert result.stderr == PLACEMENTS_HINT


def test_no_hint_where_the_answer_is_shown(run: Run, tmp_path: Path) -> None:
    for kind in ("placements", "placementdecisions"):
        result = run("get", kind, "-n", "apps", *F, "--schedule")
        assert result.code == 0 and result.stdout and result.stderr == "", kind
    # What a hub holds after scheduling, read back as files: nothing to hint at.
    scheduled = run("schedule", *F, "-o", "yaml")
    hub = tmp_path / "scheduled.yaml"
    hub.write_text(scheduled.stdout)
    extra = ["-f", str(FLEET / "clusters.yaml"), "-f", str(FLEET / "clustersets.yaml")]
    for kind in ("placements", "placementdecisions"):
        result = run("get", kind, "-n", "apps", "-f", str(hub), *extra)
        assert result.code == 0 and result.stdout and result.stderr == "", (kind, result.stderr)


def test_no_hint_in_machine_formats(run: Run) -> None:
    for output in ("yaml", "json", "jsonpath={.kind}"):
        result = run("get", "placementdecisions", "-A", *F, "-o", output)
        assert result.code == 0 and result.stderr == "", output
