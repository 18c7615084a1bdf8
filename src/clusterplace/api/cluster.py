"""ManagedCluster, ManagedClusterSet and ManagedClusterSetBinding (OCM cluster API)."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, StringConstraints

from clusterplace.api.base import (
    Condition,
    KubeModel,
    KubeObject,
    QualifiedName,
    QuantityValue,
    StatusModel,
    Time,
)
from clusterplace.api.selectors import LabelSelector

__all__ = [
    "CLUSTERSET_LABEL",
    "ClusterClaim",
    "ManagedCluster",
    "ManagedClusterSelector",
    "ManagedClusterSet",
    "ManagedClusterSetBinding",
    "Taint",
]

GROUP = "cluster.open-cluster-management.io"
CLUSTERSET_LABEL = f"{GROUP}/clusterset"
"""A cluster's membership label for ExclusiveClusterSetLabel sets."""

TaintEffect = Literal["NoSelect", "PreferNoSelect", "NoSelectIfNew"]
NamespaceName = Annotated[
    str, StringConstraints(max_length=63, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
]


class ClientConfig(KubeModel):
    url: str
    ca_bundle: str | None = None


class Taint(KubeModel):
    key: QualifiedName
    value: Annotated[str, StringConstraints(max_length=1024)] = ""
    effect: TaintEffect
    # nullable upstream; a missing timeAdded is the zero time, long expired.
    time_added: Time | None = None


class ManagedClusterSpec(KubeModel):
    hub_accepts_client: bool = False
    managed_cluster_client_configs: list[ClientConfig] | None = None
    lease_duration_seconds: int = 60
    taints: list[Taint] | None = None


class ClusterClaim(KubeModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=253)]
    value: Annotated[str, StringConstraints(min_length=1, max_length=1024)]


class ManagedNamespace(StatusModel):
    cluster_set: str
    name: NamespaceName
    conditions: list[Condition] | None = None


class ManagedClusterVersion(StatusModel):
    kubernetes: str | None = None


class ManagedClusterStatus(StatusModel):
    conditions: list[Condition] | None = None
    capacity: dict[str, QuantityValue] | None = None
    allocatable: dict[str, QuantityValue] | None = None
    version: ManagedClusterVersion | None = None
    cluster_claims: list[ClusterClaim] | None = None
    managed_namespaces: list[ManagedNamespace] | None = None


class ManagedCluster(KubeObject):
    """A cluster of the fleet: its labels, taints, claims and resources."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1",)
    KIND: ClassVar[str] = "ManagedCluster"
    NAMESPACED: ClassVar[bool] = False

    spec: ManagedClusterSpec = Field(default_factory=ManagedClusterSpec)
    status: ManagedClusterStatus | None = None

    @property
    def taints(self) -> list[Taint]:
        return self.spec.taints or []

    @property
    def claims(self) -> dict[str, str]:
        """Cluster claims as a name → value map (what claim selectors match against)."""
        status = self.status
        if status is None or not status.cluster_claims:
            return {}
        return {c.name: c.value for c in status.cluster_claims}

    @property
    def terminating(self) -> bool:
        return self.metadata.deletion_timestamp is not None


class ManagedClusterSelector(KubeModel):
    # v1beta1's LegacyClusterSetLabel is converted to ExclusiveClusterSetLabel on load.
    selector_type: Literal["ExclusiveClusterSetLabel", "LabelSelector"] = "ExclusiveClusterSetLabel"
    label_selector: LabelSelector | None = None


class ManagedNamespaceConfig(KubeModel):
    name: NamespaceName


class ManagedClusterSetSpec(KubeModel):
    cluster_selector: ManagedClusterSelector = Field(default_factory=ManagedClusterSelector)
    managed_namespaces: list[ManagedNamespaceConfig] | None = None


class ConditionsStatus(StatusModel):
    conditions: list[Condition] | None = None


class ManagedClusterSet(KubeObject):
    """A named group of clusters, by membership label or by label selector."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")
    KIND: ClassVar[str] = "ManagedClusterSet"
    NAMESPACED: ClassVar[bool] = False

    spec: ManagedClusterSetSpec = Field(default_factory=ManagedClusterSetSpec)
    status: ConditionsStatus | None = None


class ManagedClusterSetBindingSpec(KubeModel):
    cluster_set: Annotated[str, StringConstraints(min_length=1)]


class ManagedClusterSetBinding(KubeObject):
    """Makes a cluster set usable by the Placements of one namespace."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (f"{GROUP}/v1beta2", f"{GROUP}/v1beta1")
    KIND: ClassVar[str] = "ManagedClusterSetBinding"

    spec: ManagedClusterSetBindingSpec
    status: ConditionsStatus | None = None
