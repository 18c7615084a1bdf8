"""Top-N selection: the combined sort key gives exactly the plain ordering (score
descending, then position), ties at the cut included, and is only used when the
scores are known to fit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.scheduling.pipeline import _Key, _top


def _plain(positions: list[int], totals: list[int], wanted: int) -> list[int]:
    ranked = sorted(zip(positions, totals, strict=True), key=lambda pt: (-pt[1], pt[0]))
    return [p for p, _ in ranked[:wanted]]


@settings(max_examples=300)
@given(
    st.integers(1, 5000),
    st.lists(st.integers(-300, 300), min_size=1, max_size=80),
    st.integers(0, 90),
    st.data(),
)
def test_combined_key_orders_as_score_then_position(
    clusters: int, totals: list[int], wanted: int, data: st.DataObject
) -> None:
    count = min(len(totals), clusters)
    positions = sorted(
        data.draw(
            st.lists(st.integers(0, clusters - 1), min_size=count, max_size=count, unique=True)
        )
    )
    totals = totals[:count]
    key = _Key.fitting(clusters, 300)
    assert key is not None
    as_arrays = (np.array(positions, dtype=np.int64), np.array(totals, dtype=np.int64))
    expected = _plain(positions, totals, wanted)
    assert _top(*as_arrays, wanted, key).tolist() == expected
    assert _top(*as_arrays, wanted).tolist() == expected


def test_no_key_when_the_totals_could_overflow() -> None:
    assert _Key.fitting(1000, None) is None
    assert _Key.fitting(1 << 20, 1 << 42) is None
    fitting = _Key.fitting(1 << 20, (1 << 42) - 2)
    assert fitting is not None
    assert fitting.stride == 1 << 20
