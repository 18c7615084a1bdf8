"""The Federation sync controller, into a :class:`~clusterplace.fedsync.target.Target`.

:class:`RouteSync` keeps what every member cluster should hold current as the inputs
change, and brings the target to it change set by change set. Each object is routed
and divided by the pure :func:`~clusterplace.federation.route_and_divide`, as ``route``
does; an object's result depends only on itself, the clusters its selector chooses
(and their observed state) and the time, so after a change only the objects it can
reach are routed again:

- an object added, removed or edited: that object;
- a cluster added, removed or relabelled: the objects whose selector now chooses it and
  did not before, or the other way round (their copies there appear or go, and a
  workload's replicas are divided again among its new set of clusters);
- a cluster's observed state changed: the workloads routed to it;
- a pod observed unschedulable turning 60 s old: the workloads routed to its cluster.

Upstream's sync controller in folders: objects without the annotation go to every
cluster; a copy in a cluster no longer selected is deleted (one already gone is
success); replicas are divided among the selected clusters only, and a selected cluster
planned 0 replicas keeps its copy, scaled to 0.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from clusterplace.bundles.route_dir import object_ref
from clusterplace.codecs import Document
from clusterplace.codecs.routing import located_errors
from clusterplace.errors import ClusterplaceError
from clusterplace.federation import (
    ANNOTATION,
    DivisionError,
    Routed,
    RoutingError,
    parse_cluster_selector,
    route_and_divide,
)
from clusterplace.federation.observed import ClusterState
from clusterplace.fedsync.inputs import InputState
from clusterplace.fedsync.target import ClusterChanges, Copy, CopyOutcome, Target
from clusterplace.labels import Labels, Selector
from clusterplace.outputs.dumpers import dump_yaml_stream

__all__ = ["RouteSync", "summary"]

Key = tuple[str, str]  # (cluster, copy name)


def _selector(obj: Mapping[str, Any]) -> Selector | None:
    """The object's ClusterSelector (None: every cluster). The object was checked when
    its file was read, so the annotation parses."""
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION)
    return None if value is None else parse_cluster_selector(value)


def _same(old: Mapping[Hashable, Document] | None, new: Mapping[Hashable, Document] | None) -> bool:
    if old is None or new is None:
        return old is new
    if old.keys() != new.keys():
        return False
    return all(o is new[k] or o.data == new[k].data for k, o in old.items())


class RouteSync:
    """What each member cluster should hold, kept current, and the target brought to it.

    :meth:`update` takes the inputs in force (a :class:`~.inputs.InputState`) and works
    out which copies change; :meth:`flush` carries them out in ``target`` (the first
    flush converges the whole target, as a ``route`` run does) and returns what became
    of each copy. ``clock`` is the time replicas are divided at (pods unschedulable for
    60 s count against capacity).
    """

    def __init__(
        self,
        target: Target,
        *,
        division: str = "upstream",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.target = target
        self.division = division
        self.clock = clock
        self.report = report
        self.objects: dict[str, Document] = {}  # by file name
        self.labels: dict[str, Labels] = {}
        self.observed: dict[str, dict[Hashable, Document]] | None = None
        self.states: dict[str, ClusterState] = {}
        self.routed: dict[str, Routed] = {}
        self.members: dict[str, frozenset[str]] = {}
        self.selectors: dict[str, Selector | None] = {}
        self.desired: dict[str, dict[str, Copy]] = {}  # file name -> cluster -> copy
        self.applied: dict[Key, Copy] = {}  # what the target holds, as far as known
        self.pending: set[Key] = set()  # copies whose desired state may not be applied
        self.recheck: set[Key] = set()  # copies to look at in the target again
        self.converged = False
        self.next_crossing: datetime | None = None
        self._crossings: dict[str, datetime | None] = {}
        self._rendered: dict[str, tuple[Mapping[str, Any], dict[int | None, Copy]]] = {}
        self._warned: dict[Key, str] = {}  # copies kept or refused, reported once
        self._unknown_clusters: set[str] = set()  # observed folders of no cluster

    # Working out what changes

    def update(self, snapshot: InputState) -> int:
        """Take the inputs in force; route again the objects a change can reach (and
        the workloads a passed unschedulable deadline reaches). Returns how many
        objects were routed again."""
        now = self.clock()
        affected: set[str] = set()
        for name, doc in snapshot.objects.items():
            old = self.objects.get(name)
            if old is None or (old is not doc and old.data != doc.data):
                affected.add(name)
        gone = self.objects.keys() - snapshot.objects.keys()
        relabelled = {
            c
            for c in snapshot.labels.keys() | self.labels.keys()
            if snapshot.labels.get(c) != self.labels.get(c)
        }
        if len(relabelled) * 2 > len(snapshot.labels):
            affected.update(snapshot.objects)  # most of the fleet: route everything again
        elif relabelled:
            for name, members in self.members.items():
                if name in affected or name in gone:
                    continue
                selector = self.selectors[name]
                for cluster in relabelled:
                    labels = snapshot.labels.get(cluster)
                    chosen = labels is not None and (selector is None or selector.matches(labels))
                    if chosen != (cluster in members):
                        affected.add(name)
                        break
        observed = self._observe(snapshot.observed)
        due = {c for c, moment in self._crossings.items() if moment is not None and moment < now}
        if observed or due:
            reached = observed | due
            affected.update(
                name
                for name, routed in self.routed.items()
                if routed.division is not None and not self.members[name].isdisjoint(reached)
            )
        self.objects = dict(snapshot.objects)
        self.labels = dict(snapshot.labels)
        for name in gone:
            self._drop(name)
        self._route(sorted(n for n in affected if n in self.objects), now)
        self._crossing(observed | due, now)
        self._note_unknown_clusters()
        return len(affected)

    def _observe(self, observed: dict[str, dict[Hashable, Document]] | None) -> set[str]:
        """Take the objects observed per cluster; the clusters whose state changed."""
        if observed is None and self.observed is None:
            return set()
        before = self.observed or {}
        after = observed or {}
        changed = {
            c for c in before.keys() | after.keys() if not _same(before.get(c), after.get(c))
        }
        for cluster in changed:
            docs = after.get(cluster)
            if docs:
                self.states[cluster] = ClusterState.of(d.data for d in docs.values())
            else:
                self.states.pop(cluster, None)
        self.observed = observed
        return changed

    def _crossing(self, clusters: Iterable[str], now: datetime) -> None:
        for cluster in clusters:
            state = self.states.get(cluster)
            self._crossings[cluster] = state.next_unschedulable(now) if state else None
        moments = [m for m in self._crossings.values() if m is not None]
        self.next_crossing = min(moments) if moments else None

    def _note_unknown_clusters(self) -> None:
        unknown = {c for c in (self.observed or {}) if c not in self.labels}
        for cluster in sorted(unknown - self._unknown_clusters):
            self.report(
                f"warning: observed objects of {cluster!r}: no ManagedCluster named so; ignored"
            )
        self._unknown_clusters = unknown

    def _route(self, names: Sequence[str], now: datetime) -> None:
        if not names:
            return
        documents = [self.objects[n] for n in names]
        observed = self.states if self.observed is not None else None
        for _ in range(2):
            try:
                routed, _warnings = route_and_divide(
                    [d.data for d in documents],
                    self.labels,
                    observed,
                    now=now,
                    division=self.division,
                )
                break
            except (RoutingError, DivisionError) as err:
                # Every file was checked when read: this is a bug, reported; the
                # objects it names keep what they had.
                self.report(f"error: {located_errors(documents, err)}")
                bad = {p[0] for p in err.problems}
                documents = [d for i, d in enumerate(documents) if i not in bad]
        else:
            return
        # Warnings (invalid preferences) were reported when the file was read.
        for item in routed:
            self._set(item)

    def _set(self, item: Routed) -> None:
        name = item.file_name
        old = self.desired.get(name, {})
        new = self._copies(item)
        for cluster in old.keys() | new.keys():
            before, after = old.get(cluster), new.get(cluster)
            if before is after:
                continue
            if before is None or after is None or before.text != after.text:
                self.pending.add((cluster, name))
        self.desired[name] = new
        self.routed[name] = item
        self.members[name] = frozenset(item.clusters)
        self.selectors[name] = _selector(item.obj)

    def _drop(self, name: str) -> None:
        for cluster in self.desired.pop(name, {}):
            self.pending.add((cluster, name))
        for table in (self.routed, self.members, self.selectors, self._rendered):
            table.pop(name, None)

    def _copies(self, item: Routed) -> dict[str, Copy]:
        """Each cluster's copy of ``item``; the text of a copy is made once per object
        and replica count (and kept while the object is the same)."""
        cached = self._rendered.get(item.file_name)
        if cached is None or cached[0] is not item.obj:
            cached = (item.obj, {})
            self._rendered[item.file_name] = cached
        made = cached[1]
        ref = object_ref(item.obj)
        if item.division is None:
            copy = made.get(None)
            if copy is None:
                text = dump_yaml_stream([dict(item.obj)])
                copy = made[None] = Copy(ref, item.file_name, item.obj, text)
            return dict.fromkeys(item.clusters, copy)
        copies: dict[str, Copy] = {}
        for cluster in item.clusters:
            replicas = item.division.replicas(cluster)
            copy = made.get(replicas)
            if copy is None:
                manifest = item.copy_for(cluster)
                text = dump_yaml_stream([dict(manifest)])
                copy = made[replicas] = Copy(ref, item.file_name, manifest, text)
            copies[cluster] = copy
        return copies

    # Bringing the target there

    def copies_of(self, cluster: str) -> set[Key]:
        """The copies of ``cluster``, desired or held (to look at again)."""
        keys = {(cluster, name) for name, copies in self.desired.items() if cluster in copies}
        keys.update(key for key in self.applied if key[0] == cluster)
        return keys

    @property
    def idle(self) -> bool:
        """Whether the target holds what is desired, as far as known."""
        return (
            self.converged
            and not self.target.needs_converge
            and not self.pending
            and not self.recheck
        )

    def desired_by_cluster(self) -> dict[str, dict[str, Copy]]:
        clusters: dict[str, dict[str, Copy]] = {}
        for name, copies in self.desired.items():
            for cluster, copy in copies.items():
                clusters.setdefault(cluster, {})[name] = copy
        return clusters

    def flush(self) -> list[CopyOutcome]:
        """Bring the target to the desired state: the whole target the first time (and
        after a failure that left its state unknown), else the copies that changed.
        Returns what became of each copy looked at. Raises
        :class:`~clusterplace.errors.ClusterplaceError` when nothing could be done (the
        changes stay pending)."""
        if not self.converged or self.target.needs_converge:
            desired = self.desired_by_cluster()
            outcomes = self.target.converge(desired)
            self.applied = {
                (cluster, name): copy
                for cluster, copies in desired.items()
                for name, copy in copies.items()
            }
            self.pending.clear()
            self.recheck.clear()
            self.converged = True
            self._warn(outcomes)
            return outcomes
        keys = self.pending | self.recheck
        changes: dict[str, ClusterChanges] = {}
        for key in keys:
            cluster, name = key
            want = self.desired.get(name, {}).get(cluster)
            have = self.applied.get(key)
            if key not in self.recheck and (
                want is have or (want is not None and have is not None and want.text == have.text)
            ):
                continue
            if want is not None:
                changes.setdefault(cluster, ClusterChanges()).put[name] = want
            elif have is not None:
                changes.setdefault(cluster, ClusterChanges()).delete[name] = have.obj
        self.pending = set()
        self.recheck = set()
        if not changes:
            return []
        try:
            outcomes = self.target.apply(changes)
        except ClusterplaceError:
            self.pending = keys
            raise
        refused = {(o.cluster, o.name) for o in outcomes if o.action == "refused"}
        self.pending |= refused
        for cluster, change in changes.items():
            for name, copy in change.put.items():
                if (cluster, name) not in refused:
                    self.applied[(cluster, name)] = copy
            for name in change.delete:
                if (cluster, name) not in refused:
                    self.applied.pop((cluster, name), None)
        self._warn(outcomes)
        return outcomes

    def _warn(self, outcomes: Iterable[CopyOutcome]) -> None:
        """Report each copy kept or refused, once while it stays so."""
        for o in outcomes:
            key = (o.cluster, o.name)
            if o.action in ("keep", "refused"):
                if self._warned.get(key) != o.message:
                    self._warned[key] = o.message
                    level = "warning" if o.action == "keep" else "error"
                    self.report(f"{level}: {o.where}: {o.message}")
            elif key in self._warned:
                del self._warned[key]


def summary(outcomes: Iterable[CopyOutcome], where: str, *, shown: int = 8) -> str | None:
    """One line for a change set: ``OUT: 6 added, 1 updated, 2 removed (c1 +6 -2, c2
    ~1)``; None when nothing was written or removed."""
    counts: dict[str, dict[str, int]] = {}
    totals = {"add": 0, "update": 0, "remove": 0}
    for o in outcomes:
        if o.action in totals:
            totals[o.action] += 1
            per = counts.setdefault(o.cluster, {"add": 0, "update": 0, "remove": 0})
            per[o.action] += 1
    if not counts:
        return None
    words = {"add": "added", "update": "updated", "remove": "removed"}
    total = ", ".join(f"{n} {words[a]}" for a, n in totals.items() if n)
    signs = {"add": "+", "update": "~", "remove": "-"}
    parts = [
        f"{cluster} " + " ".join(f"{signs[a]}{n}" for a, n in per.items() if n)
        for cluster, per in sorted(counts.items())
    ]
    if len(parts) > shown:
        parts = [*parts[:shown], f"and {len(parts) - shown} more clusters"]
    return f"{where}: {total} ({', '.join(parts)})"
