"""The explorer answers only requests sent to the address it serves (a page whose DNS
name was rebound to 127.0.0.1 reads nothing), caps request bodies, never echoes more
than a short prefix of a rejected value, and starts only where it can listen."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from clusterplace.web import HostRule, create_app, served_hosts
from clusterplace.web.guards import MAX_BODY_BYTES
from tests.support.cli import Result
from tests.support.explorer import TEST_HOSTS, example_explorer, serving

FLEET = "examples/fleet"
EDIT = {"set": ["cluster/azure-prod-weu:labels.provider=aws"]}


@pytest.mark.parametrize(
    ("rule", "header", "allowed"),
    [
        (served_hosts("127.0.0.1", 8080), "127.0.0.1:8080", True),
        (served_hosts("127.0.0.1", 8080), "LOCALHOST:8080", True),
        (served_hosts("127.0.0.1", 8080), "attacker.example:8080", False),
        (served_hosts("127.0.0.1", 8080), "127.0.0.1:8081", False),
        (served_hosts("127.0.0.1", 8080), "127.0.0.1", False),  # port 80 implied
        (served_hosts("127.0.0.1", 8080), "localhost.:8080", False),
        (served_hosts("127.0.0.1", 8080), "127.0.0.1:8080:8080", False),
        (served_hosts("127.0.0.1", 80), "localhost", True),
        (served_hosts("::1", 8080), "[::1]:8080", True),
        (served_hosts("::1", 8080), "[::1]x:8080", False),
        (served_hosts("::1", 8080), "localhost:8080", True),
        (served_hosts("10.1.2.3", 8080), "localhost:8080", False),  # not a loopback bind
        (served_hosts("10.1.2.3", 8080), "10.1.2.3:8080", True),
        (served_hosts("0.0.0.0", 8080), "192.168.1.9:8080", True),  # any address, by IP
        (served_hosts("0.0.0.0", 8080), "[fe80::1]:8080", True),
        (served_hosts("0.0.0.0", 8080), "attacker.example:8080", False),
        (served_hosts("myhost.example", 8080, "10.1.2.3"), "myhost.example:8080", True),
        (served_hosts("myhost.example", 8080, "10.1.2.3"), "10.1.2.3:8080", True),
    ],
)
def test_host_rule(rule: HostRule, header: str, allowed: bool) -> None:
    assert rule.allows(header) is allowed


@pytest.mark.parametrize("path", ["/", "/api/clusters", "/api/placements", "/static/app.js"])
def test_a_foreign_host_is_refused_in_process(path: str) -> None:
    client = TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
    response = client.get(path, headers={"Host": "attacker.example"})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Host 'attacker.example' is not this server; use localhost:80 or testserver:80"
    }
    assert client.get(path).status_code == 200


def test_the_real_server_refuses_a_foreign_host_and_large_bodies() -> None:
    with serving("-f", FLEET) as served:
        foreign = f"attacker.example:{served.port}"
        # what curl -H 'Host: attacker.example:PORT' http://127.0.0.1:PORT/api/clusters sends
        status, body = served.request("GET", "/api/clusters", host=foreign)
        assert status == 400 and b"is not this server" in body and b"aws-prod" not in body
        status, body = served.request(
            "POST",
            "/api/what-if",
            host=foreign,
            body=json.dumps(EDIT).encode(),
            headers={"Content-Type": "application/json", "Origin": f"http://{foreign}"},
        )
        assert status == 400 and b"gained" not in body
        for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
            status, body = served.request("GET", "/api/clusters", host=host)
            assert status == 200 and b"aws-prod-use1" in body

        # A body over the limit: refused from its Content-Length, before it is read.
        connection = socket.create_connection(("127.0.0.1", served.port), timeout=30)
        with connection:
            connection.sendall(
                b"POST /api/what-if HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                b"Content-Type: application/json\r\nContent-Length: 209715200\r\n\r\n" % served.port
            )
            answer = b""
            while chunk := connection.recv(65536):  # the server closes after answering
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 413 ")
        assert b'{"detail": "the request body is larger than 1048576 bytes, the limit"}' in answer

        # Without a length (chunked), it stops at the limit as it reads.
        big = b"x" * (MAX_BODY_BYTES + 1)
        status, body = served.request(
            "POST",
            "/api/what-if",
            body=b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big),
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        )
        assert status == 413 and len(body) < 200

        # Just under the limit: an ordinary answer, with no copy of the value.
        value = "cluster/aws-prod-use1:labels.a=" + "v" * (MAX_BODY_BYTES - 100)
        status, body = served.request(
            "POST",
            "/api/what-if",
            body=json.dumps({"set": [value]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert status == 422 and len(body) < 1000


def test_rejected_values_are_echoed_as_a_short_prefix_only() -> None:
    client = TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
    huge = "cluster/azure-prod-weu:labels.a=" + "x" * 4000
    response = client.post("/api/what-if", json={"set": [huge]})
    assert response.status_code == 400  # a label value of 4,000 characters
    detail = response.json()["detail"]
    assert len(detail) < 400
    assert "(3952 more characters)" in detail and "(3920 more characters)" in detail
    response = client.post("/api/what-if", json={"set": "y" * 500_000})
    assert response.status_code == 422 and len(response.content) < 500
    assert response.json()["detail"][0]["input"].endswith("(499920 more characters)")
    response = client.post("/api/what-if", json={"set": ["z" * 5000]})  # over 4,096
    assert response.status_code == 422 and len(response.content) < 500


def test_serve_on_a_port_in_use_is_an_error(run: Callable[..., Result]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "-f", FLEET, "--port", str(port))
    assert result.code == 1 and "Traceback" not in result.stderr
    assert result.stderr == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use; another program "
        "listens there: give another --port (0: any free port)\n"
    )


def test_serve_on_an_unresolvable_host_is_an_error(run: Callable[..., Result]) -> None:
    result = run("serve", "-f", FLEET, "--host", "no-such-host.invalid", "--port", "0")
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "on http://" not in result.stderr
    assert result.stderr.startswith(
        "error: --host 'no-such-host.invalid': cannot resolve the address: "
    )


def test_the_openapi_document_gives_the_413_of_every_post() -> None:
    client = TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
    schema = client.get("/openapi.json").json()
    posts = {path: item["post"] for path, item in schema["paths"].items() if "post" in item}
    assert {"/api/what-if", "/api/what-if/check"} <= set(posts)
    for path, post in posts.items():
        answer = post["responses"].get("413")
        assert answer is not None, path
        assert str(MAX_BODY_BYTES) in answer["description"]
        assert answer["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Problem"
        }
