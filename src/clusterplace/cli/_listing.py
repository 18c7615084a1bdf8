"""What every ``get`` subcommand shares: ``get KIND [NAME]...`` with kubectl's options
(``-n``/``-A``, ``-l``, ``-o``, ``--no-headers``, ``--show-labels``) and kubectl's answers
(``No resources found``, ``"x" not found``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import click

from clusterplace.api import Fleet, KubeObject
from clusterplace.cli._common import (
    filename_options,
    load,
    namespace_option,
    no_headers,
    now_option,
    output_option,
    parse_selector_option,
    selector_option,
)
from clusterplace.cli._resources import ResourceType
from clusterplace.cli._watch import follow, watch_option
from clusterplace.errors import InputError
from clusterplace.outputs.printers import Columns, write_objects

__all__ = ["ColumnsFor", "Listed", "get_command", "names_argument", "show", "show_labels_option"]

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=KubeObject)

Listed = Callable[[Fleet], Sequence[KubeObject]]
ColumnsFor = Callable[[Fleet], tuple[Columns, Columns]]  # (table, wide) for a fleet


def names_argument(func: F) -> F:
    return click.argument("names", nargs=-1, metavar="[NAME]...")(func)


def show_labels_option(func: F) -> F:
    return click.option(
        "--show-labels",
        is_flag=True,
        help="Add a LABELS column with every label (the one a table has shows them all).",
    )(func)


def show(
    objects: Sequence[K],
    *,
    resource: ResourceType,
    names: Sequence[str],
    output: str,
    selector: str,
    columns: Columns,
    wide: Columns,
    show_labels: bool,
    namespace: str | None = None,
    all_namespaces: bool = False,
    empty: str | None = None,
) -> list[K]:
    """Print the objects of one kind that the options choose, as kubectl's get does,
    and return them.

    ``namespace`` None: a cluster-scoped kind. ``names``: only these (in the order
    given; an unknown one is an error after the others are printed, as kubectl's).
    ``empty``: the message when nothing matches, if not kubectl's."""
    chosen_selector = parse_selector_option("-l/--selector", selector)
    chosen = [
        o
        for o in objects
        if (namespace is None or all_namespaces or o.namespace == namespace)
        and chosen_selector.matches(o.labels)
    ]
    chosen.sort(key=lambda o: (o.namespace or "", o.name))
    missing: list[str] = []
    if names:
        by_name: dict[str, list[K]] = {}
        for o in chosen:
            by_name.setdefault(o.name, []).append(o)
        picked: list[K] = []
        for name in dict.fromkeys(names):
            found = by_name.get(name)
            if found:
                picked.extend(found)
            else:
                missing.append(name)
        chosen = picked
    if all_namespaces and namespace is not None:
        columns = [("NAMESPACE", lambda o: o.namespace or ""), *columns]
        wide = [("NAMESPACE", lambda o: o.namespace or ""), *wide]
    if chosen or output in ("yaml", "json") or output.startswith(("jsonpath=", "custom-")):
        write_objects(
            chosen,
            output,
            _echo,
            columns=columns,
            wide_columns=wide,
            no_headers=no_headers(),
            show_labels=show_labels,
            single=len(names) == 1 and not missing,
        )
    elif not missing:
        if empty is not None:
            where = empty
        elif namespace is None or all_namespaces:
            where = "No resources found" + ("." if namespace is not None else "")
        else:
            where = f"No resources found in {namespace} namespace."
        click.echo(where, err=True)
    if missing:
        raise InputError("\n".join(f'{resource.qualified} "{name}" not found' for name in missing))
    return chosen


def get_command(
    resource: ResourceType,
    doc: str,
    listed: Listed,
    columns_for: ColumnsFor,
    *,
    scheduled: Callable[[Fleet, datetime], Fleet] | None = None,
    unscheduled_hint: Callable[[Sequence[Any]], str | None] | None = None,
) -> click.Command:
    """``get <plural> [NAME]...`` for a kind: -f/--hub, -n/-A for a namespaced kind, -l,
    and with ``scheduled``, ``--schedule`` and ``--now`` (the objects as a hub would
    have them after scheduling). ``unscheduled_hint``: what to say on stderr when files
    (``-f``) were read without ``--schedule``, given the objects shown (None: nothing);
    for table, wide and name only."""

    def run(
        names: tuple[str, ...],
        filenames: tuple[str, ...],
        recursive: bool,
        selector: str,
        output: str,
        show_labels: bool,
        namespace: str | None = None,
        all_namespaces: bool = False,
        schedule: bool = False,
        now: datetime | None = None,
        watch: bool = False,
    ) -> None:
        def render() -> None:
            fleet = load(filenames, recursive)
            if schedule and scheduled is not None and now is not None:
                fleet = scheduled(fleet, now)
            table, wide = columns_for(fleet)
            shown = show(
                listed(fleet),
                resource=resource,
                names=names,
                output=output,
                selector=selector,
                columns=table,
                wide=wide,
                show_labels=show_labels,
                namespace=namespace,
                all_namespaces=all_namespaces,
            )
            # Said where a person reads (as "No resources found"), not into yaml or json.
            human = output in ("table", "wide", "name")
            if unscheduled_hint is not None and filenames and not schedule and human:
                hint = unscheduled_hint(shown)
                if hint is not None:
                    click.echo(f"hint: {hint}", err=True)

        follow(render, watch=watch, filenames=filenames, output=output)

    command: Callable[..., None] = run
    command = watch_option(command)
    command = show_labels_option(command)
    command = output_option()(command)
    if scheduled is not None:
        command = now_option(command)
        command = click.option(
            "--schedule",
            "schedule",
            is_flag=True,
            help="Show them as a hub would after scheduling every placement.",
        )(command)
    command = selector_option("Label selector on the objects.")(command)
    if resource.namespaced:
        command = click.option(
            "-A", "--all-namespaces", is_flag=True, help="List objects of every namespace."
        )(command)
        command = namespace_option("The namespace to list.")(command)
    command = filename_options("Fleet files or directories.", hub=True)(command)
    command = names_argument(command)
    return click.command(resource.plural, help=doc)(command)


def _echo(text: str) -> None:
    click.echo(text, nl=False)
