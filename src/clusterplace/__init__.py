"""clusterplace: decide which clusters a workload, object or definition goes to, and say why.

What a program reaches for is here (see docs/api.md)::

    import clusterplace

    fleet = clusterplace.load_fleet(["examples/fleet"])
    result = clusterplace.schedule(fleet)
    for fate in clusterplace.explain_placement(result, "apps", "analytics"):
        print(fate.cluster, fate.selected, fate.reason)

A placement is named by ``namespace, name`` everywhere (``explain_placement``,
``why_not``). The names load when first used, so ``import clusterplace`` stays cheap.

The package is layered: a pure decision core (``labels``, ``quantity``,
``federation``, ``delivery``) that knows nothing about files or terminals, typed Kubernetes
objects (``api``) and their readers (``codecs``), and the outer I/O layers
(``outputs``, ``bundles``, ``cli``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from clusterplace.errors import (
    ClusterplaceError,
    InputError,
    InputErrors,
    Location,
    UnknownPlacementError,
)

if TYPE_CHECKING:
    from clusterplace.codecs import LoadError, load_fleet
    from clusterplace.defkit.placement import evaluate
    from clusterplace.delivery import plan_rollout
    from clusterplace.federation import plan_replicas
    from clusterplace.labels import SelectorError
    from clusterplace.quantity import QuantityError
    from clusterplace.scheduling import (
        IncrementalSchedule,
        explain_placement,
        schedule,
        what_if,
        why_not,
    )

__all__ = [
    "ClusterplaceError",
    "IncrementalSchedule",
    "InputError",
    "InputErrors",
    "LoadError",
    "Location",
    "QuantityError",
    "SelectorError",
    "UnknownPlacementError",
    "__version__",
    "evaluate",
    "explain_placement",
    "load_fleet",
    "plan_replicas",
    "plan_rollout",
    "schedule",
    "what_if",
    "why_not",
]

__version__ = "0.1.0"

# Each name loaded on first use -> the module that defines it.
_LAZY = {
    "IncrementalSchedule": "clusterplace.scheduling",
    "LoadError": "clusterplace.codecs",
    "QuantityError": "clusterplace.quantity",
    "SelectorError": "clusterplace.labels",
    "evaluate": "clusterplace.defkit.placement",
    "explain_placement": "clusterplace.scheduling",
    "load_fleet": "clusterplace.codecs",
    "plan_replicas": "clusterplace.federation",
    "plan_rollout": "clusterplace.delivery",
    "schedule": "clusterplace.scheduling",
    "what_if": "clusterplace.scheduling",
    "why_not": "clusterplace.scheduling",
}


def __getattr__(name: str) -> object:
    """Load a public name from its module the first time it is used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'clusterplace' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later uses skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
