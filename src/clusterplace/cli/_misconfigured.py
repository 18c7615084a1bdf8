"""A misconfigured Placement as an error where the mistake is: its file, line, object
and field, with the scheduler's reason.

The scheduler reports a misconfiguration as upstream's controller does, by plugin and
message (the PlacementMisconfigured condition's message is upstream's ``PLUGIN:MESSAGE``,
which starts with ``:`` when no plugin reported it, as upstream writes it). Here the
field is found again from the placement's spec, and the line from the file it was read
from (``-f``); a placement read from a hub folder or a live hub is named by its object
alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from clusterplace.api import Placement
from clusterplace.api.placement import ClusterPredicate
from clusterplace.codecs.loader import Document, Path, read_documents, render_path
from clusterplace.codecs.sources import Source
from clusterplace.errors import InputError, Location
from clusterplace.labels import SelectorError, from_label_selector, from_requirements
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.filters.cel import CelCompileError, compile_all

__all__ = ["SOURCES_KEY", "misconfigurations", "report_misconfigured"]

SOURCES_KEY = "clusterplace.sources"  # click meta: what load() read with -f


def _predicate_field(index: int, predicate: ClusterPredicate) -> Path:
    base: Path = ("spec", "predicates", index, "requiredClusterSelector")
    selector = predicate.required_cluster_selector
    if selector is None:
        return base
    if selector.label_selector is not None:
        expressions = selector.label_selector.match_expressions or []
        for j, expression in enumerate(expressions):
            try:
                from_requirements([expression])
            except SelectorError:
                return (*base, "labelSelector", "matchExpressions", j)
        try:
            from_label_selector(selector.label_selector)
        except SelectorError:
            return (*base, "labelSelector", "matchLabels")
    if selector.claim_selector is not None:
        for j, expression in enumerate(selector.claim_selector.match_expressions or []):
            try:
                from_requirements([expression])
            except SelectorError:
                return (*base, "claimSelector", "matchExpressions", j)
    if selector.cel_selector is not None:
        for j, source in enumerate(selector.cel_selector.cel_expressions or []):
            try:
                compile_all([source])
            except CelCompileError:
                return (*base, "celSelector", "celExpressions", j)
    return base


def misconfigured_field(placement: Placement, plugin: str, message: str) -> Path:
    """The field of ``placement`` a misconfiguration of ``plugin`` comes from."""
    spec = placement.spec
    if plugin == "Predicate":
        for index, predicate in enumerate(spec.predicates or []):
            field = _predicate_field(index, predicate)
            if len(field) > 4:
                return field
        return ("spec", "predicates")
    if plugin == "TaintToleration":
        for index, toleration in enumerate(spec.tolerations or []):
            if (not toleration.key and toleration.operator != "Exists") or (
                toleration.operator == "Exists" and toleration.value
            ):
                return ("spec", "tolerations", index)
        return ("spec", "tolerations")
    if spec.number_of_clusters is not None and spec.number_of_clusters < 0:
        return ("spec", "numberOfClusters")
    if "prioritizer policy mode" in message:
        return ("spec", "prioritizerPolicy", "mode")
    if "prioritizer" in message or "addOn" in message:
        return ("spec", "prioritizerPolicy", "configurations")
    return ("spec", "decisionStrategy", "groupStrategy")


def _documents(sources: Sequence[Source]) -> dict[tuple[str, str], Document]:
    found: dict[tuple[str, str], Document] = {}
    for doc in read_documents(sources):
        if doc.data.get("kind") == "Placement":
            meta = doc.data.get("metadata") or {}
            found.setdefault((str(meta.get("namespace") or ""), str(meta.get("name"))), doc)
    return found


def misconfigurations(
    results: Sequence[PlacementResult], sources: Sequence[Source] | None
) -> list[InputError]:
    """One error per misconfigured placement: where, which field, and why."""
    misconfigured = [r for r in results if r.status.code.value == "Misconfigured"]
    if not misconfigured:
        return []
    documents = _documents(sources) if sources else {}
    errors = []
    for result in misconfigured:
        placement = result.placement
        status = result.status
        field = misconfigured_field(placement, status.plugin, status.message)
        reason = f"{status.plugin}: {status.message}" if status.plugin else status.message
        doc = documents.get((placement.namespace or "", placement.name))
        where = (
            doc.location(field, obj=placement.ref)
            if doc is not None
            else Location(obj=placement.ref, field=render_path(field))
        )
        errors.append(InputError(f"misconfigured: {reason}", where))
    return errors


def report_misconfigured(results: Sequence[PlacementResult], *, as_error: bool) -> bool:
    """Print each misconfigured placement's error on stderr, once (``error:`` when it
    fails the command, else ``warning:``); whether there was any."""
    context = click.get_current_context(silent=True)
    sources = context.meta.get(SOURCES_KEY) if context is not None else None
    errors = misconfigurations(results, sources)
    prefix = "error" if as_error else "warning"
    for error in errors:
        first, *rest = str(error).splitlines()
        click.echo(f"{prefix}: {first}", err=True)
        for line in rest:  # a CEL compiler's pointer at the column, kept under it
            click.echo(f"    {line}", err=True)
    return bool(errors)
