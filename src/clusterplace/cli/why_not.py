"""``clusterplace explain placement NAME --why-not CLUSTER``: verified counterfactuals."""

from __future__ import annotations

import shlex
from datetime import datetime
from typing import Any

import click
from click.core import ParameterSource

from clusterplace.cli._common import emit_template_or_name, load, print_table
from clusterplace.cli._schedule_run import pick
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.scheduling import IncrementalSchedule, why_not
from clusterplace.scheduling.edits import Edit

__all__ = ["print_why_not"]


def print_why_not(
    filenames: tuple[str, ...],
    recursive: bool,
    now: datetime,
    namespace: str,
    name: str,
    cluster: str,
    output: str,
) -> None:
    run = IncrementalSchedule(load(filenames, recursive), now=now)
    pick(run.result, name, namespace)  # the same "not found" message as explain
    answer = why_not(run, namespace, name, cluster)
    data: dict[str, Any] = {
        "apiVersion": "clusterplace.io/v1alpha1",
        "kind": "WhyNot",
        "metadata": {"name": name, "namespace": namespace},
        "status": answer.to_dict(),
    }
    if emit_template_or_name(
        output, document=data, rows=data["status"].get("suggestions", []), names=[]
    ):
        return
    if output in ("yaml", "json"):
        click.echo(dump_yaml_stream([data]) if output == "yaml" else dump_json(data), nl=False)
        return
    ref = f"{namespace}/{name}"
    if answer.selected:
        click.echo(f"Placement {ref} selects {cluster} ({answer.reason}).")
        return
    click.echo(f"Placement {ref} does not select {cluster}.")
    click.echo(f"Stage:  {answer.stage}")
    click.echo(f"Reason: {answer.reason}")
    for note in answer.notes:
        click.echo(f"Note:   {note}")
    click.echo("")
    if not answer.suggestions:
        click.echo("No change found that makes the placement select it.")
        return
    rows = [
        [str(i), s.side, s.stage, s.summary, str(s.rank) if s.rank is not None else "-"]
        for i, s in enumerate(answer.suggestions, 1)
    ]
    print_table(["#", "SIDE", "STAGE", "CHANGE", "RANK"], rows)
    # The edits one a line, whole and quoted for a shell: each can be pasted as it is.
    click.echo("\nEdits:")
    for i, suggestion in enumerate(answer.suggestions, 1):
        for j, edit in enumerate(suggestion.edits):
            click.echo(f"{f'#{i}' if j == 0 else '':<4}{_shell(edit)}")
    command = ["clusterplace what-if", *_input_args(filenames, recursive, now)]
    lines = [" ".join(command), *(_shell(e) for e in answer.suggestions[0].edits)]
    click.echo("\nSee what else #1 moves:\n  " + " \\\n    ".join(lines))


def _shell(edit: Edit) -> str:
    """The edit as a shell takes it (a selector has spaces and brackets)."""
    return f"{edit.option} {shlex.quote(edit.expression)}"


def _input_args(filenames: tuple[str, ...], recursive: bool, now: datetime) -> list[str]:
    """What this command read, as options of another (shell-quoted): the -f paths as
    given (with -R), or the hub; and --now when it was given."""
    context = click.get_current_context(silent=True)
    meta = context.meta if context is not None else {}
    args: list[str] = []
    if meta.get("clusterplace.kubeconfig") is not None:
        args += ["--kubeconfig", meta["clusterplace.kubeconfig"]]
        if meta.get("clusterplace.context") is not None:
            args += ["--context", meta["clusterplace.context"]]
    elif meta.get("clusterplace.hub") is not None:
        args += ["--hub", meta["clusterplace.hub"]]
        if meta.get("clusterplace.hub.out") is not None:
            args += ["--out", meta["clusterplace.hub.out"]]
    else:
        for filename in filenames:
            args += ["-f", filename]
        if recursive:
            args.append("-R")
    if context is not None and context.get_parameter_source("now") == ParameterSource.COMMANDLINE:
        args += ["--now", now.isoformat().replace("+00:00", "Z")]
    return [shlex.quote(a) for a in args]
