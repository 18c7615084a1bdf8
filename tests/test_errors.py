"""One error hierarchy: every exception clusterplace defines is a ClusterplaceError, so
a program (and the CLI) catches one type; those the API promises as ValueError still are."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import clusterplace
from clusterplace.errors import ClusterplaceError

# Never raised to a caller: private control flow, and a PyYAML error that the YAML
# reader turns into a TextError where it is raised.
_INTERNAL = {"_Unsupported", "DuplicateKeyError"}


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for module_info in pkgutil.walk_packages(clusterplace.__path__, "clusterplace."):
        if module_info.name.endswith("__main__"):
            continue  # runs the CLI
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and value.__name__ not in _INTERNAL
            ):
                found.append(value)
    return found


def test_every_exception_is_a_clusterplace_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 15
    strays = [
        f"{c.__module__}.{c.__name__}" for c in classes if not issubclass(c, ClusterplaceError)
    ]
    assert strays == []


def test_value_errors_stay_value_errors() -> None:
    from clusterplace.labels import SelectorError
    from clusterplace.quantity import QuantityError

    assert issubclass(SelectorError, ValueError) and issubclass(QuantityError, ValueError)
