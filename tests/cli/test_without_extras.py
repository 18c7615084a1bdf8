"""Installed without an extra, the CLI still runs and says which extra a command needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FLEET = Path(__file__).parents[2] / "examples" / "fleet"

# Runs the CLI with the serve extra's modules made unimportable, as on a machine where
# clusterplace was installed without [serve]. A process of its own: in this one, the
# explorer and the extra's modules are long imported.
WITHOUT_SERVE = (
    "import sys\n"
    "for name in ('fastapi', 'starlette', 'uvicorn', 'jinja2'):\n"
    "    sys.modules[name] = None\n"
    "from clusterplace.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SERVE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_serve_without_the_serve_extra_says_how_to_install_it() -> None:
    done = _run("serve", "-f", str(FLEET), "--port", "0")
    assert done.returncode == 1
    assert "pip install 'clusterplace[serve]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["--help"], ["serve", "--help"], ["get", "clusters", "-f"]])
def test_other_commands_and_help_work_without_the_serve_extra(args: list[str]) -> None:
    done = _run(*args, *([str(FLEET)] if args[-1] == "-f" else []))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stdout


WITHOUT_KUBE = WITHOUT_SERVE.replace(
    "('fastapi', 'starlette', 'uvicorn', 'jinja2')", "('kubernetes', 'aiohttp')"
)


@pytest.mark.parametrize(
    "command", [["get", "placements"], ["schedule"], ["explain", "placement", "p"]]
)
def test_a_live_hub_without_the_kube_extra_says_how_to_install_it(
    command: list[str], tmp_path: Path
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_KUBE, *command, "--kubeconfig", str(kubeconfig)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "needs the kube extra: pip install 'clusterplace[kube]'" in done.stderr
    assert "Traceback" not in done.stderr
