"""What the tests share, by concern. Test modules import from here (never from one
another, nor from another folder's helpers); a folder's own ``_helpers.py`` holds only
what that folder alone uses.

- ``paths``: the repository, its examples, the tests' data and golden files.
- ``builders``: OCM objects (clusters, sets, bindings, placements, decisions, scores),
  Federation annotations, fleets written to files.
- ``scheduling``: running the scheduler on built objects and reading its results.
- ``worlds``: hypothesis strategies for small fleets that change.
- ``sinks``: an in-memory hub for the controller's reconcile core (``MemorySink``).
- ``cli``: the ``clusterplace`` command in process (``run``) or as a process
  (``run_process``), and golden files.
- ``directory_hub``: ``controller --hub DIR`` as a live process, and what it wrote.
- ``emulator``: a Kubernetes API server emulator (kmock) for the Kubernetes hub, for
  the faults a real server cannot be made to produce.
- ``envtest``: a real API server (etcd, kube-apiserver, kube-controller-manager) from
  ``KUBEBUILDER_ASSETS``, and ``RealHub``, the emulator hub's face on it.
- ``ocm_hub``: the OCM objects both Kubernetes hubs (emulated and real) write alike.
- ``kube_hub``: kubeconfigs, kubectl-like requests, ``controller --kubeconfig``.
- ``scenario_hub``: upstream OCM's integration scenarios' hub, on a folder or on a real
  API server, with the controller watching it.
- ``explorer``: the explorer in process, and ``clusterplace serve`` as a process.
- ``synthetic``: a fleet of any size (1,000 clusters) for the explorer at scale.
- ``browser``: the explorer in chromium (Playwright): served in a thread, screenshots.
- ``faults``: faults injected into a CLI child process (crashes, errno, unreadable).
- ``defkit``: the example definition module and CUE text helpers.
- ``waiting``: polling until another process or thread has done something.

The fixtures (``run``, ``run_process``, ``golden``, and the envtest tier's ``envtest``,
``envtest_no_kcm`` and ``realhub``) are in ``tests/conftest.py``.
"""
