"""JSON merge patches (RFC 7386), computed: what turns one JSON document into another.

Pure: the scheduler's what-if (``patches()``) and the Kubernetes writes (the
controller's status and label patches, apply-module's updates) compute theirs here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["merge_patch"]


def merge_patch(before: Any, after: Any) -> Any:
    """The JSON merge patch (RFC 7386) that turns ``before`` into ``after``: ``{}`` when
    they are equal. A key ``after`` lacks is ``None`` (removed), keys ``before``'s
    order first; a value that is not an object on both sides is replaced whole."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    patch: dict[str, Any] = {key: None for key in before if key not in after}
    for key, value in after.items():
        if key not in before:
            patch[key] = value
        elif before[key] != value:
            patch[key] = merge_patch(before[key], value)
    return patch
