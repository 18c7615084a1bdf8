"""Building Federation ClusterSelector annotations in tests."""

from __future__ import annotations

import json
from typing import Any

from clusterplace.federation import ANNOTATION


def req(key: str, operator: str, *values: str) -> dict[str, Any]:
    """One ``{key, operator, values}`` requirement of the annotation."""
    return {"key": key, "operator": operator, "values": list(values)}


def annotate(*requirements: dict[str, Any]) -> dict[str, str]:
    """The annotations of an object selecting clusters by ``requirements``."""
    return {ANNOTATION: json.dumps(list(requirements))}
