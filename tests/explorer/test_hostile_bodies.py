"""Every POST endpoint of the explorer answers whatever body it is sent with a 2xx or a
4xx, never a 5xx: arbitrary bytes, JSON holding lone surrogates (valid JSON text, but no
character UTF-8 can encode), edits in near-valid syntax with hostile values, bodies over
the size limit and bodies nested deeper than any parser should follow."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.web import create_app
from clusterplace.web.guards import MAX_BODY_BYTES
from tests.support.explorer import TEST_HOSTS, example_explorer

APP = create_app(example_explorer(), hosts=TEST_HOSTS)
CLIENT = TestClient(APP, raise_server_exceptions=False)
# Every endpoint a body can be sent to, as the app documents them.
POSTS = sorted(
    path
    for path, methods in APP.openapi()["paths"].items()
    if {"post", "put", "patch", "delete"} & set(methods)
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)

# Text with lone surrogates and other awkward characters mixed in.
_CHARS = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.characters(),
    st.sampled_from(list("=:./,[]{}+-\\\"'\x00\n")),
)
_TEXT = st.text(alphabet=_CHARS, max_size=40)
_TARGETS = st.sampled_from(
    [
        "cluster/azure-prod-weu:",
        "cluster/azure-prod-weu:labels.",
        "cluster/azure-prod-weu:taints+=",
        "placement/apps/web-frontend:",
        "placement/apps/web-frontend:predicates=",
        "placement/apps/web-frontend:numberOfClusters=",
        "placement/apps/web-frontend:weights.",
        "clustersetbinding/apps/x:clusterSet=",
        "addonplacementscore/azure-prod-weu/x:scores.",
        "",
    ]
)
_EDIT = st.builds(lambda target, rest: target + rest, _TARGETS, _TEXT)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
_SHAPED = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"set": st.lists(_EDIT, max_size=4), "unset": st.lists(_EDIT, max_size=4)}
    ),
    st.fixed_dictionaries(
        {
            "edits": st.lists(
                st.fixed_dictionaries(
                    {"op": st.sampled_from(["set", "unset", "\ud800"]), "expression": _EDIT}
                ),
                max_size=4,
            )
        }
    ),
)


def _encoded(value: Any) -> bytes:
    # ensure_ascii: a lone surrogate goes as the escape \\udXXX, as a hostile client sends it
    return json.dumps(value, ensure_ascii=True).encode("ascii")


def _post(path: str, body: bytes, content_type: str = "application/json") -> int:
    response = CLIENT.post(path, content=body, headers={"content-type": content_type})
    assert response.status_code < 500, (path, body[:200], response.text[:500])
    return response.status_code


def test_every_post_endpoint_is_covered() -> None:
    assert POSTS == ["/api/what-if", "/api/what-if/check"]  # a new one joins the tests below


@pytest.mark.parametrize("path", POSTS)
def test_a_lone_surrogate_is_a_4xx(path: str) -> None:
    for body in (
        b'{"edits":[{"op":"set","expression":"\\ud800"}]}',
        b'{"set":["cluster/azure-prod-weu:labels.a=\\udfff"]}',
        b'{"set":"\\ud800"}',
        b'{"\\ud800":["\\ud800"]}',
    ):
        status = _post(path, body)
        assert status in (200, 400, 422)


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "body, echoed",
    [
        (b"Infinity", "inf"),
        (b"-Infinity", "-inf"),
        (b"NaN", "nan"),
        (b"1e999", "inf"),  # beyond a float's range: read as infinity
        # Each endpoint reads its own key: what-if the set, the check the edits.
        (b'{"set":[NaN],"edits":[{"op":"set","expression":NaN}]}', "nan"),
    ],
)
def test_numbers_json_cannot_hold_are_a_4xx_that_names_them(
    path: str, body: bytes, echoed: str
) -> None:
    response = CLIENT.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert [e["input"] for e in response.json()["detail"]] == [echoed]


@pytest.mark.parametrize("path", POSTS)
@SETTINGS
@given(body=_SHAPED)
def test_edit_shaped_bodies_never_give_a_5xx(path: str, body: dict[str, Any]) -> None:
    _post(path, _encoded(body))


@pytest.mark.parametrize("path", POSTS)
@SETTINGS
@given(body=_JSON)
def test_any_json_never_gives_a_5xx(path: str, body: Any) -> None:
    _post(path, _encoded(body))


@pytest.mark.parametrize("path", POSTS)
@SETTINGS
@given(body=st.binary(max_size=200), content_type=st.sampled_from(["application/json", "", "x"]))
def test_any_bytes_never_give_a_5xx(path: str, body: bytes, content_type: str) -> None:
    _post(path, body, content_type)


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,
        b"[" * 50_000 + b"]" * 50_000,
        b'{"set":' + b"[" * 20_000 + b"]" * 20_000 + b"}",
        b'{"edits":' + b'{"a":' * 20_000 + b"1" + b"}" * 20_001,
        b'{"set":["' + b"x" * (MAX_BODY_BYTES + 1) + b'"]}',
        # More edits than either endpoint takes (each reads its own key).
        _encoded(
            {
                "set": ["cluster/azure-prod-weu:labels.a=b"] * 5_000,
                "edits": [{"op": "set", "expression": "cluster/azure-prod-weu:labels.a=b"}] * 5_000,
            }
        ),
    ],
    ids=["open", "closed", "deep-set", "deep-objects", "huge", "many-edits"],
)
def test_deep_and_huge_bodies_are_a_4xx(path: str, body: bytes) -> None:
    assert 400 <= _post(path, body) < 500
