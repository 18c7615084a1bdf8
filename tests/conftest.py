"""Test-wide settings and fixtures: hypothesis without timing deadlines (deterministic in
CI), and the ``clusterplace`` command: ``run`` in process, ``run_process`` as a child
process, ``golden`` to compare an output with its golden file (see
:mod:`tests.support.cli`; ``UPDATE_GOLDEN=1`` rewrites them); and the envtest tier: a
real API server per test module (``envtest``, ``envtest_no_kcm``) and a hub on it per
test (``realhub``), see :mod:`tests.support.envtest`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.support.cli import Result, check_golden, run_in_process, run_process
from tests.support.envtest import REQUIRE_VAR, Envtest, RealHub, envtest_server
from tests.support.processes import stop_leftovers

settings.register_profile("default", deadline=None)
# CI must not fail on a random draw that no developer ever saw: derandomize there.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(autouse=True)
def _no_controller_outlives_its_test() -> Iterator[None]:
    """A controller process a test started and did not stop (it failed first) is killed
    after it, not left retrying a hub that is gone while later tests run."""
    yield
    stop_leftovers()


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


# -- the envtest tier ------------------------------------------------------------------

ENVTEST_FIXTURES = {"envtest", "envtest_no_kcm", "realhub"}


@pytest.fixture(scope="module")
def envtest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    """A real API server (etcd, kube-apiserver, kube-controller-manager) for a module."""
    with envtest_server(tmp_path_factory.mktemp("envtest")) as server:
        yield server


@pytest.fixture(scope="module")
def envtest_no_kcm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    """A real API server without the controller manager: no garbage collection, and a
    deleted namespace stays Terminating."""
    with envtest_server(tmp_path_factory.mktemp("envtest"), controller_manager=False) as server:
        yield server


@pytest.fixture
def realhub(envtest: Envtest, tmp_path: pytest.TempPathFactory) -> Iterator[RealHub]:
    """An empty OCM hub on the module's real API server; emptied again after the test."""
    hub = RealHub(envtest, tmp_path)  # type: ignore[arg-type]
    yield hub
    hub.reset()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests on a real API server are marked ``envtest`` (select or leave them out with
    ``-m envtest`` / ``-m "not envtest"``)."""
    for item in items:
        if ENVTEST_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.envtest)


_TIER: dict[str, int] = {"passed": 0, "skipped": 0, "failed": 0}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "envtest" not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _TIER[report.outcome] = _TIER.get(report.outcome, 0) + 1


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With CLUSTERPLACE_REQUIRE_ENVTEST=1 (CI), a tier that was skipped or ran no test
    fails the run."""
    if os.environ.get(REQUIRE_VAR) != "1" or session.config.option.collectonly:
        return
    if _TIER["skipped"] or not _TIER["passed"]:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if any(_TIER.values()):
        counts = ", ".join(f"{n} {outcome}" for outcome, n in _TIER.items() if n)
        terminalreporter.write_line(f"envtest tier (real API server): {counts}")
    if os.environ.get(REQUIRE_VAR) == "1" and (_TIER["skipped"] or not _TIER["passed"]):
        terminalreporter.write_line(
            f"{REQUIRE_VAR}=1: the envtest tier must run (none may skip, at least one must pass)"
        )
