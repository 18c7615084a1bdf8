"""Test-wide settings and fixtures: hypothesis without timing deadlines (deterministic in
CI), and the ``clusterplace`` command: ``run`` in process, ``run_process`` as a child
process, ``golden`` to compare an output with its golden file (see
:mod:`tests.support.cli`; ``UPDATE_GOLDEN=1`` rewrites them)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

from tests.support.cli import Result, check_golden, run_in_process, run_process

settings.register_profile("default", deadline=None)
# CI must not fail on a random draw that no developer ever saw: derandomize there.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(name="run")
def run_fixture() -> Callable[..., Result]:
    """``run(*args, stdin=None, cwd=ROOT, env=None)``: ``clusterplace ARGS`` in process."""
    return run_in_process


@pytest.fixture(name="run_process")
def run_process_fixture() -> Callable[..., Result]:
    """``run_process(*args, ...)``: ``clusterplace ARGS`` as a real child process, for
    what needs one (signals, locks between processes, real file descriptors)."""
    return run_process


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """``golden(name, text)``: ``text`` equals ``tests/cli/golden/NAME``."""
    return check_golden
