"""A Kubernetes hub: a live cluster's API, for ``apply-module`` (:mod:`.cluster`) and for
``clusterplace controller --kubeconfig`` (:mod:`.run`: watches in, writes out, a Lease
for leader election, health, metrics and debug endpoints).

The official client is imported only by the modules that talk to a cluster, so
importing this package costs nothing.
"""

from clusterplace.hub.kubernetes.cluster import KubernetesCluster, KubernetesError, merge_patch

__all__ = ["KubernetesCluster", "KubernetesError", "merge_patch"]
