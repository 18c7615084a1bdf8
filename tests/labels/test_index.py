"""LabelIndex.select agrees exactly with Selector.matches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace import labels
from clusterplace.labels import LabelIndex, Selector

KEYS = ["a", "b", "example.com/c"]
VALUES = ["", "x", "y", "1", "01", "+2", "-5", "10"]
label_sets = st.lists(
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3), max_size=30
)
requirement_texts = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(KEYS), st.sampled_from(VALUES[1:4])),
    st.builds(lambda k, v: f"{k}!={v}", st.sampled_from(KEYS), st.sampled_from(VALUES[1:4])),
    st.builds(
        lambda k, vs: f"{k} in ({','.join(vs)})",
        st.sampled_from(KEYS),
        st.lists(st.sampled_from(VALUES[1:4]), min_size=1, max_size=3),
    ),
    st.builds(
        lambda k, vs: f"{k} notin ({','.join(vs)})",
        st.sampled_from(KEYS),
        st.lists(st.sampled_from(VALUES[1:4]), min_size=1, max_size=3),
    ),
    st.builds(lambda k: k, st.sampled_from(KEYS)),
    st.builds(lambda k: f"!{k}", st.sampled_from(KEYS)),
    st.builds(lambda k, n: f"{k}>{n}", st.sampled_from(KEYS), st.integers(0, 12)),
    st.builds(lambda k, n: f"{k}<{n}", st.sampled_from(KEYS), st.integers(0, 12)),
)
selectors = st.lists(requirement_texts, max_size=4).map(lambda parts: labels.parse(",".join(parts)))


@settings(max_examples=300)
@given(label_sets, selectors)
def test_select_matches_selector_matches(sets: list[dict[str, str]], selector: Selector) -> None:
    index = LabelIndex(sets)
    expected = [i for i, s in enumerate(sets) if selector.matches(s)]
    assert index.positions(selector).tolist() == expected


def test_nothing_and_everything() -> None:
    index = LabelIndex([{"a": "x"}, {}])
    assert index.positions(Selector.nothing()).tolist() == []
    assert index.positions(Selector.everything()).tolist() == [0, 1]
