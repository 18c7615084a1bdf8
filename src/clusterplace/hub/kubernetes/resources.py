"""The API resources clusterplace uses on a Kubernetes hub, and the verbs each of its
roles uses on each: the controller's table and the read-only explorer's, which the
code's requests are checked against and ``deploy/``'s RBAC must match
(tests/hub/test_deploy.py). apply-module's role declares no table: it writes whatever
a module holds, with its user's own rights."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clusterplace.api.naming import plural

__all__ = [
    "ADDON_SCORES",
    "APPLY_MODULE",
    "CLUSTERS",
    "CLUSTER_PROFILES",
    "CLUSTER_SETS",
    "CONTROLLER",
    "DECISIONS",
    "DECISIONS_STATUS",
    "DELIVERY_WATCHED",
    "EVENTS",
    "EXPLORER",
    "LEASES",
    "PERMISSIONS",
    "PLACEMENTS",
    "PLACEMENTS_FINALIZERS",
    "PLACEMENTS_STATUS",
    "PLACEMENT_WATCHED",
    "ROUTE",
    "SET_BINDINGS",
    "SIG",
    "SIG_DECISIONS",
    "WATCHED",
    "WORKS",
    "WORK_SETS",
    "WORK_SETS_STATUS",
    "ApiResource",
    "Permission",
    "Role",
]

OCM = "cluster.open-cluster-management.io"
WORK = "work.open-cluster-management.io"
SIG = "multicluster.x-k8s.io"


@dataclass(frozen=True)
class ApiResource:
    """A resource (or subresource) of the API, as a URL and an RBAC rule name it."""

    group: str
    version: str
    plural: str  # "placements/status" for a subresource
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def base(self) -> str:
        """The plural without a subresource (the URL's collection)."""
        return self.plural.split("/", 1)[0]

    def __str__(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @classmethod
    def of(cls, api_version: str, kind: str, namespaced: bool = True) -> ApiResource:
        """The resource of objects of ``apiVersion`` and ``kind`` (its plural as
        Kubernetes derives it). Not checked here: a request's path is
        (:func:`~clusterplace.hub.kubernetes.api.check_segments`), so ``a/b/c`` or
        ``/v1`` is refused there, by the version it leaves."""
        group, slash, version = api_version.partition("/")
        if not slash:
            group, version = "", api_version
        elif not group:
            version = api_version
        return cls(group, version, plural(kind), kind, namespaced)


CLUSTERS = ApiResource(OCM, "v1", "managedclusters", "ManagedCluster", False)
CLUSTER_PROFILES = ApiResource(SIG, "v1alpha1", "clusterprofiles", "ClusterProfile", True)
SIG_DECISIONS = ApiResource(SIG, "v1alpha1", "placementdecisions", "PlacementDecision", True)
CLUSTER_SETS = ApiResource(OCM, "v1beta2", "managedclustersets", "ManagedClusterSet", False)
SET_BINDINGS = ApiResource(
    OCM, "v1beta2", "managedclustersetbindings", "ManagedClusterSetBinding", True
)
PLACEMENTS = ApiResource(OCM, "v1beta1", "placements", "Placement", True)
DECISIONS = ApiResource(OCM, "v1beta1", "placementdecisions", "PlacementDecision", True)
ADDON_SCORES = ApiResource(OCM, "v1alpha1", "addonplacementscores", "AddOnPlacementScore", True)
PLACEMENTS_STATUS = ApiResource(OCM, "v1beta1", "placements/status", "Placement", True)
PLACEMENTS_FINALIZERS = ApiResource(OCM, "v1beta1", "placements/finalizers", "Placement", True)
DECISIONS_STATUS = ApiResource(
    OCM, "v1beta1", "placementdecisions/status", "PlacementDecision", True
)
EVENTS = ApiResource("events.k8s.io", "v1", "events", "Event", True)
LEASES = ApiResource("coordination.k8s.io", "v1", "leases", "Lease", True)

WORK_SETS = ApiResource(WORK, "v1alpha1", "manifestworkreplicasets", "ManifestWorkReplicaSet", True)
WORK_SETS_STATUS = ApiResource(
    WORK, "v1alpha1", "manifestworkreplicasets/status", "ManifestWorkReplicaSet", True
)
WORKS = ApiResource(WORK, "v1", "manifestworks", "ManifestWork", True)

# What is watched, in the order it is listed at start: the placement controller's
# inputs (upstream's informers, manager.go) and the ClusterProfiles (clusters too, when
# the hub serves them), then the ManifestWorkReplicaSet
# controller's own (its MWRSs and every ManifestWork; it shares the Placements and
# PlacementDecisions).
PLACEMENT_WATCHED = (
    CLUSTERS,
    CLUSTER_PROFILES,
    CLUSTER_SETS,
    SET_BINDINGS,
    PLACEMENTS,
    DECISIONS,
    ADDON_SCORES,
)
DELIVERY_WATCHED = (WORK_SETS, WORKS)
WATCHED = PLACEMENT_WATCHED + DELIVERY_WATCHED


@dataclass(frozen=True)
class Permission:
    """Verbs the controller uses on a resource; ``scope`` says which RBAC object grants
    them: the ClusterRole (any namespace) or the Role in the controller's namespace."""

    resource: ApiResource
    verbs: tuple[str, ...]
    scope: Literal["cluster", "namespace"]
    why: str


PERMISSIONS = (
    Permission(CLUSTERS, ("list", "watch"), "cluster", "watched"),
    Permission(CLUSTER_PROFILES, ("list", "watch"), "cluster", "watched: clusters too"),
    Permission(CLUSTER_SETS, ("list", "watch"), "cluster", "watched"),
    Permission(SET_BINDINGS, ("list", "watch"), "cluster", "watched"),
    Permission(ADDON_SCORES, ("list", "watch"), "cluster", "watched"),
    # get: a patch refused with 409 Conflict re-reads the object and tries again.
    Permission(PLACEMENTS, ("get", "list", "watch"), "cluster", "watched; re-read on conflict"),
    Permission(PLACEMENTS_STATUS, ("patch",), "cluster", "the Placement status"),
    # The decisions' ownerReference sets blockOwnerDeletion, which the
    # OwnerReferencesPermissionEnforcement admission plugin allows only to those who may
    # update the owner's finalizers (upstream grants the same).
    Permission(PLACEMENTS_FINALIZERS, ("update",), "cluster", "blockOwnerDeletion"),
    Permission(
        DECISIONS,
        ("create", "delete", "get", "list", "patch", "watch"),
        "cluster",
        "written; labels patched; re-read on conflict",
    ),
    Permission(DECISIONS_STATUS, ("patch",), "cluster", "the decisions"),
    # --decision-format both: the SIG-Multicluster slices beside them.
    Permission(
        SIG_DECISIONS,
        ("create", "delete", "list", "patch", "watch"),
        "cluster",
        "SIG slices written (--decision-format both); watched",
    ),
    Permission(EVENTS, ("create",), "cluster", "events in each placement's namespace"),
    # The ManifestWorkReplicaSet controller. Its finalizer is added and removed with a
    # JSON merge patch of metadata.finalizers carrying the uid and resourceVersion
    # (upstream adds it with an update: a patch changes nothing else of the object).
    Permission(
        WORK_SETS,
        ("get", "list", "patch", "watch"),
        "cluster",
        "watched; finalizer patched; re-read on conflict",
    ),
    Permission(WORK_SETS_STATUS, ("patch",), "cluster", "the ManifestWorkReplicaSet status"),
    Permission(
        WORKS,
        ("create", "delete", "get", "list", "patch", "watch"),
        "cluster",
        "watched; written in each cluster's namespace; re-read on conflict",
    ),
    # Leader election (election.py: read, create, update with the resourceVersion read).
    Permission(LEASES, ("create", "get", "update"), "namespace", "leader election"),
)


# The owners' finalizers subresource for what the controller writes with a
# blockOwnerDeletion ownerReference (OwnerReferencesPermissionEnforcement checks it).
OWNERS = {
    (DECISIONS.group, DECISIONS.base): PLACEMENTS_FINALIZERS,
    (SIG_DECISIONS.group, SIG_DECISIONS.base): PLACEMENTS_FINALIZERS,
}


# What ``clusterplace serve --kubeconfig`` lists: the inputs and outputs it schedules
# again, and the placements' events for its Live page. Read-only: list, nothing else
# (it shows placements, not deliveries: no works or MWRSs).
EXPLORER_PERMISSIONS = (
    *(Permission(resource, ("list",), "cluster", "listed") for resource in WATCHED),
    Permission(EVENTS, ("list",), "cluster", "the Live page's placement events"),
)


@dataclass(frozen=True)
class Role:
    """Who sends the requests, the verbs it may use, and the file in ``deploy/`` that
    grants exactly those (a 403 names it). A role that is not ``declared`` may send any
    request, and has no file: a 403 names the rule for its user to be granted."""

    who: str
    grants: str
    permissions: tuple[Permission, ...]
    declared: bool = True

    def permission(self, resource: ApiResource, verb: str) -> Permission:
        """The entry granting ``verb`` on ``resource``; a request the table does not
        declare is a programming error (deploy/ would not grant it)."""
        for entry in self.permissions:
            if entry.resource == resource and verb in entry.verbs:
                return entry
        if not self.declared:
            scope: Literal["cluster", "namespace"] = (
                "namespace" if resource.namespaced else "cluster"
            )
            return Permission(resource, (verb,), scope, f"sent by {self.who}")
        raise AssertionError(f"{verb} {resource} is not declared in {self.who}'s permissions")

    def finalizers_of(self, owned: ApiResource) -> ApiResource | None:
        """The finalizers subresource of the owner that objects of ``owned`` name in an
        ownerReference with ``blockOwnerDeletion`` (a PlacementDecision's Placement),
        which admission lets only who may update it set; None when the role writes no
        such reference."""
        owner = OWNERS.get((owned.group, owned.base))
        if owner is None or (self.declared and not self.declares(owner, "update")):
            return None
        return owner

    def declares(self, resource: ApiResource, verb: str) -> bool:
        return any(e.resource == resource and verb in e.verbs for e in self.permissions)

    def rbac_rule(self, resource: ApiResource, verb: str) -> str:
        """The RBAC rule that grants ``verb`` on ``resource``, as a YAML flow mapping."""
        entry = self.permission(resource, verb)
        if not self.declared:
            where = "a Role in that namespace" if entry.scope == "namespace" else "a ClusterRole"
        elif entry.scope == "cluster":
            where = "the ClusterRole"
        else:
            where = f"the Role in {self.who}'s namespace"
        return (
            f'{{apiGroups: ["{resource.group}"], resources: [{resource.plural}], '
            f"verbs: [{verb}]}} in {where}"
        )

    def remedy(self, resource: ApiResource, verb: str) -> str:
        """What a 403 on ``verb`` ``resource`` asks for: the rule, and where it goes."""
        rule = self.rbac_rule(resource, verb)
        if not self.declared:
            return f"grant it with {rule}, bound to the user of {self.who}'s kubeconfig"
        return f"grant it with {rule} ({self.grants} has every rule {self.who} needs)"


CONTROLLER = Role("the controller", "deploy/rbac.yaml", PERMISSIONS)
EXPLORER = Role("the explorer", "deploy/explorer-rbac.yaml", EXPLORER_PERMISSIONS)
# apply-module reads the cluster identity ConfigMap, and gets, creates and patches the
# definitions and the objects of a module's hooks: whatever the module holds.
APPLY_MODULE = Role("apply-module", "", (), declared=False)
# route --to-kubeconfig applies, lists and deletes its copies in each member cluster,
# and lists the workloads and pods it plans replicas from: copies can be any kind.
ROUTE = Role("route", "", (), declared=False)
