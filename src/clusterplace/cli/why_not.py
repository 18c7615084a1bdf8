"""``clusterplace explain placement NAME --why-not CLUSTER``: verified counterfactuals."""

from __future__ import annotations

import shlex
from datetime import datetime
from typing import Any

import click

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
        [
            str(i),
            s.side,
            s.stage,
            s.summary,
            " ".join(str(e) for e in s.edits),
            str(s.rank) if s.rank is not None else "-",
        ]
        for i, s in enumerate(answer.suggestions, 1)
    ]
    headers = ["#", "SIDE", "STAGE", "CHANGE", "EDITS", "RANK"]
    print_table(headers, rows)
    first = " ".join(_shell(e) for e in answer.suggestions[0].edits)
    click.echo(f"\nSee what else #1 moves: clusterplace what-if -f FLEET {first}")


def _shell(edit: Edit) -> str:
    """The edit as a shell takes it (a selector has spaces and brackets)."""
    return f"{edit.option} {shlex.quote(edit.expression)}"
