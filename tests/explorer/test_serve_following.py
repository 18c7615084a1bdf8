"""``clusterplace serve --hub DIR`` follows its folder change by change: a placement
edited, a placement file added and removed, and a binding deleted each show on the
pages as an explorer started afresh on the folder shows them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.web import Explorer, FleetSource
from tests.support.explorer import NOW, Served, serving
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

NEW_PLACEMENT = """\
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata:
  name: second-sandbox
  namespace: team-a
spec:
  numberOfClusters: 2
"""


def _json(served: Served, path: str) -> Any:
    status, body = served.request("GET", path)
    assert status == 200, (path, status, body[:500])
    return json.loads(body)


def _shown(served: Served) -> dict[str, int]:
    """Each placement the list shows, with how many clusters it selected."""
    listed = _json(served, "/api/placements?limit=1000")["placements"]
    return {f"{p['namespace']}/{p['name']}": p["selected"] for p in listed}


def _fresh(hub: Path) -> dict[str, int]:
    """The same, from an explorer started afresh on the folder as it is now."""
    explorer = Explorer(FleetSource(load=lambda: load_fleet(expand_sources([str(hub)]))), NOW)
    return {
        f"{r.placement.namespace}/{r.placement.name}": sum(
            len(d.cluster_names) for d in r.decisions
        )
        for r in explorer.run.result.placements
    }


def test_the_pages_follow_the_folder_change_by_change(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(ROOT / "examples" / "fleet", hub)
    placements = hub / "placements.yaml"
    with serving("--hub", str(hub)) as served:
        assert _shown(served)["team-a/dev-sandbox"] == 1
        # A placement edited: it asks for two clusters.
        placements.write_text(
            placements.read_text().replace(
                "    - nonprod\n  numberOfClusters: 1\n", "    - nonprod\n  numberOfClusters: 2\n"
            )
        )
        want = _fresh(hub)
        assert want["team-a/dev-sandbox"] == 2
        wait_for(lambda: _shown(served) == want, timeout=60, what="the edited placement")
        assert _json(served, "/api/placements/team-a/dev-sandbox")["selected"] == 2
        status, page = served.request("GET", "/placements/team-a/dev-sandbox")
        assert status == 200 and "2 selected · 2 wanted" in page.decode()
        # A placement created in a new file, then the file removed.
        (hub / "extra.yaml").write_text(NEW_PLACEMENT)
        want = _fresh(hub)
        assert "team-a/second-sandbox" in want
        wait_for(lambda: _shown(served) == want, timeout=60, what="the new placement")
        (hub / "extra.yaml").unlink()
        want = _fresh(hub)
        wait_for(lambda: _shown(served) == want, timeout=60, what="the placement removed")
        # The binding of team-a's set deleted: its placements have no candidates.
        sets = hub / "clustersets.yaml"
        documents = sets.read_text().split("\n---\n")
        kept = [d for d in documents if not ("name: nonprod" in d and "namespace: team-a" in d)]
        assert len(kept) == len(documents) - 1
        sets.write_text("\n---\n".join(kept))
        want = _fresh(hub)
        assert want["team-a/dev-sandbox"] == 0
        wait_for(lambda: _shown(served) == want, timeout=60, what="the binding deleted")
