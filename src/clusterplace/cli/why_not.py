"""``clusterplace explain placement NAME --why-not CLUSTER``: verified counterfactuals."""

from __future__ import annotations

from datetime import datetime

import click

from clusterplace.cli._common import load
from clusterplace.cli._schedule_run import pick
from clusterplace.outputs import format_table
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.scheduling import IncrementalSchedule, why_not

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
    if output in ("yaml", "json"):
        data = {
            "apiVersion": "clusterplace.io/v1alpha1",
            "kind": "WhyNot",
            "metadata": {"name": name, "namespace": namespace},
            "status": answer.to_dict(),
        }
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
            s.stage,
            s.summary,
            " ".join(str(e) for e in s.edits),
            str(s.rank) if s.rank is not None else "-",
        ]
        for i, s in enumerate(answer.suggestions, 1)
    ]
    headers = ["#", "STAGE", "CHANGE", "EDITS", "RANK"]
    click.echo(format_table(headers, rows), nl=False)
    first = " ".join(str(e) for e in answer.suggestions[0].edits)
    click.echo(f"\nSee what else #1 moves: clusterplace what-if -f FLEET {first}")
