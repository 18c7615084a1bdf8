"""The explorer tests' fixture: a test client of an explorer over the example fleet."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from clusterplace.web import create_app
from tests.support.explorer import TEST_HOSTS, example_explorer


@pytest.fixture
def client() -> TestClient:
    """A client of an explorer of its own, for each test: what-if and why-not apply
    edits to the explorer's run and undo them, and the explorer keeps explanations and
    the placement list between requests, so a client shared by the tests of a module
    made each test's answers depend on which tests ran before it (and on the undo of
    every edit they made being exact)."""
    return TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
