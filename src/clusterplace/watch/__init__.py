"""Folders of input files watched as they change: each file read once it has settled,
the last good version of each file in force while an edit is invalid, odd entries and
folders that cannot be listed reported once. The directory hub (``controller --hub``)
and ``route --watch`` both read their inputs through :class:`WatchedFolder`; what a file
holds (typed objects, raw documents) is each one's own :meth:`WatchedFolder.parse`.

This package knows nothing of hubs, controllers or outputs: it sits below them (an
import-linter contract)."""

from clusterplace.watch.folder import (
    SETTLE_EMPTY_S,
    SETTLE_S,
    Change,
    KeptVersions,
    WatchedFolder,
    read_regular_text,
)

__all__ = [
    "SETTLE_EMPTY_S",
    "SETTLE_S",
    "Change",
    "KeptVersions",
    "WatchedFolder",
    "read_regular_text",
]
