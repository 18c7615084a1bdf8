"""The ledger against a straightforward replay of the run it records."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.scheduling.ledger import CHECKPOINT, Ledger, view_max

SIZE = 6


positions = st.lists(st.integers(0, SIZE - 1), max_size=4).map(
    lambda found: np.asarray(found, dtype=np.int64)
)
Run = tuple[np.ndarray, Counter[str], list[np.ndarray], list[Counter[str]], list[np.ndarray]]


@st.composite
def runs(draw: st.DrawFn) -> Run:
    steps = draw(st.integers(1, 3 * CHECKPOINT + 3))
    base = np.asarray(draw(st.lists(st.integers(0, 5), min_size=SIZE, max_size=SIZE)), np.int64)
    names = st.sampled_from(["gone-a", "gone-b"])
    old = [draw(positions) for _ in range(steps)]
    old_outside = [Counter(draw(st.lists(names, max_size=2))) for _ in range(steps)]
    base_outside: Counter[str] = Counter()
    for found in old_outside:
        base_outside.update(found)  # every input decision is counted in the base
    for held in old:
        np.add.at(base, held, 1)
    new = [draw(positions) for _ in range(steps)]
    return base, base_outside, old, old_outside, new


def _replay(base: np.ndarray, old: list[np.ndarray], new: list[np.ndarray]) -> list[np.ndarray]:
    """counts[j]: every cluster's count just before step j."""
    running, seen = base.copy(), []
    for j in range(len(old)):
        seen.append(running.copy())
        np.add.at(running, new[j], 1)
        np.subtract.at(running, old[j], 1)
    return seen


@settings(max_examples=150, deadline=None)
@given(runs())
def test_counts_and_outside_names_at_every_step(run: Run) -> None:
    base, base_outside, old, old_outside, new = run
    ledger = Ledger(base, base_outside, old, old_outside, new)
    expected = _replay(base, old, new)
    outside = Counter(base_outside)
    for j in range(len(old)):
        assert ledger.counts_at(j).tolist() == expected[j].tolist()
        assert ledger.outside_at(j) == +outside
        outside.subtract(old_outside[j])
        steps = np.arange(j, len(old), dtype=np.int64)
        for position in range(SIZE):
            own = Counter(old[j].tolist())[position]
            assert ledger.view_counts(position, steps)[0] == expected[j][position] - own


@settings(max_examples=150, deadline=None)
@given(runs(), st.data())
def test_select_keeps_every_later_count_right(run: Run, data: st.DataObject) -> None:
    base, base_outside, old, old_outside, new = run
    ledger = Ledger(base, base_outside, old, old_outside, new)
    j = data.draw(st.integers(0, len(old) - 1))
    chosen = data.draw(positions)
    delta = ledger.select(j, chosen)
    before, after = Counter(new[j].tolist()), Counter(chosen.tolist())
    assert delta == {p: after[p] - before[p] for p in range(SIZE) if after[p] != before[p]}
    changed = [*new[:j], chosen, *new[j + 1 :]]
    expected = _replay(base, old, changed)
    for i in range(len(old)):
        assert ledger.counts_at(i).tolist() == expected[i].tolist()


def test_view_max_leaves_out_the_placements_own_decisions() -> None:
    counts = np.asarray([3, 5, 1], dtype=np.int64)
    own = np.asarray([1, 1], dtype=np.int64)
    assert view_max(counts, own, Counter(), Counter()) == 3
    assert counts.tolist() == [3, 5, 1]  # the caller's counts are not changed
    assert view_max(counts, own, Counter({"gone": 7}), Counter({"gone": 2})) == 5
    assert view_max(np.zeros(0, dtype=np.int64), own[:0], Counter(), Counter()) == 0


def test_balance_inputs_are_recorded_and_replaced_per_step() -> None:
    base = np.zeros(SIZE, dtype=np.int64)
    old = [np.zeros(0, dtype=np.int64)] * 3
    new = [np.asarray([0]), np.asarray([0, 1]), np.asarray([2])]
    ledger = Ledger(base, Counter(), old, [Counter()] * 3, new)
    ledger.record_run([True, False, True], [np.asarray([0, 1]), np.asarray([]), np.asarray([1])])
    assert ledger.balance.tolist() == [True, False, True]
    assert ledger.maxima.tolist() == [0, 0, 2]  # cluster 0 was selected by steps 0 and 1
    assert ledger.feasible_at(1).tolist() == [True, False, True]
    ledger.record_balance(2, ran=True, maximum=4, feasible=np.asarray([0]))
    assert ledger.feasible_at(1).tolist() == [True, False, False]
    assert ledger.feasible_at(0).tolist() == [True, False, True]
    ledger.record_balance(0, ran=False, maximum=0, feasible=np.asarray([], dtype=np.int64))
    assert ledger.balance.tolist() == [False, False, True]
    assert ledger.feasible_at(0).tolist() == [False, False, True]


def test_sensitive_lists_later_balance_steps_the_change_can_reach() -> None:
    base = np.zeros(SIZE, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    new = [np.asarray([0]), np.asarray([1]), np.asarray([2]), np.asarray([3])]
    ledger = Ledger(base, Counter(), [empty] * 4, [Counter()] * 4, new)
    ledger.record_run([True, True, True, True], [np.asarray([0, 1])] * 2 + [np.asarray([4])] * 2)
    # Cluster 0 is feasible at step 1 only (after step 0): that step may change.
    assert ledger.sensitive(0, after=0, shift=1).tolist() == [1]
    assert ledger.maxima.tolist() == [0, 1, 1, 1]
    # Step 0 now also selects cluster 5 twice: nowhere feasible, but its count exceeds
    # every later recorded maximum, so each later Balance step may score differently.
    assert ledger.select(0, np.asarray([0, 5, 5])) == {5: 2}
    assert ledger.sensitive(5, after=0, shift=2).tolist() == [1, 2, 3]
    assert ledger.sensitive(5, after=0, shift=0).tolist() == []
