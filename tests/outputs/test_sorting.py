"""``--sort-by``: numbers by value, strings by their bytes, objects without the field
first, ties in the order given; kubectl's errors for a path found nowhere and for a
value that cannot be ordered."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.outputs.sorting import SortError, sort_order


def _docs(values: list[Any]) -> list[dict[str, Any]]:
    return [{"spec": {"v": v}} if v is not None else {"spec": {}} for v in values]


def test_numbers_by_value_strings_by_text() -> None:
    assert sort_order(_docs([10, 2, 33, 1]), ".spec.v") == [3, 1, 0, 2]
    assert sort_order(_docs(["c2", "c10", "c1"]), "{.spec.v}") == [2, 1, 0]  # c1 c10 c2


def test_objects_without_the_field_come_first_in_their_order() -> None:
    assert sort_order(_docs(["b", None, "a", None]), "spec.v") == [1, 3, 2, 0]


def test_a_path_found_nowhere_is_kubectls_error() -> None:
    with pytest.raises(SortError) as caught:
        sort_order(_docs([None, None]), ".spec.v")
    assert str(caught.value) == (
        'couldn\'t find any field with path "{.spec.v}" in the list of objects'
    )
    assert sort_order([], ".spec.v") == []  # nothing to sort: no error


@pytest.mark.parametrize(("value", "kind"), [(True, "bool"), ({"a": 1}, "map"), ([1], "list")])
def test_values_that_cannot_be_ordered(value: Any, kind: str) -> None:
    with pytest.raises(SortError, match=f"unsortable type: {kind}"):
        sort_order(_docs([value, value]), ".spec.v")


def test_numbers_and_strings_together_cannot_be_ordered() -> None:
    with pytest.raises(SortError, match="both numbers and strings"):
        sort_order(_docs([1, "a"]), ".spec.v")


@given(st.lists(st.one_of(st.none(), st.integers(-(10**6), 10**6)), max_size=30))
def test_number_order_is_a_stable_sort(values: list[int | None]) -> None:
    if all(v is None for v in values):
        return
    order = sort_order(_docs(values), ".spec.v")
    assert sorted(order) == list(range(len(values)))

    def key(i: int) -> tuple[bool, int]:
        value = values[i]
        return (value is not None, value or 0)

    for a, b in pairwise(order):
        assert key(a) <= key(b)
        if key(a) == key(b):
            assert a < b  # ties keep their order


@given(st.lists(st.text(max_size=8), min_size=1, max_size=30))
def test_string_order_is_byte_order(values: list[str]) -> None:
    order = sort_order(_docs(values), ".spec.v")
    encoded = [values[i].encode("utf-8", "surrogatepass") for i in order]
    assert encoded == sorted(encoded)
