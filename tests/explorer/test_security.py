"""The explorer is read-only and local: same-origin only for state-changing requests,
nothing written, path-like input never reads a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clusterplace.cli.serve import serve
from tests.support.cli import Result

EDIT = {"set": ["cluster/azure-prod-weu:labels.provider=aws"]}


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://testserver.evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_cross_origin_what_if_is_refused(client: TestClient, headers: dict[str, str]) -> None:
    response = client.post("/api/what-if", json=EDIT, headers=headers)
    assert (
        response.status_code == 403 and response.json()["detail"] == "cross-origin request refused"
    )


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "http://testserver"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
    ],
)
def test_same_origin_what_if_is_served(client: TestClient, headers: dict[str, str]) -> None:
    assert client.post("/api/what-if", json=EDIT, headers=headers).status_code == 200


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_no_endpoint_writes(client: TestClient, method: str) -> None:
    for path in ["/api/placements/apps/analytics", "/api/clusters", "/api/what-if"]:
        assert (
            client.request(method, path, headers={"Origin": "http://testserver"}).status_code == 405
        )


@pytest.mark.parametrize(
    "path",
    [
        "/static/../../pyproject.toml",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/static/..%2f..%2fpyproject.toml",
        "/static//etc/passwd",
        "/api/placements/..%2f..%2f/etc%2fpasswd",
        "/api/placements/%2e%2e/%2e%2e/why-not/..%2f..%2fetc%2fpasswd",
        "/placements/../../etc/passwd",
    ],
)
def test_path_like_input_reads_no_file(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code in (404, 405)
    assert "root:" not in response.text and "[project]" not in response.text


@pytest.mark.parametrize("value", ["/etc/passwd", "../../pyproject.toml", "file:///etc/passwd"])
def test_path_like_selectors_and_edits_read_no_file(client: TestClient, value: str) -> None:
    for response in (
        client.get("/api/clusters", params={"selector": value}),
        client.post("/api/what-if", json={"set": [value], "unset": [value]}),
        client.get("/", params={"selector": value}),
    ):
        assert "root:" not in response.text and "[project]" not in response.text


def test_nothing_is_written(client: TestClient, tmp_path: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in Path("examples/fleet").iterdir()}
    client.post("/api/what-if", json=EDIT)
    client.get("/api/placements/apps/analytics/why-not/aws-prod-euw1")
    assert {p: p.stat().st_mtime_ns for p in Path("examples/fleet").iterdir()} == before


def test_serve_binds_localhost_by_default() -> None:
    host = next(p for p in serve.params if p.name == "host")
    assert host.default == "127.0.0.1"


def test_serve_needs_a_fleet(run: Callable[..., Result]) -> None:
    result = run("serve")
    assert result.code == 2 and "give -f FILE|DIR (or --hub DIR)" in result.stderr
