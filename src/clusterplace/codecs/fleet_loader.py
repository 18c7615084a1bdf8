"""A fleet from input texts: read, validate, index."""

from __future__ import annotations

import os
from collections.abc import Sequence

from clusterplace.api.base import KubeObject
from clusterplace.api.cluster import ManagedCluster
from clusterplace.api.fleet import Fleet
from clusterplace.api.profile import described, ocm_rank
from clusterplace.codecs.loader import LoadError, decode, read_documents
from clusterplace.codecs.sources import Source, expand_sources
from clusterplace.errors import InputError

__all__ = ["load_fleet"]


def load_fleet(
    sources: str | os.PathLike[str] | Sequence[Source | str | os.PathLike[str]],
    *,
    recursive: bool = False,
) -> Fleet:
    """Read, validate and index ``sources``; an object defined twice is an error naming
    both places. Raises :class:`LoadError` listing every problem.

    ``sources`` are :class:`Source` s (from :func:`expand_sources`) or paths of files
    and folders, read as ``-f`` reads them (``recursive``: subfolders too); given both,
    the sources are read first, then the paths. One path may be given alone.
    """
    given = [sources] if isinstance(sources, str | os.PathLike) else list(sources)
    ready = [s for s in given if isinstance(s, Source)]
    paths = [os.fspath(s) for s in given if not isinstance(s, Source)]
    if paths:
        ready += expand_sources(paths, recursive=recursive)
    loaded = decode(read_documents(ready))
    fleet = Fleet(unknown=loaded.unknown)
    problems: list[InputError] = []
    for obj in loaded.objects:
        earlier = fleet.get(obj)
        if isinstance(obj, ManagedCluster) and isinstance(earlier, ManagedCluster):
            ranks = ocm_rank(obj), ocm_rank(earlier)
            if ranks[0] is not None and ranks[1] is not None and ranks[0] != ranks[1]:
                # OCM's own copies of one cluster (its ManagedCluster, the profiles its
                # hub wrote for it in consumer namespaces): one cluster, the first rank's.
                if ranks[0] < ranks[1]:
                    fleet.add(obj)
                continue
        if earlier is not None:
            here = loaded.document_of(obj)
            there = loaded.document_of(earlier)
            assert here is not None and there is not None
            problems.append(InputError(_twice(obj, earlier, there.location()), here.location()))
            continue
        fleet.add(obj)
    if problems:
        raise LoadError(problems)
    return fleet


def _twice(obj: KubeObject, earlier: KubeObject, there: object) -> str:
    here_is, there_is = described(obj), described(earlier)
    if here_is == obj.ref and there_is == earlier.ref:
        return f"{obj.ref} is defined twice; the first definition is at {there}"
    # A cluster from a profile: one cluster name, two descriptions. Never merged.
    return (
        f"describes the same cluster {obj.name} as {there}: a cluster comes from one "
        "ManagedCluster or one ClusterProfile, never both merged; remove or rename one of them"
    )
