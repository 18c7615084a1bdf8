"""An inverted index of label sets, so a selector picks its matches with array operations.

For each key and value the index holds the positions of the label sets that have it;
a selector then becomes a few boolean masks ANDed together, which on a million label
sets costs milliseconds instead of a million ``matches`` calls. Results are exactly
those of :meth:`Selector.matches` (a property test checks it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from clusterplace.labels.requirement import Operator, Requirement
from clusterplace.labels.selector import Selector
from clusterplace.labels.validation import parse_go_int64

if TYPE_CHECKING:
    import numpy as np

# numpy is imported where an index is built or read, not with the module: parsing and
# matching selectors (the CLI's everyday work) never needs it, and it costs more to
# import than the rest of clusterplace.labels.

__all__ = ["LabelIndex"]


class LabelIndex:
    """Positions of label sets by key and value; ``select`` evaluates a selector."""

    def __init__(self, label_sets: Iterable[Mapping[str, str]]) -> None:
        import numpy as np

        postings: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        size = 0
        for position, labels in enumerate(label_sets):
            size = position + 1
            for key, value in labels.items():
                postings[key][value].append(position)
        self.size = size
        self._values: dict[str, dict[str, np.ndarray]] = {
            key: {value: np.array(ids, dtype=np.int64) for value, ids in by_value.items()}
            for key, by_value in postings.items()
        }
        self._with_key: dict[str, np.ndarray] = {
            key: np.sort(np.concatenate(list(by_value.values())))
            for key, by_value in self._values.items()
        }

    def _mask(self, positions: Iterable[np.ndarray]) -> np.ndarray:
        import numpy as np

        mask = np.zeros(self.size, dtype=bool)
        for ids in positions:
            mask[ids] = True
        return mask

    def _requirement(self, req: Requirement) -> np.ndarray:
        import numpy as np

        by_value = self._values.get(req.key, {})
        op = req.operator
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return self._mask(by_value[v] for v in set(req.values) if v in by_value)
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return ~self._mask(by_value[v] for v in set(req.values) if v in by_value)
        if op == Operator.EXISTS:
            return self._mask([self._with_key.get(req.key, np.zeros(0, dtype=np.int64))])
        if op == Operator.DOES_NOT_EXIST:
            return ~self._mask([self._with_key.get(req.key, np.zeros(0, dtype=np.int64))])
        bound = parse_go_int64(req.values[0]) if len(req.values) == 1 else None
        if bound is None:
            return np.zeros(self.size, dtype=bool)
        greater = op == Operator.GREATER_THAN
        chosen = []
        for value, ids in by_value.items():
            number = parse_go_int64(value)
            if number is not None and (number > bound if greater else number < bound):
                chosen.append(ids)
        return self._mask(chosen)

    def select(self, selector: Selector) -> np.ndarray:
        """A boolean mask: True where the label set at that position matches ``selector``."""
        import numpy as np

        if selector.is_nothing:
            return np.zeros(self.size, dtype=bool)
        mask = np.ones(self.size, dtype=bool)
        for req in selector.requirements:
            mask &= self._requirement(req)
        return mask

    def positions(self, selector: Selector) -> np.ndarray:
        """The positions (ascending) of the label sets that match ``selector``."""
        import numpy as np

        return np.flatnonzero(self.select(selector))
