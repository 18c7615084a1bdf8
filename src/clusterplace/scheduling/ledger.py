"""What every step of a scheduling run saw of the other placements' decisions.

Placements are scheduled one after another, and Balance scores a placement by how
many decisions of the others name each cluster at that moment. To recompute one
placement of a run without replaying the placements before it, the ledger keeps:

- the decision counts at every step, as checkpoints every :data:`CHECKPOINT` steps
  plus the placements' own decisions in between;
- for each cluster, the steps whose placement selected it (so the count a cluster had
  at any step is a binary search away, for every step at once);
- for each step that ran Balance: the largest count it saw, and which clusters it
  could choose from (a bit matrix, clusters by steps).

:meth:`Ledger.sensitive` answers which later steps a changed count can reach.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence

import numpy as np

__all__ = ["CHECKPOINT", "Ledger", "view_max"]

CHECKPOINT = 32  # steps between stored count vectors

_NONE = np.zeros(0, dtype=np.int64)


def view_max(
    counts: np.ndarray, own: np.ndarray, outside: Counter[str], own_outside: Counter[str]
) -> int:
    """The largest count Balance divides by: every cluster's count without the
    placement's own decisions (``own``: positions, with repeats), names outside the
    fleet included."""
    if len(own):
        counts = counts.copy()
        np.subtract.at(counts, own, 1)
    largest = int(counts.max()) if len(counts) else 0
    return max(largest, max((c - own_outside.get(n, 0) for n, c in outside.items()), default=0))


class Ledger:
    """Counts and Balance inputs for every step of a run over ``size`` clusters.

    ``base``/``base_outside``: counts of the input decisions (fleet clusters by
    position, other names by name). ``old[j]``/``old_outside[j]``: step j's own input
    decisions; ``new[j]``: the positions it holds after its step (its input ones when
    it was not scheduled).
    """

    def __init__(
        self,
        base: np.ndarray,
        base_outside: Counter[str],
        old: Sequence[np.ndarray],
        old_outside: Sequence[Counter[str]],
        new: Sequence[np.ndarray],
    ) -> None:
        self.size = len(base)
        self.steps = len(old)
        self.base = base.copy()
        self.base_outside = Counter(base_outside)
        self.old = list(old)
        self.old_outside = list(old_outside)
        self.new = list(new)
        self._outside_steps = [j for j, found in enumerate(self.old_outside) if found]
        # Balance's inputs per step: the weight it ran with (0: it did not run), the
        # largest count it saw, and its feasible clusters (bit j of row c).
        self.balance = np.zeros(self.steps, dtype=bool)
        self.maxima = np.zeros(self.steps, dtype=np.int64)
        self._feasible = np.zeros((self.size, (self.steps + 7) // 8), dtype=np.uint8)
        # Per cluster: the steps whose placement selects it, and (repeats kept) whose
        # input decisions name it.
        self._selected_by: list[list[int]] = [[] for _ in range(self.size)]
        self._named_by: dict[int, list[int]] = {}
        for j, positions in enumerate(self.new):
            for position in positions.tolist():
                self._selected_by[position].append(j)
        for j, positions in enumerate(self.old):
            for position in positions.tolist():
                self._named_by.setdefault(position, []).append(j)
        self._checkpoints = self._build_checkpoints()

    def _build_checkpoints(self) -> np.ndarray:
        rows = np.zeros(((self.steps + CHECKPOINT - 1) // CHECKPOINT + 1, self.size), np.int64)
        running = self.base.copy()
        for j in range(self.steps):
            if j % CHECKPOINT == 0:
                rows[j // CHECKPOINT] = running
            self._advance(running, j)
        return rows

    def _advance(self, counts: np.ndarray, j: int) -> None:
        """Apply step j's change of decisions to ``counts`` (the counts before it)."""
        np.add.at(counts, self.new[j], 1)
        if len(self.old[j]):
            np.subtract.at(counts, self.old[j], 1)

    def counts_at(self, j: int) -> np.ndarray:
        """The counts of fleet clusters just before step j (a new array)."""
        start = j - j % CHECKPOINT
        counts: np.ndarray = self._checkpoints[start // CHECKPOINT].copy()
        if start < j:
            np.add.at(counts, np.concatenate(self.new[start:j]), 1)
            olds = [o for o in self.old[start:j] if len(o)]
            if olds:
                np.subtract.at(counts, np.concatenate(olds), 1)
        return counts

    def outside_at(self, j: int) -> Counter[str]:
        """Counts of names outside the fleet just before step j (scheduling a placement
        only ever removes such names: it selects fleet clusters)."""
        outside = Counter(self.base_outside)
        for i in self._outside_steps[: bisect.bisect_left(self._outside_steps, j)]:
            outside.subtract(self.old_outside[i])
        return +outside

    def record_run(self, ran: Sequence[bool], feasible: Sequence[np.ndarray]) -> None:
        """Balance's inputs at every step of the recorded run: ``ran[j]`` whether step j
        ran Balance, ``feasible[j]`` the positions it scored."""
        running = self.base.copy()
        outside = Counter(self.base_outside)
        for j in range(self.steps):
            if ran[j]:
                maximum = view_max(running, self.old[j], outside, self.old_outside[j])
                self._set_balance(j, maximum, feasible[j], clear=False)
            self._advance(running, j)
            outside.subtract(self.old_outside[j])

    def record_balance(self, j: int, ran: bool, maximum: int, feasible: np.ndarray) -> None:
        """Step j's Balance inputs after it was scheduled again."""
        if ran:
            self._set_balance(j, maximum, feasible, clear=True)
        else:
            self.balance[j] = False
            self._feasible[:, j >> 3] &= ~np.uint8(1 << (j & 7))

    def _set_balance(self, j: int, maximum: int, feasible: np.ndarray, clear: bool) -> None:
        self.balance[j] = True
        self.maxima[j] = maximum
        column, bit = j >> 3, np.uint8(1 << (j & 7))
        if clear:
            self._feasible[:, column] &= ~bit
        self._feasible[feasible, column] |= bit

    def feasible_at(self, position: int) -> np.ndarray:
        """For every step: whether Balance ran there with cluster ``position`` feasible."""
        row = self._feasible[position]
        return np.unpackbits(row, count=self.steps, bitorder="little").view(bool)

    def select(self, j: int, positions: np.ndarray) -> dict[int, int]:
        """Step j now holds ``positions``; returns the change of count per cluster."""
        before = Counter(self.new[j].tolist())
        after = Counter(positions.tolist())
        after.subtract(before)
        delta = {p: d for p, d in after.items() if d}
        self.new[j] = positions
        later = j // CHECKPOINT + 1
        for position, change in delta.items():
            self._checkpoints[later:, position] += change
            steps = self._selected_by[position]
            if change > 0:
                for _ in range(change):
                    bisect.insort(steps, j)
            else:
                for _ in range(-change):
                    steps.pop(bisect.bisect_left(steps, j))
        return delta

    def named_by(self, position: int) -> list[int]:
        """The steps whose input decisions name cluster ``position``."""
        return sorted(set(self._named_by.get(position, ())))

    def view_counts(self, position: int, steps: np.ndarray) -> np.ndarray:
        """Balance's count of cluster ``position`` at each of ``steps`` (ascending): its
        count before the step, less what the step's own input decisions name."""
        selected = np.asarray(self._selected_by[position], dtype=np.int64)
        counts: np.ndarray = self.base[position] + np.searchsorted(selected, steps, side="left")
        named = self._named_by.get(position)
        if named:
            counts -= np.searchsorted(np.asarray(named, dtype=np.int64), steps, side="right")
        return counts

    def sensitive(self, position: int, after: int, shift: int) -> np.ndarray:
        """Steps after ``after`` whose Balance scores may differ now that cluster
        ``position`` counts ``shift`` more (in total, relative to the recorded run) from
        step ``after`` on. Conservative: a step is listed when the cluster is feasible
        there, when its count now exceeds the recorded maximum, or when it held the
        maximum and dropped (the maximum may have fallen)."""
        steps = np.arange(after + 1, self.steps, dtype=np.int64)
        ran = self.balance[after + 1 :]
        if shift == 0 or not ran.any():
            return _NONE
        now = self.view_counts(position, steps)
        then = now - shift
        maxima = self.maxima[after + 1 :]
        touched = self.feasible_at(position)[after + 1 :] | (now > maxima)
        touched |= (then == maxima) & (now < maxima)
        return steps[ran & touched]
