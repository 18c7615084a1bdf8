"""clusterplace: decide which clusters a workload, object or definition goes to, and say why.

The package is layered: a pure decision core (``labels``, ``quantity``,
``federation``) that knows nothing about files or terminals, typed Kubernetes
objects and their loaders (``api``), and the outer I/O layers (``outputs``,
``bundles``, ``cli``).
"""

from clusterplace.errors import ClusterplaceError, InputError, InputErrors, Location

__all__ = ["ClusterplaceError", "InputError", "InputErrors", "Location", "__version__"]

__version__ = "0.1.0"
