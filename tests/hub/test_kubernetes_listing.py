"""``clusterplace serve --kubeconfig``: the explorer reads a Kubernetes hub by listing
it (against the API emulator of tests/hub/kube_emulator.py, not a real API server)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from clusterplace.cli.main import cli
from clusterplace.cli.serve import kube_source
from clusterplace.web.state import Explorer
from tests.hub._kube import KubeHub

PROD = {"env": "prod"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}


def test_the_explorer_lists_the_hub_and_schedules_what_it_holds(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": {"env": "dev"}})
    kubehub.placement("p", ONLY_PROD)
    source = kube_source(kubehub.kubeconfig, None)
    fleet = source.load()
    assert sorted(fleet.clusters) == ["c0", "c1"]
    assert sorted(fleet.placements) == [("ns", "p")]
    explorer = Explorer(source, datetime.now(UTC))
    result = explorer.run.result.get("ns", "p")
    assert result is not None
    assert [pd.cluster_names for pd in result.decisions] == [["c0"]]
    assert source.label == f"--kubeconfig {kubehub.kubeconfig}"


def test_an_invalid_object_on_the_hub_is_reported_and_left_out(
    kubehub: KubeHub, capsys: pytest.CaptureFixture[str]
) -> None:
    kubehub.fleet({"c0": PROD})
    kubehub.placement("p", {"numberOfClusters": "many"})
    fleet = kube_source(kubehub.kubeconfig, None).load()
    assert fleet.placements == {}
    assert "hub: Placement/ns/p:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "examples/fleet", "--kubeconfig", "k"],
        ["--hub", "examples/fleet", "--kubeconfig", "k"],
        ["-f", "examples/fleet", "--context", "c"],
    ],
)
def test_one_source_at_a_time(args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["serve", *args])
    assert result.exit_code == 2
    assert "--kubeconfig" in result.output or "--context" in result.output
