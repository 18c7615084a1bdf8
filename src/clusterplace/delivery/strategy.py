"""An OCM ``RolloutStrategy`` (``cluster.open-cluster-management.io/v1alpha1``) read from
its JSON form, and the strategy's own arithmetic: deadlines and rollout sizes.

The dict is decoded as Go's ``encoding/json`` decodes it into upstream's structs: keys
match field names exactly or else without regard to case (a later key for the same field
wins), unknown keys are ignored, ``null`` leaves a field at its zero value, and a value of
the wrong JSON type is an error wherever it is, even in a section the strategy's type does
not use. The meaning of the values (a deadline's syntax, a percentage) is checked only
where the rollout uses them, and in upstream's order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clusterplace.delivery.gostd import MAX_INT64, GoSyntaxError, parse_float
from clusterplace.durations import DurationError, parse_duration_ns
from clusterplace.errors import ClusterplaceError

__all__ = [
    "ALL",
    "MAX_DURATION",
    "PROGRESSIVE",
    "PROGRESSIVE_PER_GROUP",
    "IntOrString",
    "MandatoryGroup",
    "RolloutStrategyError",
    "Strategy",
    "StrategySection",
    "calculate_rollout_size",
    "decode_strategy",
    "parse_rollout_size",
    "parse_timeout",
]

ALL, PROGRESSIVE, PROGRESSIVE_PER_GROUP = "All", "Progressive", "ProgressivePerGroup"
MAX_DURATION = MAX_INT64  # upstream's "no deadline": time.Duration(math.MaxInt64)
_INT32 = (-(1 << 31), (1 << 31) - 1)


class RolloutStrategyError(ClusterplaceError, ValueError):
    """A rollout strategy upstream's rollout handler refuses (or cannot decode)."""


@dataclass(frozen=True)
class IntOrString:
    """Kubernetes' ``intstr.IntOrString``: an int32, or a string (here: a percentage)."""

    value: int | str = 0

    @property
    def is_string(self) -> bool:
        return isinstance(self.value, str)


@dataclass(frozen=True)
class MandatoryGroup:
    """One entry of ``mandatoryDecisionGroups``: a group name, or else a group index."""

    group_name: str = ""
    group_index: int = 0


@dataclass(frozen=True)
class StrategySection:
    """The fields of ``all``, ``progressive`` or ``progressivePerGroup`` (those a section
    does not have stay at their zero values): ``minSuccessTime`` in nanoseconds,
    ``progressDeadline`` as written."""

    min_success_time: int = 0
    progress_deadline: str = ""
    max_failures: IntOrString = IntOrString()
    mandatory_decision_groups: tuple[MandatoryGroup, ...] = ()
    max_concurrency: IntOrString = IntOrString()


@dataclass(frozen=True)
class Strategy:
    """A decoded ``RolloutStrategy``; a missing section is None."""

    type: str = ALL
    all: StrategySection | None = None
    progressive: StrategySection | None = None
    progressive_per_group: StrategySection | None = None


# --- decoding, as encoding/json into upstream's structs ---------------------------------

_CONFIG = ("minSuccessTime", "progressDeadline", "maxFailures")
_SECTION_FIELDS = {
    "all": _CONFIG,
    "progressive": (*_CONFIG, "mandatoryDecisionGroups", "maxConcurrency"),
    "progressivePerGroup": (*_CONFIG, "mandatoryDecisionGroups"),
}
_TOP_FIELDS = ("type", "all", "progressive", "progressivePerGroup")
_GROUP_FIELDS = ("groupName", "groupIndex")

# Non-ASCII letters whose Go case fold is an ASCII letter: the only non-ASCII text that
# can match an ASCII field name.
_FOLD_TO_ASCII = {"ſ": "S", "\u212a": "K", "ı": "I"}


def _fold(text: str) -> str:
    if text.isascii():
        return text.upper()
    return "".join(ch.upper() if ch.isascii() else _FOLD_TO_ASCII.get(ch, ch) for ch in text)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value!r}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def _fields(obj: object, names: tuple[str, ...], where: str) -> dict[str, Any]:
    """The known fields of a JSON object, matched as encoding/json matches them."""
    if not isinstance(obj, Mapping):
        raise RolloutStrategyError(f"{where}: cannot decode {_json_type(obj)} as an object")
    folded = {_fold(name): name for name in names}
    found: dict[str, Any] = {}
    for key, value in obj.items():
        if not isinstance(key, str):
            raise RolloutStrategyError(f"{where}: object keys must be strings, not {key!r}")
        name = key if key in names else folded.get(_fold(key))
        if name is not None:
            found[name] = value
    return found


def _string(value: object, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RolloutStrategyError(f"{where}: cannot decode {_json_type(value)} as a string")
    return value


def _int32(value: object, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise RolloutStrategyError(f"{where}: cannot decode {_json_type(value)} as an int32")
    if not _INT32[0] <= value <= _INT32[1]:
        raise RolloutStrategyError(f"{where}: {value} does not fit an int32")
    return value


def _int_or_string(value: object, where: str) -> IntOrString:
    if isinstance(value, str):
        return IntOrString(value)
    return IntOrString(_int32(value, where))


def _duration(value: object, where: str) -> int:
    # metav1.Duration decodes even `null` through time.ParseDuration (of ""), which fails.
    if not isinstance(value, str):
        if value is None:
            raise RolloutStrategyError(f'{where}: time: invalid duration ""')
        raise RolloutStrategyError(f"{where}: cannot decode {_json_type(value)} as a duration")
    try:
        return parse_duration_ns(value)
    except DurationError as err:
        raise RolloutStrategyError(f"{where}: {err}") from None


def _mandatory(value: object, where: str) -> tuple[MandatoryGroup, ...]:
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise RolloutStrategyError(f"{where}: cannot decode {_json_type(value)} as an array")
    groups = []
    for position, item in enumerate(value):
        at = f"{where}[{position}]"
        if item is None:
            groups.append(MandatoryGroup())
            continue
        fields = _fields(item, _GROUP_FIELDS, at)
        groups.append(
            MandatoryGroup(
                _string(fields.get("groupName"), f"{at}.groupName"),
                _int32(fields.get("groupIndex"), f"{at}.groupIndex"),
            )
        )
    return tuple(groups)


def _section(value: object, name: str) -> StrategySection | None:
    if value is None:
        return None
    fields = _fields(value, _SECTION_FIELDS[name], name)
    return StrategySection(
        min_success_time=(
            _duration(fields["minSuccessTime"], f"{name}.minSuccessTime")
            if "minSuccessTime" in fields
            else 0
        ),
        progress_deadline=_string(fields.get("progressDeadline"), f"{name}.progressDeadline"),
        max_failures=_int_or_string(fields.get("maxFailures"), f"{name}.maxFailures"),
        mandatory_decision_groups=_mandatory(
            fields.get("mandatoryDecisionGroups"), f"{name}.mandatoryDecisionGroups"
        ),
        max_concurrency=_int_or_string(fields.get("maxConcurrency"), f"{name}.maxConcurrency"),
    )


def decode_strategy(obj: object) -> Strategy:
    """A ``RolloutStrategy`` from its JSON form (a dict). A missing or empty ``type`` is
    ``All``, the API's default; any other type than the three is an error, as upstream's
    handler reports it. Raises :class:`RolloutStrategyError`."""
    if obj is None:
        return Strategy()
    if isinstance(obj, Strategy):
        return obj
    fields = _fields(obj, _TOP_FIELDS, "strategy")
    kind = _string(fields.get("type"), "type") or ALL
    if kind not in (ALL, PROGRESSIVE, PROGRESSIVE_PER_GROUP):
        raise RolloutStrategyError(f"incorrect rollout strategy type {kind}")
    return Strategy(
        type=kind,
        all=_section(fields.get("all"), "all"),
        progressive=_section(fields.get("progressive"), "progressive"),
        progressive_per_group=_section(fields.get("progressivePerGroup"), "progressivePerGroup"),
    )


# --- the strategy's arithmetic -----------------------------------------------------------

# Upstream's pattern, unanchored at its end on the first branch: a deadline must start
# with digits and h, m, s or "|", or end in "None"; time.ParseDuration then reads it all.
_TIMEOUT_PATTERN = re.compile(r"^(([0-9])+[h|m|s])|None\Z")


def parse_timeout(text: str) -> int:
    """A ``progressDeadline`` in nanoseconds; ``""`` and ``"None"`` mean no deadline
    (:data:`MAX_DURATION`). Raises :class:`RolloutStrategyError`."""
    if text in ("", "None"):
        return MAX_DURATION
    if _TIMEOUT_PATTERN.search(text) is None:
        raise RolloutStrategyError("invalid timeout format")
    try:
        return parse_duration_ns(text)
    except DurationError as err:
        raise RolloutStrategyError(str(err)) from None


def _percent(text: str) -> float:
    if not text.endswith("%"):
        raise RolloutStrategyError(
            f"'{text}' is an invalid maximum threshold value: string is not a percentage"
        )
    try:
        return parse_float(text[:-1])
    except GoSyntaxError as err:
        raise RolloutStrategyError(str(err)) from None


def parse_rollout_size(threshold: IntOrString) -> None:
    """Upstream's ``parseRolloutSize``: an int, or a string ending in ``%`` whose rest is
    a Go float. Raises :class:`RolloutStrategyError`."""
    if isinstance(threshold.value, str):
        _percent(threshold.value)


def calculate_rollout_size(threshold: IntOrString, total: int, default: int) -> int:
    """Upstream's ``calculateRolloutSize``: an int as it is, a percentage of ``total``
    rounded up; a result of 0 or less, or above ``total``, gives ``default``. Raises
    :class:`RolloutStrategyError` for a string that is not a percentage."""
    if isinstance(threshold.value, str):
        share = _percent(threshold.value) / 100 * float(total)
        try:
            size = math.ceil(share)
        except (OverflowError, ValueError):
            return default  # infinite or NaN: Go's conversion gives 0 or a huge int
    else:
        size = threshold.value
    if size <= 0 or size > total:
        return default
    return size
