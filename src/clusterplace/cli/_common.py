"""What every command shares: ``-f``/``-R``/``-o`` options, loading, warnings, errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.shell_completion import CompletionItem

from clusterplace.api import Fleet
from clusterplace.api.base import parse_time
from clusterplace.api.metadata import quote
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.codecs.loader import Document
from clusterplace.errors import InputError, Location
from clusterplace.labels import Selector, SelectorError, label_key_errors, label_value_errors, parse
from clusterplace.outputs import format_table
from clusterplace.outputs.errors import TemplateError
from clusterplace.outputs.formats import (
    OUTPUT_NAMES,
    is_template,
    normalize_output,
    write_template,
)

__all__ = [
    "OUTPUT_NAMES",
    "emit_template_or_name",
    "filename_options",
    "load",
    "lock_timeout_option",
    "namespace_option",
    "no_headers",
    "now_option",
    "now_option_for",
    "output_option",
    "parse_labels",
    "parse_now",
    "parse_selector_option",
    "parse_time_option",
    "print_table",
    "selector_option",
    "warn",
    "warn_unknown",
]

F = TypeVar("F", bound=Callable[..., Any])


def filename_options(help_text: str, *, hub: bool = False) -> Callable[[F], F]:
    """``-f/--filename`` (repeatable, comma-separated, ``-`` for stdin) and ``-R``; with
    ``hub``, also ``--hub DIR`` (a controller's directory hub, its live state) and
    ``--kubeconfig PATH [--context NAME]`` (a Kubernetes hub, listed read-only) in place
    of ``-f``. :func:`load` reads whichever was given."""

    def decorate(func: F) -> F:
        func = click.option(
            "-R", "--recursive", is_flag=True, help="Also read subdirectories of -f directories."
        )(func)
        if hub:
            func = click.option(
                "--hub",
                metavar="DIR",
                expose_value=False,
                callback=_remember_hub,
                help="A directory hub run by 'clusterplace controller': its manifests with "
                "the decisions and statuses the controller wrote (instead of -f).",
            )(func)
            func = click.option(
                "--out",
                metavar="OUT",
                expose_value=False,
                callback=_remember_hub_out,
                help="With --hub: where its controller writes (its --out) "
                "[default: DIR/.clusterplace].",
            )(func)
            func = click.option(
                "--kubeconfig",
                metavar="PATH",
                expose_value=False,
                callback=_remember("clusterplace.kubeconfig"),
                help="A Kubernetes hub (OCM): read its objects (list only; nothing is "
                "written) instead of -f.",
            )(func)
            func = click.option(
                "--context",
                metavar="NAME",
                expose_value=False,
                callback=_remember("clusterplace.context"),
                help="The kubeconfig context (with --kubeconfig) [default: its current one].",
            )(func)
        return click.option(
            "-f",
            "--filename",
            "filenames",
            multiple=True,
            required=not hub,
            metavar="FILE|DIR|-",
            help=help_text,
        )(func)

    return decorate


def _remember_hub(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    # Kept on the context (not passed to each command): load() is where it is used.
    if value is not None:
        ctx.meta["clusterplace.hub"] = value


def _remember(key: str) -> Callable[[click.Context, click.Parameter, str | None], None]:
    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.meta[key] = value

    return remember


def _remember_hub_out(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.meta["clusterplace.hub.out"] = value


if TYPE_CHECKING:  # click's ParamType is generic from click 8.2 on
    _StrParamType = click.ParamType[str, Any]
else:
    _StrParamType = click.ParamType


class OutputFormat(_StrParamType):
    """``-o``: one of :data:`~clusterplace.outputs.formats.OUTPUT_NAMES`, the same for
    every command. The value a command gets is a plain name, ``jsonpath=TEMPLATE`` or
    ``custom-columns=SPEC`` (the ``-file`` forms are read into these), checked: a bad
    template is a usage error before anything is read."""

    name = "format"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "FORMAT"

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return [
            CompletionItem(name.partition("=")[0] + ("=" if "=" in name else ""))
            for name in OUTPUT_NAMES
            if name.startswith(incomplete)
        ]

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return normalize_output(str(value))
        except TemplateError as err:
            self.fail(f"{err} (formats: {', '.join(OUTPUT_NAMES)})", param, ctx)


def output_option(default: str = "table") -> Callable[[F], F]:
    """``-o/--output FORMAT`` and ``--no-headers``: every command that prints takes the
    same formats (what each prints for them is its own; see docs/cli.md)."""

    def decorate(func: F) -> F:
        func = click.option(
            "--no-headers",
            is_flag=True,
            expose_value=False,
            callback=_remember_no_headers,
            help="Print tables (and custom-columns) without their header line.",
        )(func)
        return click.option(
            "-o",
            "--output",
            "output",
            type=OutputFormat(),
            default=default,
            show_default=True,
            help=f"Output format: {', '.join(OUTPUT_NAMES)}.",
        )(func)

    return decorate


def _remember_no_headers(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta["clusterplace.no_headers"] = True


def no_headers() -> bool:
    """Whether ``--no-headers`` was given."""
    context = click.get_current_context(silent=True)
    return bool(context is not None and context.meta.get("clusterplace.no_headers"))


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A kubectl table on standard output (without its header line with ``--no-headers``)."""
    click.echo(format_table(headers, rows, no_headers=no_headers()), nl=False)


def emit_template_or_name(
    output: str,
    *,
    document: Any,
    rows: Sequence[Mapping[str, Any]],
    names: Sequence[str] | Callable[[], Sequence[str]],
) -> bool:
    """Print ``-o name``, ``jsonpath=`` or ``custom-columns=`` for a command: jsonpath
    reads ``document`` (what ``-o json`` prints), custom-columns prints one line per
    row, name one line per name. False for any other format (the command prints it)."""
    if output == "name":
        shown = names() if callable(names) else names
        click.echo("".join(f"{n}\n" for n in shown), nl=False)
        return True
    if not is_template(output):
        return False
    write_template(output, document, rows, _echo, no_headers=no_headers())
    return True


def _echo(text: str) -> None:
    click.echo(text, nl=False)


def warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def warn_unknown(documents: Sequence[Document]) -> None:
    """Report objects of kinds clusterplace does not model (they are skipped)."""
    for doc in documents:
        kind = doc.data.get("kind")
        api_version = doc.data.get("apiVersion")
        warn(f"{doc.location()}: skipped: this command does not read {api_version} {kind}")


def load(filenames: Sequence[str], recursive: bool) -> Fleet:
    """Load a fleet from ``-f`` values (or the ``--hub`` folder), warning about skipped
    kinds."""
    context = click.get_current_context(silent=True)
    meta = context.meta if context is not None else {}
    hub, out = meta.get("clusterplace.hub"), meta.get("clusterplace.hub.out")
    kubeconfig, kube_context = meta.get("clusterplace.kubeconfig"), meta.get("clusterplace.context")
    if kube_context is not None and kubeconfig is None:
        raise click.UsageError("--context goes with --kubeconfig")
    if kubeconfig is not None:
        if filenames or hub is not None or out is not None:
            raise click.UsageError("give one of -f, --hub and --kubeconfig")
        return load_kubernetes_hub(kubeconfig, kube_context)
    if out is not None and hub is None:
        raise click.UsageError("--out goes with --hub")
    if hub is not None:
        if filenames:
            raise click.UsageError("give -f or --hub, not both")
        return load_hub(hub, recursive, out)
    if not filenames:
        raise click.UsageError("give -f FILE|DIR|- (or --hub DIR, or --kubeconfig PATH)")
    sources = expand_sources(filenames, recursive=recursive)
    if context is not None:  # kept to locate what scheduling finds wrong (a field's line)
        context.meta["clusterplace.sources"] = sources
    fleet = load_fleet(sources)
    warn_unknown(fleet.unknown)
    return fleet


KUBE_MODULES = ("kubernetes", "aiohttp", "prometheus_client")


def load_kubernetes_hub(kubeconfig: str, context: str | None) -> Fleet:
    """A Kubernetes hub's objects, listed once as the explorer lists them (its
    read-only role: list, nothing written); objects that do not decode are warned about
    and left out."""
    try:
        import aiohttp  # noqa: F401  (the client's transport, in the same extra)
        from kubernetes.aio import config  # noqa: F401  (an optional dependency)

        from clusterplace.hub.kubernetes.listing import list_hub_objects
        from clusterplace.hub.kubernetes.run import KubeOptions
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in KUBE_MODULES:
            raise
        raise click.ClickException(
            "reading a Kubernetes hub needs the kube extra: pip install 'clusterplace[kube]' "
            f"(no module named {err.name!r})"
        ) from None
    options = KubeOptions(kubeconfig=Path(kubeconfig), context=context)
    return Fleet.of(list_hub_objects(options, warn))


def load_hub(folder: str, recursive: bool, out: str | None = None) -> Fleet:
    """The live state of a directory hub: its manifests, and the decisions and statuses
    its controller wrote (in ``out``, default ``DIR/.clusterplace``)."""
    from clusterplace.hub.directory import DirectoryHub, OutLayout
    from clusterplace.hub.directory.layout import DEFAULT_OUT

    root = Path(folder)
    if not root.is_dir():
        raise InputError("the hub must be a folder of manifests", Location(file=folder))
    if out is not None and not Path(out).is_dir():
        raise InputError(
            "the controller's output folder (--out) does not exist", Location(file=out)
        )
    problems: list[str] = []
    layout = OutLayout(root / DEFAULT_OUT if out is None else Path(out))
    hub = DirectoryHub(root, layout, recursive=recursive, report=problems.append)
    objects = hub.initial_objects()
    if problems:
        raise InputError("\n".join(problems))
    return Fleet.of(objects)


def parse_labels(text: str, option: str = "--labels") -> dict[str, str]:
    """``k=v,k2=v2`` as kubectl's ``--labels`` takes it: every key once, every key and
    value valid (so ``a==b``, ``a!=b`` and ``a b=c`` are errors, not odd labels)."""
    labels: dict[str, str] = {}
    for part in text.split(","):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise InputError(f"{option}: {quote(part)} is not key=value")
        reasons = [f"key: {r}" for r in label_key_errors(key)]
        reasons += [f"value: {r}" for r in label_value_errors(value)]
        if reasons:
            raise InputError(f"{option}: {quote(part)}: {'; '.join(reasons)}")
        if key in labels:
            raise InputError(f"{option}: label {quote(key)} is given twice")
        labels[key] = value
    return labels


def parse_selector_option(option: str, text: str) -> Selector:
    """A selector given on the command line; errors name the option."""
    try:
        return parse(text)
    except SelectorError as err:
        raise SelectorError(
            f"invalid {option} {text!r}: {err.message}", text=err.text, position=err.position
        ) from None


def parse_time_option(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> datetime | None:
    """An RFC 3339 time given on the command line, or ``None`` when it was not given."""
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


def parse_now(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime:
    """An RFC 3339 time given on the command line, the current time when not given."""
    given = parse_time_option(ctx, param, value)
    return datetime.now(UTC) if given is None else given


NowCallback = Callable[[click.Context, click.Parameter, str | None], datetime | None]


def now_option_for(help_text: str, *, callback: NowCallback = parse_now) -> Callable[[F], F]:
    """``--now RFC3339``: the time a command works at, read by ``callback``."""
    return click.option("--now", metavar="RFC3339", callback=callback, help=help_text)


now_option = now_option_for(
    "The time to schedule at (default: now); drives tolerationSeconds and score expiry."
)


def lock_timeout_option(help_text: str, *, default: float | None) -> Callable[[F], F]:
    """``--lock-timeout SECONDS``: how long to wait for the lock on an output folder
    (``None``: for ever; a default that is a number is shown in the help)."""
    if default is None:
        return click.option(
            "--lock-timeout",
            type=click.FloatRange(min=0),
            default=None,
            metavar="SECONDS",
            help=help_text,
        )
    return click.option(
        "--lock-timeout",
        type=click.FloatRange(min=0),
        default=default,
        show_default=True,
        metavar="SECONDS",
        help=help_text,
    )


def namespace_option(help_text: str) -> Callable[[F], F]:
    """``-n/--namespace NS``, ``default`` unless given."""
    return click.option("-n", "--namespace", default="default", show_default=True, help=help_text)


def selector_option(help_text: str) -> Callable[[F], F]:
    """``-l/--selector SELECTOR``: a label selector, empty (everything) unless given."""
    return click.option("-l", "--selector", default="", metavar="SELECTOR", help=help_text)
