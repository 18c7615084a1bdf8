"""The resource names a command takes, as kubectl takes them: one table for ``get``,
``describe`` and ``explain``.

Each kind answers to its plural, its singular and the short names its OCM
CustomResourceDefinition declares, to its ``Kind`` (kubectl takes that too), and to any
of these followed by its API group (``placements.cluster.open-cluster-management.io``)
or by its version and group (``placements.v1beta1.cluster.open-cluster-management.io``),
all case-insensitive. ``clusters`` and ``cluster`` are clusterplace's own names for
ManagedClusters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

import click

from clusterplace.api import (
    AddOnPlacementScore,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
)
from clusterplace.api.base import KubeObject
from clusterplace.api.work import ManifestWork, ManifestWorkReplicaSet
from clusterplace.errors import ClusterplaceError

__all__ = [
    "MANAGED_CLUSTERS",
    "PLACEMENTS",
    "RESOURCES",
    "ResourceGroup",
    "ResourceType",
    "ResourceTypeError",
    "known_names",
    "lookup",
    "resolve",
    "resource_named",
]


@dataclass(frozen=True)
class ResourceType:
    """One kind's names: ``plural`` is the canonical one (the subcommand's name)."""

    model: type[KubeObject]
    plural: str
    singular: str
    short_names: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # clusterplace's own names, beyond the CRD's

    @property
    def kind(self) -> str:
        return self.model.KIND

    @property
    def group(self) -> str:
        return self.model.API_VERSIONS[0].rpartition("/")[0]

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(v.rpartition("/")[2] for v in self.model.API_VERSIONS)

    @property
    def namespaced(self) -> bool:
        return self.model.NAMESPACED

    @property
    def qualified(self) -> str:
        """``plural.group``, as kubectl names the resource in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def object_name(self, name: str) -> str:
        """``-o name`` for an object of this kind: ``kind.group/name`` (kubectl's)."""
        return (
            f"{self.kind.lower()}.{self.group}/{name}"
            if self.group
            else f"{self.kind.lower()}/{name}"
        )

    @property
    def names(self) -> tuple[str, ...]:
        """Every name that resolves to this kind without a group, canonical first."""
        return (self.plural, self.singular, *self.short_names, *self.aliases)


# Short names as the CRDs of open-cluster-management-io/api declare them (placements,
# placementdecisions, addonplacementscores and manifestworks declare none).
RESOURCES: tuple[ResourceType, ...] = (
    ResourceType(
        ManagedCluster,
        "managedclusters",
        "managedcluster",
        ("mcl", "mcls"),
        ("clusters", "cluster"),
    ),
    ResourceType(
        ManagedClusterSet, "managedclustersets", "managedclusterset", ("mclset", "mclsets")
    ),
    ResourceType(
        ManagedClusterSetBinding,
        "managedclustersetbindings",
        "managedclustersetbinding",
        ("mclsetbinding", "mclsetbindings"),
    ),
    ResourceType(Placement, "placements", "placement"),
    ResourceType(PlacementDecision, "placementdecisions", "placementdecision"),
    ResourceType(AddOnPlacementScore, "addonplacementscores", "addonplacementscore"),
    ResourceType(
        ManifestWorkReplicaSet, "manifestworkreplicasets", "manifestworkreplicaset", ("mwrs",)
    ),
    ResourceType(ManifestWork, "manifestworks", "manifestwork"),
)

_BY_NAME: dict[str, ResourceType] = {
    name: resource for resource in RESOURCES for name in (*resource.names, resource.kind.lower())
}


def lookup(text: str) -> ResourceType | None:
    """The resource ``text`` names (None: no such resource type)."""
    typed = text.strip().lower()
    found = _BY_NAME.get(typed)
    if found is not None or "." not in typed:
        return found
    name, _, rest = typed.partition(".")
    resource = _BY_NAME.get(name)
    if resource is None or name in resource.aliases:
        return None  # clusterplace's own names are not the API's: no group goes with them
    version, _, group = rest.partition(".")
    if rest == resource.group or (version in resource.versions and group == resource.group):
        return resource
    return None


def known_names(resources: Sequence[ResourceType] = RESOURCES) -> list[str]:
    """One line per resource: its plural, then its other names."""
    lines = []
    for resource in resources:
        others = resource.names[1:]
        lines.append(f"{resource.plural} ({', '.join(others)})" if others else resource.plural)
    return lines


class ResourceTypeError(click.UsageError, ClusterplaceError):
    """A resource name no command knows (kubectl's message), or one this command does
    not take; a usage error (exit 2)."""

    def __init__(self, message: str, resources: Sequence[ResourceType]) -> None:
        super().__init__(message)
        self.resources = tuple(resources)

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"error: {self.message}", err=True)
        click.echo("Known resource types (plural, then the other names):", err=True)
        for line in known_names(self.resources):
            click.echo(f"  {line}", err=True)


def resolve(
    text: str, supported: Sequence[ResourceType] = RESOURCES, command: str = ""
) -> ResourceType:
    """The resource ``text`` names, among those a command takes (``supported``)."""
    found = lookup(text)
    if found is None:
        raise ResourceTypeError(f'the server doesn\'t have a resource type "{text}"', supported)
    if found not in supported:
        raise ResourceTypeError(
            f"{command} does not take {found.plural} (it takes "
            f"{', '.join(r.plural for r in supported)})",
            supported,
        )
    return found


def resource_named(plural: str) -> ResourceType:
    """The resource of this plural (a name from :data:`RESOURCES`)."""
    for resource in RESOURCES:
        if resource.plural == plural:
            return resource
    raise KeyError(plural)


MANAGED_CLUSTERS = resource_named("managedclusters")
PLACEMENTS = resource_named("placements")


class ResourceGroup(click.Group):
    """A command group whose subcommands take a kind (``get``, ``describe``,
    ``explain``): any name of the kind reaches the subcommand registered for it in
    ``kinds`` (plural -> subcommand name); a subcommand's own name works too
    (``explain replicas``). An unknown name is kubectl's error, exit 2."""

    def __init__(self, *args: Any, kinds: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kinds = dict(kinds or {})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is not None:
            return command
        supported = [resource_named(plural) for plural in self.kinds]
        resource = resolve(cmd_name, supported, f"{ctx.command_path}")
        return self.commands.get(self.kinds[resource.plural])
