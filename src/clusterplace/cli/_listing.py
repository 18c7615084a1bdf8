"""What every ``get`` subcommand shares: ``get KIND [NAME]...`` with kubectl's options
(``-n``/``-A``, ``-l``, ``-o``, ``--no-headers``, ``--show-labels``) and kubectl's answers
(``No resources found``, ``"x" not found``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
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
from clusterplace.labels import SelectorError
from clusterplace.labels.fields import FieldSelector, parse_field_selector
from clusterplace.outputs.describe import human_age
from clusterplace.outputs.formats import is_template
from clusterplace.outputs.printers import Columns, write_objects
from clusterplace.outputs.sorting import sort_order

__all__ = [
    "VIEWS",
    "ColumnsFor",
    "Listed",
    "View",
    "get_command",
    "listing_options",
    "names_argument",
    "show",
    "show_labels_option",
]

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=KubeObject)

Listed = Callable[[Fleet], Sequence[KubeObject]]
ColumnsFor = Callable[[Fleet], tuple[Columns, Columns]]  # (table, wide) for a fleet
Scheduled = Callable[[Fleet, datetime], Fleet]


@dataclass(frozen=True)
class View:
    """How ``get`` shows one kind: its objects in a fleet, its (table, wide) columns,
    and (placements, decisions) the fleet after scheduling."""

    resource: ResourceType
    listed: Listed
    columns_for: ColumnsFor
    scheduled: Scheduled | None = None


VIEWS: dict[str, View] = {}  # by plural; each get command registers its kind's


def register_view(view: View) -> View:
    VIEWS[view.resource.plural] = view
    return view


def now() -> datetime:
    """The moment ages are counted to (``AGE`` columns): the command's ``--now`` when it
    takes one (so a scheduled object made "now" is 0s old), else the clock."""
    context = click.get_current_context(silent=True)
    given = context.params.get("now") if context is not None else None
    return given if isinstance(given, datetime) else datetime.now(UTC)


def age_column(moment: datetime) -> tuple[str, Callable[[KubeObject], str]]:
    """kubectl's AGE: the time since ``metadata.creationTimestamp`` (``<unknown>``
    without one, as kubectl prints a zero time)."""

    def age(obj: KubeObject) -> str:
        created = obj.metadata.creation_timestamp
        if created is None:
            return "<unknown>"
        return human_age((moment - created).total_seconds())

    return ("AGE", age)


def names_argument(func: F) -> F:
    return click.argument("names", nargs=-1, metavar="[NAME]...")(func)


def show_labels_option(func: F) -> F:
    return click.option(
        "--show-labels",
        is_flag=True,
        help="Add a LABELS column with every label (the one a table has shows them all).",
    )(func)


def _label_column_keys(values: Sequence[str]) -> list[str]:
    """``-L a,b -L c``: the label keys, in order, each once."""
    return list(dict.fromkeys(k.strip() for v in values for k in v.split(",") if k.strip()))


def _label_value(key: str) -> Callable[[KubeObject], str]:
    return lambda obj: obj.labels.get(key, "")


def label_key_columns(values: Sequence[str]) -> Columns:
    """kubectl's ``-L`` columns: headed by the key's last segment upper-cased
    (``…/clusterset`` is CLUSTERSET), holding the label's value or nothing."""
    return [
        (key.rpartition("/")[2].upper(), _label_value(key)) for key in _label_column_keys(values)
    ]


def listing_options(func: F) -> F:
    """kubectl's ``--sort-by``, ``-L/--label-columns`` and ``--field-selector``."""
    func = click.option(
        "--field-selector",
        default="",
        metavar="SELECTOR",
        help="Select by metadata.name and metadata.namespace (=, ==, !=; commas join), "
        "as the API server does for custom resources.",
    )(func)
    func = click.option(
        "-L",
        "--label-columns",
        multiple=True,
        metavar="KEY[,KEY]",
        help="Add a column for each label key, holding its value (repeatable).",
    )(func)
    return click.option(
        "--sort-by",
        default="",
        metavar="JSONPATH",
        help="Sort by the value a path finds in each object, e.g. .metadata.name.",
    )(func)


def cluster_scoped_namespace_options(func: F) -> F:
    """``-n`` and ``-A`` on a cluster-scoped kind: accepted and ignored, as kubectl does."""
    ignored = "Ignored: the kind is cluster-scoped (kubectl accepts it too)."
    func = click.option(
        "-A", "--all-namespaces", "ignored_all_namespaces", is_flag=True, hidden=True, help=ignored
    )(func)
    return click.option(
        "-n", "--namespace", "ignored_namespace", default=None, hidden=True, help=ignored
    )(func)


def select(
    objects: Sequence[K],
    *,
    names: Sequence[str],
    selector: str,
    namespace: str | None = None,
    all_namespaces: bool = False,
    sort_by: str = "",
    field_selector: str = "",
) -> tuple[list[K], list[str]]:
    """The objects the options choose, in the order kubectl prints them, and the names
    asked for that none has. ``namespace`` None: a cluster-scoped kind."""
    chosen_selector = parse_selector_option("-l/--selector", selector)
    fields = parse_field_selector_option(field_selector)
    chosen = [
        o
        for o in objects
        if (namespace is None or all_namespaces or o.namespace == namespace)
        and chosen_selector.matches(o.labels)
        and fields.matches(o.name, o.namespace)
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
    if sort_by:
        order = sort_order([o.to_dict() for o in chosen], sort_by)
        chosen = [chosen[i] for i in order]
    return chosen, missing


def decorate_columns(
    columns: Columns,
    wide: Columns,
    *,
    label_keys: Sequence[str] = (),
    namespace_column: bool = False,
    resource: ResourceType | None = None,
) -> tuple[Columns, Columns]:
    """A kind's (table, wide) columns with kubectl's additions: ``-L`` columns at the
    end, NAMESPACE first (``-A``), and names as ``kind.group/name`` (``resource``:
    when several kinds share the output)."""
    if resource is not None:
        named: Columns = [("NAME", lambda o: resource.object_name(o.name))]
        columns, wide = [*named, *columns[1:]], [*named, *wide[1:]]
    if label_keys:
        extra = label_key_columns(label_keys)
        columns, wide = [*columns, *extra], [*wide, *extra]
    if namespace_column:
        first: Columns = [("NAMESPACE", lambda o: o.namespace or "")]
        columns, wide = [*first, *columns], [*first, *wide]
    return columns, wide


def nothing_found(namespace: str | None, all_namespaces: bool) -> str:
    """kubectl's message when nothing matches."""
    if namespace is None:
        return "No resources found"
    if all_namespaces:
        return "No resources found."
    return f"No resources found in {namespace} namespace."


def not_found(resource: ResourceType, missing: Sequence[str]) -> InputError:
    return InputError("\n".join(f'{resource.qualified} "{name}" not found' for name in missing))


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
    sort_by: str = "",
    label_keys: Sequence[str] = (),
    field_selector: str = "",
) -> list[K]:
    """Print the objects of one kind that the options choose, as kubectl's get does,
    and return them.

    ``namespace`` None: a cluster-scoped kind. ``names``: only these (in the order
    given; an unknown one is an error after the others are printed, as kubectl's).
    ``empty``: the message when nothing matches, if not kubectl's. ``sort_by``,
    ``label_keys`` and ``field_selector``: kubectl's ``--sort-by``, ``-L`` and
    ``--field-selector``."""
    chosen, missing = select(
        objects,
        names=names,
        selector=selector,
        namespace=namespace,
        all_namespaces=all_namespaces,
        sort_by=sort_by,
        field_selector=field_selector,
    )
    columns, wide = decorate_columns(
        columns,
        wide,
        label_keys=label_keys,
        namespace_column=all_namespaces and namespace is not None,
    )
    if chosen or output in ("yaml", "json") or is_template(output):
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
        click.echo(
            empty if empty is not None else nothing_found(namespace, all_namespaces), err=True
        )
    if missing:
        raise not_found(resource, missing)
    return chosen


def parse_field_selector_option(text: str) -> FieldSelector:
    """``--field-selector``, or a usage error naming the option and what is valid."""
    try:
        return parse_field_selector(text)
    except SelectorError as err:
        raise click.BadParameter(str(err), param_hint="'--field-selector'") from None


def get_command(
    resource: ResourceType,
    doc: str,
    listed: Listed,
    columns_for: ColumnsFor,
    *,
    scheduled: Scheduled | None = None,
    unscheduled_hint: Callable[[Sequence[Any]], str | None] | None = None,
) -> click.Command:
    """``get <plural> [NAME]...`` for a kind: -f/--hub, -n/-A for a namespaced kind, -l,
    and with ``scheduled``, ``--schedule`` and ``--now`` (the objects as a hub would
    have them after scheduling). ``unscheduled_hint``: what to say on stderr when files
    (``-f``) were read without ``--schedule``, given the objects shown (None: nothing);
    for table, wide and name only."""
    register_view(View(resource, listed, columns_for, scheduled))

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
        sort_by: str = "",
        label_columns: tuple[str, ...] = (),
        field_selector: str = "",
        ignored_namespace: str | None = None,
        ignored_all_namespaces: bool = False,
    ) -> None:
        parse_field_selector_option(field_selector)  # a typo is reported before reading

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
                sort_by=sort_by,
                label_keys=label_columns,
                field_selector=field_selector,
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
    command = listing_options(command)
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
    else:
        command = cluster_scoped_namespace_options(command)
    command = filename_options("Fleet files or directories.", hub=True)(command)
    command = names_argument(command)
    return click.command(resource.plural, help=doc)(command)


def _echo(text: str) -> None:
    click.echo(text, nl=False)
