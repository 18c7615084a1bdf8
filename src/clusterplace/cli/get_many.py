"""``clusterplace get`` of several kinds at once, as kubectl takes them:
``get mcl,placements [NAME]...``, ``get placement/web mcl/c1`` and ``get all``.

Each kind prints its own table, names as ``kind.group/name`` when more than one kind
was asked for, and yaml, json, name and the templates print one ``List`` of them all.
``all`` is every kind clusterplace reads (OCM's CRDs put none of theirs in kubectl's
``all`` category, so against a hub kubectl would list core kinds instead)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import click

from clusterplace.api import Fleet, KubeObject
from clusterplace.cli._common import (
    filename_options,
    load,
    no_headers,
    now_option,
    output_option,
    selector_option,
)
from clusterplace.cli._listing import (
    VIEWS,
    decorate_columns,
    listing_options,
    names_argument,
    not_found,
    nothing_found,
    parse_field_selector_option,
    select,
    show_labels_option,
)
from clusterplace.cli._resources import RESOURCES, ResourceType, resolve
from clusterplace.errors import InputError
from clusterplace.outputs import print_objects

__all__ = ["Target", "get_many", "is_many", "parse_targets"]

Target = tuple[ResourceType, tuple[str, ...]]


def is_many(first: str) -> bool:
    """Whether ``get``'s first argument names several kinds, a kind/name, or ``all``."""
    return "," in first or "/" in first or first.lower() == "all"


def _kinds(text: str) -> list[ResourceType]:
    kinds: list[ResourceType] = []
    for part in text.split(","):
        found = list(RESOURCES) if part.strip().lower() == "all" else [resolve(part, RESOURCES)]
        kinds.extend(k for k in found if k not in kinds)
    return kinds


def parse_targets(arguments: Sequence[str]) -> tuple[list[Target], bool]:
    """The kinds and names ``arguments`` ask for, in order, and whether the output names
    each object's kind (more than one kind asked for, as kubectl decides)."""
    if not arguments:
        raise click.UsageError("get needs a kind, e.g. get managedclusters")
    if any("/" in a for a in arguments):
        if not all("/" in a for a in arguments):
            raise click.UsageError(
                "there is no need to specify a resource type as a separate argument when "
                "passing arguments in resource/name form (e.g. 'clusterplace get "
                "resource/<resource_name>' instead of 'clusterplace get resource "
                "resource/<resource_name>')"
            )
        by_kind: dict[ResourceType, list[str]] = {}
        for argument in arguments:
            kind, _, name = argument.partition("/")
            if not kind or not name or "/" in name or "," in kind:
                raise click.UsageError(
                    f"arguments in resource/name form must have a single resource and name: "
                    f"{argument!r}"
                )
            by_kind.setdefault(resolve(kind, RESOURCES), []).append(name)
        return [(k, tuple(names)) for k, names in by_kind.items()], len(by_kind) > 1
    kinds = _kinds(arguments[0])
    named = len(kinds) > 1 or arguments[0].strip().lower() == "all"
    return [(k, tuple(arguments[1:])) for k in kinds], named


@click.command("get-many", hidden=True)
@names_argument
@filename_options("Fleet files or directories.", hub=True)
@click.option("-n", "--namespace", default="default", show_default=True, help="The namespace.")
@click.option("-A", "--all-namespaces", is_flag=True, help="List objects of every namespace.")
@selector_option("Label selector on the objects.")
@output_option()
@show_labels_option
@listing_options
@click.option("--schedule", is_flag=True, help="Show placements and decisions as a hub would.")
@now_option
def get_many(
    names: tuple[str, ...],
    filenames: tuple[str, ...],
    recursive: bool,
    namespace: str,
    all_namespaces: bool,
    selector: str,
    output: str,
    show_labels: bool,
    sort_by: str,
    label_columns: tuple[str, ...],
    field_selector: str,
    schedule: bool,
    now: datetime,
) -> None:
    """Several kinds at once (``get KIND,KIND [NAME]...``, ``get KIND/NAME...``,
    ``get all``)."""
    targets, named = parse_targets(names)
    parse_field_selector_option(field_selector)
    fleet: Fleet = load(filenames, recursive)
    if schedule:
        scheduled = next(
            (VIEWS[k.plural].scheduled for k, _ in targets if VIEWS[k.plural].scheduled), None
        )
        if scheduled is not None:
            fleet = scheduled(fleet, now)
    tables: list[str] = []
    everything: list[KubeObject] = []
    errors: list[InputError] = []
    asked_by_name = False
    for resource, wanted in targets:
        view = VIEWS[resource.plural]
        chosen, missing = select(
            view.listed(fleet),
            names=wanted,
            selector=selector,
            namespace=namespace if resource.namespaced else None,
            all_namespaces=all_namespaces,
            sort_by=sort_by,
            field_selector=field_selector,
        )
        asked_by_name = asked_by_name or bool(wanted)
        if missing:
            errors.append(not_found(resource, missing))
        everything.extend(chosen)
        if chosen and output in ("table", "wide"):
            columns, wide = decorate_columns(
                *view.columns_for(fleet),
                label_keys=label_columns,
                namespace_column=all_namespaces,
                resource=resource if named else None,
            )
            tables.append(
                print_objects(
                    chosen,
                    output,
                    columns=columns,
                    wide_columns=wide,
                    no_headers=no_headers(),
                    show_labels=show_labels,
                )
            )
    if output in ("table", "wide"):
        click.echo("\n".join(tables), nl=False)
    elif everything or output != "name":
        text = print_objects(
            everything,
            output,
            columns=[],
            wide_columns=[],
            no_headers=no_headers(),
            single=len(targets) == 1 and len(targets[0][1]) == 1 and not errors,
        )
        click.echo(text, nl=False)
    if not everything and not errors:
        shown_namespace = namespace if any(k.namespaced for k, _ in targets) else None
        click.echo(nothing_found(shown_namespace, all_namespaces), err=True)
    if errors:
        raise InputError("\n".join(str(e) for e in errors))
