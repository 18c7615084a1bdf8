"""FNV-1 32 as Go's hash/fnv New32: published vectors, and a reference on random bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.federation import fnv1_32
from tests.federation._go_reference import go_fnv32


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # Go's hash/fnv tests (golden32) and the FNV reference vectors for FNV-1 32.
        (b"", 0x811C9DC5),
        (b"a", 0x050C5D7E),
        (b"ab", 0x70772D38),
        (b"abc", 0x439C2F4B),
        (b"foobar", 0x31F0B262),
    ],
)
def test_published_vectors(data: bytes, expected: int) -> None:
    assert fnv1_32(data) == expected


def test_is_fnv1_not_fnv1a() -> None:
    # FNV-1a of "a" is 0xe40c292c; the planner uses FNV-1.
    assert fnv1_32(b"a") != 0xE40C292C


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_parts_hash_as_one_write(left: bytes, right: bytes) -> None:
    assert fnv1_32(left, right) == fnv1_32(left + right) == go_fnv32(left + right)
    assert 0 <= fnv1_32(left) < 2**32
