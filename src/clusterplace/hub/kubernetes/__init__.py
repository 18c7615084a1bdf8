"""A Kubernetes hub: a live cluster's API, through one client (:mod:`.api`: ``HubApi``,
and ``SyncHubApi`` for ``apply-module``), for ``clusterplace controller --kubeconfig``
(:mod:`.run`: the placement and ManifestWorkReplicaSet controllers on one change
stream, watches in, writes out, a Lease for leader election, health, metrics and debug
endpoints) and ``clusterplace serve --kubeconfig`` (:mod:`.listing`).

The official client is imported only when a cluster is talked to, so importing this
package costs nothing.
"""
