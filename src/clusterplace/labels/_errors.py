"""The error every label-selector problem raises, with the parser's position."""

from __future__ import annotations

from clusterplace.errors import ClusterplaceError


class SelectorError(ClusterplaceError, ValueError):
    """An invalid selector, requirement, key or value.

    ``str()`` is the message upstream Kubernetes gives for the same input.
    ``position`` is the 0-based offset into the parsed text where the problem
    was found, when the error comes from the string parser.
    """

    def __init__(self, message: str, *, text: str | None = None, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.text = text
        self.position = position

    def pointer(self) -> str:
        """The parsed text with a caret under the offending position (or ``""``)."""
        if self.text is None or self.position is None:
            return ""
        return f"  {self.text}\n  {' ' * self.position}^"
