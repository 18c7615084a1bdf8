"""Where things are: the repository, its examples, and the tests' data and golden files."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA", "EXAMPLES", "FLEET", "GOLDEN", "MANIFESTS", "ROOT"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FLEET = EXAMPLES / "fleet"  # the example fleet: 10 clusters, their sets and placements
MANIFESTS = EXAMPLES / "manifests"  # workloads with Federation cluster selectors
DATA = ROOT / "tests" / "data"
GOLDEN = ROOT / "tests" / "cli" / "golden"
