"""JSON inside the input (annotations, index and journal files, CEL's parseJSON) is
decoded with a nesting bound: a clear error, never ``RecursionError``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace import jsontext
from clusterplace.federation import parse_cluster_selector
from clusterplace.labels import SelectorError


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _nested(depth: int, inner: Any) -> Any:
    for level in range(depth):
        inner = [inner] if level % 2 else {"k[{": inner}  # brackets inside strings too
    return inner


@settings(max_examples=200, deadline=None)
@given(depth=st.integers(0, 400), leaf=st.sampled_from([1, "x", "]}]", "[[{{", None, []]))
def test_refused_exactly_when_too_deep(depth: int, leaf: Any) -> None:
    value = _nested(depth, leaf)
    text = json.dumps(value)
    if _depth(value) > jsontext.MAX_DEPTH:
        with pytest.raises(jsontext.JSONDepthError) as caught:
            jsontext.loads(text)
        assert text[caught.value.position] in "[{"
    else:
        assert jsontext.loads(text) == value


def test_an_enormous_depth_is_refused_without_recursion() -> None:
    with pytest.raises(jsontext.JSONDepthError, match="nested more than 128 levels deep"):
        jsontext.loads("[" * 200_000 + "]" * 200_000)
    assert isinstance(jsontext.JSONDepthError(0), ValueError)  # callers catch ValueError


def test_a_deep_cluster_selector_annotation_is_an_invalid_annotation() -> None:
    with pytest.raises(SelectorError, match="invalid JSON: nested more than 128"):
        parse_cluster_selector("[" * 100_000 + "]" * 100_000)
