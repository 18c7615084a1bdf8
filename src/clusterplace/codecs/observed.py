"""Reading ``--observed DIR``: one folder per member cluster, holding the objects read
from that cluster (``kubectl get deploy,rs,pods -o yaml > DIR/<cluster>/objects.yaml``)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from clusterplace.codecs.loader import describe, read_documents
from clusterplace.codecs.sources import expand_sources
from clusterplace.errors import InputError, InputErrors, Location
from clusterplace.federation import ClusterState, ObservedError, check_observed, is_workload

__all__ = ["read_observed"]


def read_observed(
    directory: Path, clusters: Collection[str]
) -> tuple[dict[str, ClusterState], list[str]]:
    """The state of every cluster folder of ``directory`` (read recursively), and
    warnings for folders of clusters the fleet does not have and for stray files.

    Raises :class:`InputErrors` naming file, line, object and field for every observed
    object that does not parse, and for a workload given twice in one cluster.
    """
    if not directory.is_dir():
        raise InputError("--observed must be a directory", Location(file=str(directory)))
    states: dict[str, ClusterState] = {}
    warnings: list[str] = []
    problems: list[InputError] = []
    for entry in sorted(directory.iterdir()):
        if not entry.is_dir():
            warnings.append(f"{entry}: not a cluster folder; ignored")
            continue
        if entry.name not in clusters:
            warnings.append(f"{entry}: no ManagedCluster named {entry.name!r}; ignored")
            continue
        documents = read_documents(expand_sources([str(entry)], recursive=True))
        seen: dict[tuple[str, str, str], str] = {}
        for doc in documents:
            try:
                check_observed(doc.data)
            except ObservedError as err:
                problems.extend(InputError(msg, doc.location(path)) for path, msg in err.problems)
                continue
            if is_workload(doc.data):
                meta = doc.data["metadata"]
                ident = (
                    str(doc.data["kind"]),
                    str(meta.get("namespace") or "default"),
                    meta["name"],
                )
                where = str(doc.location())
                if ident in seen:
                    problems.append(
                        InputError(
                            f"{describe(doc.data)} is observed twice in cluster "
                            f"{entry.name!r} (also at {seen[ident]})",
                            doc.location(),
                        )
                    )
                seen[ident] = where
        states[entry.name] = ClusterState.of(d.data for d in documents)
    if problems:
        raise InputErrors(problems)
    return states, warnings
