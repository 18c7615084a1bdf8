"""A change to the hub: one object added, updated or deleted, as a watch reports it."""

from __future__ import annotations

from dataclasses import dataclass

from clusterplace.api import KubeObject

__all__ = ["Key", "ObjectChange", "against"]

Key = tuple[str, str]  # a Placement's (namespace, name): the work queue's key


@dataclass(frozen=True)
class ObjectChange:
    """``old`` is None for an addition, ``new`` is None for a deletion."""

    old: KubeObject | None
    new: KubeObject | None

    def __post_init__(self) -> None:
        if self.old is None and self.new is None:
            raise ValueError("a change needs an old or a new object")

    @property
    def obj(self) -> KubeObject:
        """The object as it is now (or was, before it was deleted)."""
        found = self.new if self.new is not None else self.old
        assert found is not None
        return found

    @property
    def verb(self) -> str:
        if self.old is None:
            return "added"
        return "deleted" if self.new is None else "updated"

    def __str__(self) -> str:
        return f"{self.obj.ref} {self.verb}"


def against(change: ObjectChange, current: KubeObject | None) -> ObjectChange | None:
    """``change`` as it moves a cache that holds ``current`` for its object: from what
    the cache holds to what the change brings (a watch's ``old`` may be stale), or None
    when it brings nothing new."""
    if change.new is None and current is None:
        return None
    if change.new is not None and current == change.new:
        return None
    return ObjectChange(current, change.new)
