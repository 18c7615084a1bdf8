"""The explorer tests' fixture: a test client of an explorer over the example fleet."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from clusterplace.web import create_app
from tests.support.explorer import TEST_HOSTS, example_explorer


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
