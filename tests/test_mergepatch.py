"""The JSON merge patch (RFC 7386) computed between two documents."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from clusterplace.mergepatch import merge_patch


def _apply(target: Any, patch: Any) -> Any:
    """RFC 7386's MergePatch, as a server applies it."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _apply(out.get(key), value)
    return out


def test_removed_added_and_changed_keys() -> None:
    assert merge_patch({"a": 1, "b": {"c": 1, "d": 2}}, {"b": {"c": 1, "e": 3}}) == {
        "a": None,
        "b": {"d": None, "e": 3},
    }
    assert merge_patch({"a": [1]}, {"a": [1]}) == {}  # equal: nothing to send
    assert merge_patch({"a": [1]}, {"a": [1, 2]}) == {"a": [1, 2]}  # lists are replaced
    assert merge_patch({"a": 1}, {"a": {"b": 2}}) == {"a": {"b": 2}}
    assert merge_patch({"a": {"b": 2}}, {"a": 1}) == {"a": 1}
    assert merge_patch({"a": 1}, {"a": {}}) == {"a": {}}
    assert merge_patch([1], {"a": 1}) == {"a": 1}  # not an object: the document itself


def test_removed_keys_come_first_in_the_documents_order() -> None:
    patch = merge_patch({"z": 1, "y": 2, "x": 3}, {"x": 4, "w": 5})
    assert list(patch) == ["z", "y", "x", "w"]
    assert json.dumps(patch) == '{"z": null, "y": null, "x": 4, "w": 5}'


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=12,
)
# RFC 7386 cannot set a member to null: documents without null members.
_DOCUMENT = st.dictionaries(
    st.text(max_size=2),
    st.recursive(
        st.booleans() | st.integers() | st.text(max_size=3) | st.lists(_JSON, max_size=2),
        lambda inner: st.dictionaries(st.text(max_size=2), inner, max_size=3),
        max_leaves=10,
    ),
    max_size=4,
)


@given(_DOCUMENT, _DOCUMENT)
def test_applying_the_patch_gives_the_second_document(before: Any, after: Any) -> None:
    assert _apply(before, merge_patch(before, after)) == after
