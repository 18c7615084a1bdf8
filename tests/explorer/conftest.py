"""An explorer over the example fleet, for the API, security and browser tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.defkit.module import load_module
from clusterplace.web import Explorer, FleetSource, HostRule, create_app

NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)
# The Host headers of the in-process test clients (Starlette's and schemathesis').
TEST_HOSTS = HostRule(frozenset({"testserver", "localhost"}), 80)


ROLLOUT_NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def rollout_explorer() -> Explorer:
    """Three ManifestWorkReplicaSets over one placement (tests/data/rollout), at 12:00:
    a group soaking, a full window, and a work that reports no Progressing."""
    source = FleetSource(
        load=lambda: load_fleet(expand_sources(["tests/data/rollout"])),
        label="-f tests/data/rollout",
    )
    return Explorer(source, ROLLOUT_NOW)


def example_explorer() -> Explorer:
    source = FleetSource(
        load=lambda: load_fleet(expand_sources(["examples/fleet"])), label="-f examples/fleet"
    )
    return Explorer(source, NOW, load_module("examples/my-platform"))


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
