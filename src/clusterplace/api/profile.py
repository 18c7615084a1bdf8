"""ClusterProfile (SIG-Multicluster's cluster inventory, ``multicluster.x-k8s.io/v1alpha1``)
and its mapping to and from a ManagedCluster.

A profile becomes a cluster for scheduling (:func:`cluster_from_profile`): its labels
are the cluster's labels (its ``multicluster.x-k8s.io/clusterset`` label also puts it in
that OCM cluster set), its ``status.properties`` are cluster claims, its
``ControlPlaneHealthy`` and ``Joined`` conditions are ``ManagedClusterConditionAvailable``
and ``ManagedClusterJoined``, its Kubernetes version is the version. A profile holds no
taints and no resources: the cluster has none.

A ManagedCluster becomes a profile (:func:`profile_from_cluster`) as OCM's hub does it,
optionally with the cluster's own labels too.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import StringConstraints, model_validator

from clusterplace.api.base import Condition, KubeModel, KubeObject, ObjectMeta, StatusModel, Time
from clusterplace.api.cluster import (
    CLUSTERSET_LABEL,
    ClusterClaim,
    ManagedCluster,
    ManagedClusterSpec,
    ManagedClusterStatus,
    ManagedClusterVersion,
)

__all__ = [
    "AVAILABLE",
    "CLUSTER_MANAGER_LABEL",
    "CONTROL_PLANE_HEALTHY",
    "JOINED",
    "MANAGED_JOINED",
    "OCM_CLUSTER_NAME_LABEL",
    "OCM_MANAGER",
    "PROFILE_ANNOTATION",
    "PROFILE_API_VERSION",
    "SIG_CLUSTERSET_LABEL",
    "ClusterProfile",
    "cluster_from_profile",
    "described",
    "ocm_rank",
    "profile_from_cluster",
    "profile_of",
]

SIG_GROUP = "multicluster.x-k8s.io"
PROFILE_API_VERSION = f"{SIG_GROUP}/v1alpha1"
CLUSTER_MANAGER_LABEL = "x-k8s.io/cluster-manager"
SIG_CLUSTERSET_LABEL = f"{SIG_GROUP}/clusterset"
OCM_CLUSTER_NAME_LABEL = "open-cluster-management.io/cluster-name"
OCM_MANAGER = "open-cluster-management"
CONTROL_PLANE_HEALTHY, JOINED = "ControlPlaneHealthy", "Joined"
AVAILABLE, MANAGED_JOINED = "ManagedClusterConditionAvailable", "ManagedClusterJoined"
PROFILE_ANNOTATION = "clusterplace.io/cluster-profile"
"""On a cluster read from a ClusterProfile: ``<namespace>/<name>`` of that profile."""

# profile condition type -> ManagedCluster condition type (and back)
_CONDITIONS = {CONTROL_PLANE_HEALTHY: AVAILABLE, JOINED: MANAGED_JOINED}


class ClusterManager(KubeModel):
    name: Annotated[str, StringConstraints(min_length=1)]


class ClusterProfileSpec(KubeModel):
    display_name: str | None = None
    cluster_manager: ClusterManager


class Property(StatusModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=253)]
    value: Annotated[str, StringConstraints(min_length=1, max_length=1024)]
    last_observed_time: Time | None = None


class ProfileVersion(StatusModel):
    kubernetes: str | None = None


class ClusterProfileStatus(StatusModel):
    conditions: list[Condition] | None = None
    version: ProfileVersion | None = None
    properties: list[Property] | None = None
    # Reachability data for consumers; clusterplace keeps it, never reads it.
    access_providers: list[dict[str, Any]] | None = None
    credential_providers: list[dict[str, Any]] | None = None


class ClusterProfile(KubeObject):
    """A member cluster of an inventory, as its cluster manager describes it."""

    API_VERSIONS: ClassVar[tuple[str, ...]] = (PROFILE_API_VERSION,)
    KIND: ClassVar[str] = "ClusterProfile"

    spec: ClusterProfileSpec
    status: ClusterProfileStatus | None = None

    @model_validator(mode="after")
    def _one_cluster_set(self) -> ClusterProfile:
        labels = self.metadata.labels or {}
        sig, ocm = labels.get(SIG_CLUSTERSET_LABEL), labels.get(CLUSTERSET_LABEL)
        if sig and ocm and sig != ocm:
            raise ValueError(
                f"metadata.labels: {SIG_CLUSTERSET_LABEL}={sig} and {CLUSTERSET_LABEL}={ocm} "
                "name two cluster sets; a cluster is in one (drop one label or make them equal)"
            )
        return self


def profile_of(cluster: ManagedCluster) -> tuple[str, str] | None:
    """The (namespace, name) of the ClusterProfile ``cluster`` was read from, or None for
    a ManagedCluster."""
    ref = cluster.annotations.get(PROFILE_ANNOTATION)
    if ref is None or "/" not in ref:
        return None
    namespace, _, name = ref.partition("/")
    return namespace, name


def described(obj: KubeObject) -> str:
    """What ``obj`` was written as: its ``Kind/[namespace/]name``, or for a cluster read
    from a profile, ``ClusterProfile/namespace/name``."""
    origin = profile_of(obj) if isinstance(obj, ManagedCluster) else None
    return obj.ref if origin is None else f"ClusterProfile/{origin[0]}/{origin[1]}"


def ocm_rank(cluster: ManagedCluster) -> tuple[int, str] | None:
    """Where ``cluster`` stands among OCM's own descriptions of one cluster: a
    ManagedCluster first (``(0, "")``), then the profiles OCM's hub wrote for it (label
    ``x-k8s.io/cluster-manager: open-cluster-management``) by namespace; None for a
    profile of any other manager. Two descriptions of one name that both rank are one
    cluster (the lower rank is read); otherwise they clash."""
    origin = profile_of(cluster)
    if origin is None:
        return (0, "")
    if cluster.labels.get(CLUSTER_MANAGER_LABEL) == OCM_MANAGER:
        return (1, origin[0])
    return None


def _mapped(conditions: list[Condition] | None, types: dict[str, str]) -> list[Condition] | None:
    out = [
        c.model_copy(update={"type": types[c.type], "observed_generation": None})
        for c in conditions or ()
        if c.type in types
    ]
    return out or None


def cluster_from_profile(profile: ClusterProfile) -> ManagedCluster:
    """The cluster ``profile`` describes, for scheduling (see the module's docstring)."""
    labels = dict(profile.labels)
    cluster_set = labels.get(SIG_CLUSTERSET_LABEL)
    if cluster_set and CLUSTERSET_LABEL not in labels:
        labels[CLUSTERSET_LABEL] = cluster_set
    status = profile.status
    claims = [
        ClusterClaim(name=p.name, value=p.value) for p in (status and status.properties) or ()
    ]
    version = status.version.kubernetes if status and status.version else None
    meta = profile.metadata
    return ManagedCluster(
        api_version=ManagedCluster.API_VERSIONS[0],
        kind=ManagedCluster.KIND,
        metadata=ObjectMeta(
            name=meta.name,
            labels=labels or None,
            annotations={PROFILE_ANNOTATION: f"{profile.namespace}/{profile.name}"},
            uid=meta.uid,
            resource_version=meta.resource_version,
            creation_timestamp=meta.creation_timestamp,
            deletion_timestamp=meta.deletion_timestamp,
        ),
        # Under management by its cluster manager: what hubAcceptsClient says in OCM.
        spec=ManagedClusterSpec(hub_accepts_client=True),
        status=ManagedClusterStatus(
            conditions=_mapped(status.conditions if status else None, _CONDITIONS),
            version=ManagedClusterVersion(kubernetes=version) if version is not None else None,
            cluster_claims=claims or None,
        ),
    )


def profile_from_cluster(
    cluster: ManagedCluster, namespace: str, *, with_labels: bool = False
) -> ClusterProfile:
    """The ClusterProfile OCM's hub writes for ``cluster`` in ``namespace`` (the namespace
    of a ManagedClusterSetBinding that binds one of its sets): named after the cluster,
    labelled with the cluster manager, the cluster's name and its cluster set; its claims
    as properties, its Available and Joined conditions as ControlPlaneHealthy and Joined,
    its version. ``with_labels`` also copies the cluster's own labels (OCM does not;
    the three labels above win over a cluster label of the same key)."""
    labels = dict(cluster.labels) if with_labels else {}
    labels.update(
        {
            CLUSTER_MANAGER_LABEL: OCM_MANAGER,
            SIG_CLUSTERSET_LABEL: cluster.labels.get(CLUSTERSET_LABEL, ""),
            OCM_CLUSTER_NAME_LABEL: cluster.name,
        }
    )
    status = cluster.status
    back = {v: k for k, v in _CONDITIONS.items()}
    properties = [Property(name=n, value=v) for n, v in cluster.claims.items()]
    version = status.version.kubernetes if status and status.version else None
    return ClusterProfile(
        api_version=PROFILE_API_VERSION,
        kind=ClusterProfile.KIND,
        metadata=ObjectMeta(name=cluster.name, namespace=namespace, labels=labels),
        spec=ClusterProfileSpec(
            display_name=cluster.name, cluster_manager=ClusterManager(name=OCM_MANAGER)
        ),
        status=ClusterProfileStatus(
            conditions=_mapped(status.conditions if status else None, back),
            version=ProfileVersion(kubernetes=version) if version is not None else None,
            properties=properties or None,
        ),
    )
