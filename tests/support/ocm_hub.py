"""What the emulator's hub (:class:`tests.support.kube_hub.KubeHub`) and a real
server's (:class:`tests.support.envtest.RealHub`) write alike: OCM objects built from a
few arguments, each written through the hub's own ``create``."""

from __future__ import annotations

from typing import Any

__all__ = ["OcmObjects"]


class OcmObjects:
    """Clusters, a fleet bound to a namespace, placements: over :meth:`create`."""

    def create(self, kind: str, name: str, namespace: str | None = None, **body: Any) -> None:
        raise NotImplementedError  # each hub writes its own way

    def cluster(self, name: str, **labels: str) -> None:
        self.create(
            "ManagedCluster", name, metadata={"labels": labels}, spec={"hubAcceptsClient": True}
        )

    def fleet(self, clusters: dict[str, dict[str, str]], namespace: str = "ns") -> None:
        """Clusters, a set of all of them bound to ``namespace``."""
        for name, labels in clusters.items():
            self.cluster(name, **labels)
        self.create(
            "ManagedClusterSet",
            "all",
            spec={"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
        )
        self.create("ManagedClusterSetBinding", "all", namespace, spec={"clusterSet": "all"})

    def placement(
        self, name: str, spec: dict[str, Any] | None = None, namespace: str = "ns"
    ) -> None:
        self.create("Placement", name, namespace, spec=spec or {})
