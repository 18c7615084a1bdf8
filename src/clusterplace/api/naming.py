"""Kubernetes resource naming shared by every layer that builds API paths or type names."""

from __future__ import annotations

__all__ = ["plural"]


def plural(kind: str) -> str:
    """The default resource name of a kind, as Kubernetes derives it: ``Deployment`` ->
    ``deployments``, ``Ingress`` -> ``ingresses``, ``Policy`` -> ``policies``."""
    lower = kind.lower()
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"
