"""Folders of input files watched as they change: each file read once it has settled,
the last good version of each file in force while an edit is invalid, odd entries and
folders that cannot be listed reported once. The directory hub (``controller --hub``)
and ``route --watch`` both read their inputs through :class:`WatchedFolder`; what a file
holds (typed objects, raw documents) is each one's own :meth:`WatchedFolder.parse`.

Below it, the one answer to "has this file changed" (:mod:`clusterplace.watch.changes`):
stat signatures, the file watch with its rescans (:func:`watch_paths`) and its failure
policy, used by the directory hub and its OUT, ``route --watch`` (inputs and output
folder), ``get -w`` and ``serve``.

This package knows nothing of hubs, controllers or outputs: it sits below them (an
import-linter contract)."""

from clusterplace.watch.changes import (
    RESCAN_S,
    Signature,
    Signatures,
    signature,
    signature_of,
    tree_signatures,
    watch_paths,
)
from clusterplace.watch.folder import (
    SETTLE_EMPTY_S,
    SETTLE_S,
    Change,
    KeptVersions,
    WatchedFolder,
    read_regular_text,
)

__all__ = [
    "RESCAN_S",
    "SETTLE_EMPTY_S",
    "SETTLE_S",
    "Change",
    "KeptVersions",
    "Signature",
    "Signatures",
    "WatchedFolder",
    "read_regular_text",
    "signature",
    "signature_of",
    "tree_signatures",
    "watch_paths",
]
