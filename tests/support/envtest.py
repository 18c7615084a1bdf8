"""A real Kubernetes API server for tests, as controller-runtime's envtest starts one:
etcd and kube-apiserver (and, where a test needs garbage collection or namespace
deletion, kube-controller-manager) from a ``KUBEBUILDER_ASSETS`` folder, on free
loopback ports, with the CRDs of the folder ``CLUSTERPLACE_ENVTEST_CRDS`` names
installed and Established.

The server is a real one: RBAC authorization (a ``system:masters`` admin token and a
restricted token that has no rights until a RoleBinding grants them), admission
(NamespaceLifecycle, ServiceAccount, OwnerReferencesPermissionEnforcement), schema
validation of custom resources, and an audit log of every request (user, verb, URI,
code, user agent) that :meth:`Envtest.audit` reads.

Where either variable is missing, :func:`start_or_skip` skips the test, naming the
variable; with ``CLUSTERPLACE_REQUIRE_ENVTEST=1`` (CI sets it) it fails instead.

:class:`RealHub` is the same kubectl-like face as :class:`tests.support.kube_hub.KubeHub`
over the emulator (``create``, ``patch``, ``delete``, ``fleet``, ``placement``,
``decisions``, ``status``, ``writes``), so one test body can run against both.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.ocm_hub import OcmObjects
from tests.support.waiting import wait_for

__all__ = [
    "ADMIN_TOKEN",
    "ASSETS_VAR",
    "CRDS_VAR",
    "REPLICA_USERS",
    "REQUIRE_VAR",
    "RESTRICTED_TOKEN",
    "RESTRICTED_USER",
    "Envtest",
    "RealHub",
    "ensure_namespace",
    "envtest_config",
    "envtest_server",
    "resource_path",
    "start_or_skip",
    "write_kubeconfig",
]

ASSETS_VAR = "KUBEBUILDER_ASSETS"
CRDS_VAR = "CLUSTERPLACE_ENVTEST_CRDS"
REQUIRE_VAR = "CLUSTERPLACE_REQUIRE_ENVTEST"
ADMIN_TOKEN = "admin-token"
RESTRICTED_TOKEN = "restricted-token"
RESTRICTED_USER = "envtest-restricted"
# system:masters users with a token each (``<user>-token``), so that the audit log tells
# apart the requests of processes that would otherwise share the admin's.
REPLICA_USERS = ("replica-a", "replica-b", "replica-c")
OCM = "cluster.open-cluster-management.io"
STARTUP_S = 90.0


def envtest_config() -> tuple[Path, Path] | str:
    """The assets and CRDs folders, or why the tier cannot run (the variables to set)."""
    missing = [var for var in (ASSETS_VAR, CRDS_VAR) if not os.environ.get(var)]
    if missing:
        return (
            f"the envtest tier needs a real API server: set {' and '.join(missing)} "
            f"({ASSETS_VAR}: a folder with etcd, kube-apiserver and kube-controller-manager, "
            f"as `setup-envtest use` prints; {CRDS_VAR}: a folder of CRD YAML files, "
            "e.g. open-cluster-management-io/api's)"
        )
    assets, crds = Path(os.environ[ASSETS_VAR]), Path(os.environ[CRDS_VAR])
    for var, folder in ((ASSETS_VAR, assets), (CRDS_VAR, crds)):
        if not folder.is_dir():
            return f"{var}={folder}: no such folder"
    for binary in ("etcd", "kube-apiserver"):
        if not os.access(assets / binary, os.X_OK):
            return f"{ASSETS_VAR}={assets}: no executable {binary} there"
    return assets, crds


def start_or_skip(
    folder: Path, *, controller_manager: bool = True, skip_crds: tuple[str, ...] = ()
) -> Envtest:
    """A started server, or the test skipped (failed when the tier is required);
    ``skip_crds``: plurals of CRDs not to install (a hub without them)."""
    config = envtest_config()
    if isinstance(config, str):
        if os.environ.get(REQUIRE_VAR) == "1":
            pytest.fail(f"{REQUIRE_VAR}=1 but {config}")
        pytest.skip(config)
    assets, crds = config
    # setup-envtest ships no controller manager: without one, the server runs without
    # garbage collection and namespace deletion, and the tests that need them skip
    # (:meth:`Envtest.require_controller_manager`).
    controller_manager = controller_manager and os.access(
        assets / "kube-controller-manager", os.X_OK
    )
    server = Envtest(folder, assets, crds, controller_manager=controller_manager)
    server.skip_crds = skip_crds
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_pki(pki: Path) -> None:
    """A CA, the API server's serving certificate for 127.0.0.1, the service-account
    key pair and a client certificate for the controller manager."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    pki.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def key() -> rsa.RSAPrivateKey:
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def write_key(path: Path, private: rsa.RSAPrivateKey) -> None:
        path.write_bytes(
            private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )

    def name(common: str, org: str | None = None) -> x509.Name:
        parts = [x509.NameAttribute(NameOID.COMMON_NAME, common)]
        if org:
            parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
        return x509.Name(parts)

    ca_key = key()
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("envtest-ca"))
        .issuer_name(name("envtest-ca"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )

    def leaf(common: str, usage: Any, san: x509.SubjectAlternativeName | None) -> Any:
        private = key()
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(common))
            .issuer_name(ca.subject)
            .public_key(private.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if san is not None:
            builder = builder.add_extension(san, critical=False)
        return private, builder.sign(ca_key, hashes.SHA256())

    san = x509.SubjectAlternativeName(
        [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    )
    serving_key, serving = leaf("kube-apiserver", ExtendedKeyUsageOID.SERVER_AUTH, san)
    kcm_key, kcm = leaf("system:kube-controller-manager", ExtendedKeyUsageOID.CLIENT_AUTH, None)
    pem = serialization.Encoding.PEM
    (pki / "ca.crt").write_bytes(ca.public_bytes(pem))
    (pki / "apiserver.crt").write_bytes(serving.public_bytes(pem))
    write_key(pki / "apiserver.key", serving_key)
    (pki / "kcm.crt").write_bytes(kcm.public_bytes(pem))
    write_key(pki / "kcm.key", kcm_key)
    sa_key = key()
    write_key(pki / "sa.key", sa_key)
    (pki / "sa.pub").write_bytes(
        sa_key.public_key().public_bytes(pem, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    (pki / "tokens.csv").write_text(
        f'{ADMIN_TOKEN},envtest-admin,1,"system:masters"\n{RESTRICTED_TOKEN},{RESTRICTED_USER},2,\n'
    )
    with (pki / "tokens.csv").open("a") as tokens:
        for uid, user in enumerate(REPLICA_USERS, start=100):
            tokens.write(f'{user}-token,{user},{uid},"system:masters"\n')
    (pki / "audit-policy.yaml").write_text(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
        '- level: None\n  users: ["system:apiserver", "system:kube-controller-manager"]\n'
        "- level: Metadata\n"
    )


class Envtest:
    """etcd + kube-apiserver (+ kube-controller-manager) in ``folder``; see the module."""

    def __init__(
        self, folder: Path, assets: Path, crds: Path, *, controller_manager: bool = True
    ) -> None:
        self.folder = folder
        self.assets = assets
        self.crds = crds
        self.controller_manager = controller_manager
        self.pki = folder / "pki"
        self.logs = folder / "logs"
        self.audit_log = self.logs / "audit.log"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.url = ""
        self.etcd_url = ""
        self.kubeconfig = folder / "admin.kubeconfig"
        self.restricted_kubeconfig = folder / "restricted.kubeconfig"
        self._context: ssl.SSLContext | None = None
        self.skip_crds: tuple[str, ...] = ()  # plurals of CRDs start() leaves out
        self._audit_inode: int | None = None  # what audit() read so far, of which file
        self._audit_offset = 0
        self._audit_entries: list[dict[str, Any]] = []

    def require_controller_manager(self) -> None:
        """Skip the test (fail it where the tier is required) when this server runs
        without kube-controller-manager (garbage collection, namespace deletion)."""
        if self.controller_manager:
            return
        why = f"{ASSETS_VAR}={self.assets} has no kube-controller-manager; this test needs one"
        if os.environ.get(REQUIRE_VAR) == "1":
            pytest.fail(why)
        pytest.skip(why)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        if not (self.pki / "ca.crt").is_file():
            _write_pki(self.pki)
        self._context = ssl.create_default_context(cafile=str(self.pki / "ca.crt"))
        self._start_etcd()
        self.start_apiserver()
        self._write_kubeconfigs()
        if self.controller_manager:
            self._start_controller_manager()
        self.install_crds(self.crds, skip=self.skip_crds)

    def _spawn(self, name: str, args: list[str]) -> None:
        log = (self.logs / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()

    def _start_etcd(self) -> None:
        client, peer = _free_port(), _free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        self._spawn(
            "etcd",
            [
                str(self.assets / "etcd"),
                "--name=envtest",
                f"--data-dir={self.folder / 'etcd-data'}",
                f"--listen-client-urls={self.etcd_url}",
                f"--advertise-client-urls={self.etcd_url}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-cluster=envtest=http://127.0.0.1:{peer}",
                "--listen-metrics-urls=",
                "--unsafe-no-fsync",
                "--quota-backend-bytes=2147483648",
            ],
        )

    def _apiserver_args(self, port: str, *, audit: bool, prefix: str | None = None) -> list[str]:
        """kube-apiserver's command line on ``port`` (with the audit log; with the etcd
        key ``prefix`` instead of the default one)."""
        pki = self.pki
        args = [
            str(self.assets / "kube-apiserver"),
            f"--etcd-servers={self.etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={port}",
            f"--tls-cert-file={pki / 'apiserver.crt'}",
            f"--tls-private-key-file={pki / 'apiserver.key'}",
            f"--client-ca-file={pki / 'ca.crt'}",
            f"--token-auth-file={pki / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki / 'sa.pub'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.96.0.0/24",
            "--enable-admission-plugins="
            "NamespaceLifecycle,ServiceAccount,OwnerReferencesPermissionEnforcement",
            "--profiling=false",
            "--v=1",
        ]
        if audit:
            args[-2:-2] = [
                f"--audit-policy-file={pki / 'audit-policy.yaml'}",
                f"--audit-log-path={self.audit_log}",
                "--audit-log-maxsize=500",
            ]
        if prefix is not None:
            args.append(f"--etcd-prefix={prefix}")
        return args

    def start_apiserver(self) -> None:
        """Start kube-apiserver (again, after :meth:`stop_apiserver`: on its old port
        when it had one) and wait until it is ready."""
        if not self.url:
            self.url = f"https://127.0.0.1:{_free_port()}"
        port = self.url.rsplit(":", 1)[1]
        self._spawn("kube-apiserver", self._apiserver_args(port, audit=True))
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            proc = self.processes["kube-apiserver"]
            if proc.poll() is not None:
                raise RuntimeError(f"kube-apiserver exited: {self._tail('kube-apiserver')}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                if self.request("GET", "/readyz", timeout=2)[1] == "ok":
                    return
            time.sleep(0.2)
        tail = self._tail("kube-apiserver")
        raise RuntimeError(f"kube-apiserver not ready in {STARTUP_S}s: {tail}")

    def stop_apiserver(self, sig: int = signal.SIGKILL) -> None:
        self._stop("kube-apiserver", sig)

    def pause(self, name: str = "kube-apiserver") -> None:
        """Freeze a process (SIGSTOP): a server that accepts connections and answers none."""
        os.kill(self.processes[name].pid, signal.SIGSTOP)

    def resume(self, name: str = "kube-apiserver") -> None:
        os.kill(self.processes[name].pid, signal.SIGCONT)

    def _stop(self, name: str, sig: int) -> None:
        proc = self.processes.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGCONT)
            os.killpg(proc.pid, sig)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def stop(self) -> None:
        """Stop everything that was started (SIGKILL: the data is a test's, thrown away)."""
        members = [name for name in self.processes if name.startswith("member-")]
        for name in (*members, "kube-controller-manager", "kube-apiserver", "etcd"):
            self._stop(name, signal.SIGKILL)

    def start_members(self, names: list[str]) -> dict[str, str]:
        """One more kube-apiserver per name on this server's etcd, each under its own key
        prefix: separate clusters (each its own objects; no CRDs, no audit log, no
        controller manager) with this server's CA and tokens, as the member clusters of
        ``route --to-kubeconfig``. Started side by side, then waited for until each is
        ready; their URLs by name. :meth:`stop` stops them too."""
        urls: dict[str, str] = {}
        for name in names:
            port = _free_port()
            urls[name] = f"https://127.0.0.1:{port}"
            args = self._apiserver_args(str(port), audit=False, prefix=f"/members/{name}")
            self._spawn(f"member-{name}", args)
        deadline = time.monotonic() + STARTUP_S * max(1, len(names) // 2)
        for name, url in urls.items():
            while True:
                if self.processes[f"member-{name}"].poll() is not None:
                    raise RuntimeError(f"member {name} exited: {self._tail(f'member-{name}')}")
                with contextlib.suppress(OSError, urllib.error.URLError):
                    if self.request("GET", "/readyz", timeout=2, base=url)[1] == "ok":
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"member {name} not ready: {self._tail(f'member-{name}')}")
                time.sleep(0.2)
        return urls

    def members_kubeconfig(self, path: Path, urls: dict[str, str]) -> Path:
        """A kubeconfig with a context per member (named after it), as the admin."""
        ca = str(self.pki / "ca.crt")
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": n, "cluster": {"server": url, "certificate-authority": ca}}
                for n, url in urls.items()
            ],
            "users": [{"name": "admin", "user": {"token": ADMIN_TOKEN}}],
            "contexts": [{"name": n, "context": {"cluster": n, "user": "admin"}} for n in urls],
            "current-context": next(iter(urls)),
        }
        path.write_text(yaml.safe_dump(config))
        return path

    def _tail(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        lines = path.read_text(errors="replace").splitlines() if path.is_file() else []
        return "\n".join(lines[-15:])

    def _write_kubeconfigs(self) -> None:
        def write(path: Path, user: dict[str, str], name: str) -> None:
            config = {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": "envtest",
                        "cluster": {
                            "server": self.url,
                            "certificate-authority": str(self.pki / "ca.crt"),
                        },
                    }
                ],
                "users": [{"name": name, "user": user}],
                "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": name}}],
                "current-context": "envtest",
            }
            path.write_text(yaml.safe_dump(config))

        write(self.kubeconfig, {"token": ADMIN_TOKEN}, "admin")
        write(self.restricted_kubeconfig, {"token": RESTRICTED_TOKEN}, "restricted")
        write(
            self.folder / "kcm.kubeconfig",
            {
                "client-certificate": str(self.pki / "kcm.crt"),
                "client-key": str(self.pki / "kcm.key"),
            },
            "kcm",
        )

    def replica_kubeconfig(self, user: str) -> Path:
        """The admin kubeconfig with the token of ``user``, one of :data:`REPLICA_USERS`."""
        if user not in REPLICA_USERS:
            raise ValueError(f"{user!r} is not one of {REPLICA_USERS}")
        config = yaml.safe_load(self.kubeconfig.read_text())
        for entry in config["users"]:
            entry["user"] = {"token": f"{user}-token"}
        path = self.folder / f"{user}.kubeconfig"
        path.write_text(yaml.safe_dump(config))
        return path

    def _start_controller_manager(self) -> None:
        self.apply(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": "envtest-kcm"},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": "cluster-admin",
                },
                "subjects": [
                    {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "User",
                        "name": "system:kube-controller-manager",
                    }
                ],
            }
        )
        kcm = str(self.folder / "kcm.kubeconfig")
        self._spawn(
            "kube-controller-manager",
            [
                str(self.assets / "kube-controller-manager"),
                f"--kubeconfig={kcm}",
                f"--authentication-kubeconfig={kcm}",
                f"--authorization-kubeconfig={kcm}",
                "--bind-address=127.0.0.1",
                f"--secure-port={_free_port()}",
                "--leader-elect=false",
                "--controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token",
                f"--service-account-private-key-file={self.pki / 'sa.key'}",
                f"--root-ca-file={self.pki / 'ca.crt'}",
                "--use-service-account-credentials=false",
                "--v=1",
            ],
        )

    def install_crds(self, folder: Path, *, skip: tuple[str, ...] = ()) -> list[str]:
        """Apply every CRD of ``folder`` (but those whose plural is in ``skip``) and
        wait until each is Established; their names."""
        names: list[str] = []
        for file in sorted(folder.glob("*.yaml")):
            for crd in yaml.safe_load_all(file.read_text()):
                if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                    continue
                if crd["spec"]["names"]["plural"] in skip:
                    continue
                self.apply(crd)
                names.append(crd["metadata"]["name"])
        for name in names:
            crd_path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            wait_for(
                lambda path=crd_path: any(  # type: ignore[misc]
                    c.get("type") == "Established" and c.get("status") == "True"
                    for c in (self.get(path) or {}).get("status", {}).get("conditions", [])
                ),
                60,
                f"CRD {name} Established",
            )
        return names

    # -- requests ----------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str = ADMIN_TOKEN,
        content_type: str = "application/json",
        timeout: float = 30,
        base: str | None = None,
    ) -> tuple[int, Any]:
        """(status, decoded body) of one request as the admin (or ``token``), to this
        server (or the one at ``base``: a member's URL)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            (base or self.url) + path,
            data=data,
            method=method,
            headers={
                "Content-Type": content_type,
                "Authorization": f"Bearer {token}",
                "User-Agent": "envtest-fixture",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self._context) as resp:
                raw = resp.read()
                status = resp.status
        except urllib.error.HTTPError as err:
            raw, status = err.read(), err.code
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def get(self, path: str) -> Any:
        status, body = self.request("GET", path)
        return body if status == 200 else None

    def apply(self, obj: dict[str, Any], *, manager: str = "envtest-fixture") -> Any:
        """Server-side apply ``obj`` as the admin (forced); the stored object."""
        path = _object_path(obj)
        status, body = self.request(
            "PATCH",
            f"{path}?fieldManager={manager}&force=true",
            obj,
            content_type="application/apply-patch+yaml",
        )
        assert status in (200, 201), (path, status, body)
        return body

    def audit(self) -> list[dict[str, Any]]:
        """Every request the audit log holds so far (one dict per request). Only what
        was appended since the last call is read: tests poll this every few ms, and a
        module's log grows to megabytes."""
        try:
            handle = self.audit_log.open("rb")
        except FileNotFoundError:
            return []
        with handle:
            inode = os.fstat(handle.fileno()).st_ino
            if inode != self._audit_inode:  # a new file (rotated at its size limit)
                self._audit_inode, self._audit_offset, self._audit_entries = inode, 0, []
            handle.seek(self._audit_offset)
            chunk = handle.read()
        complete = chunk.rfind(b"\n") + 1  # a line being written is read next time
        for line in chunk[:complete].decode(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                self._audit_entries.append(json.loads(line))
        self._audit_offset += complete
        return list(self._audit_entries)


SIG_GROUP = "multicluster.x-k8s.io"

_PLURALS = {
    "Namespace": ("namespaces", False),
    "ConfigMap": ("configmaps", True),
    "Secret": ("secrets", True),
    "ServiceAccount": ("serviceaccounts", True),
    "Service": ("services", True),
    "Lease": ("leases", True),
    "Event": ("events", True),
    "Deployment": ("deployments", True),
    "ClusterRole": ("clusterroles", False),
    "ClusterRoleBinding": ("clusterrolebindings", False),
    "Role": ("roles", True),
    "RoleBinding": ("rolebindings", True),
    "CustomResourceDefinition": ("customresourcedefinitions", False),
    "ManagedCluster": ("managedclusters", False),
    "ManagedClusterSet": ("managedclustersets", False),
    "ManagedClusterSetBinding": ("managedclustersetbindings", True),
    "Placement": ("placements", True),
    "PlacementDecision": ("placementdecisions", True),
    "AddOnPlacementScore": ("addonplacementscores", True),
    "ManifestWork": ("manifestworks", True),
    "ManifestWorkReplicaSet": ("manifestworkreplicasets", True),
    "AppliedManifestWork": ("appliedmanifestworks", False),
    "ClusterProfile": ("clusterprofiles", True),
}


def resource_path(
    api_version: str, kind: str, namespace: str | None = None, name: str | None = None
) -> str:
    """The REST path of a kind's collection (in ``namespace``) or of one object."""
    plural, namespaced = _PLURALS[kind]
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    if namespaced and namespace is not None:
        base += f"/namespaces/{namespace}"
    return f"{base}/{plural}" + (f"/{name}" if name else "")


def _object_path(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return resource_path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])


_VERSIONS = {
    "ManagedCluster": "v1",
    "ManagedClusterSet": "v1beta2",
    "ManagedClusterSetBinding": "v1beta2",
    "Placement": "v1beta1",
    "PlacementDecision": "v1beta1",
    "AddOnPlacementScore": "v1alpha1",
}


_API_VERSIONS = {
    "Event": "events.k8s.io/v1",
    "Lease": "coordination.k8s.io/v1",
    "ManifestWork": "work.open-cluster-management.io/v1",
    "ManifestWorkReplicaSet": "work.open-cluster-management.io/v1alpha1",
}


def ensure_namespace(server: Envtest, name: str, made: set[str]) -> None:
    """Create the namespace ``name`` unless it is in ``made`` (the ones made already)."""
    if name in made:
        return
    status, body = server.request("POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    assert status in (201, 409), (name, status, body)
    made.add(name)


class RealHub(OcmObjects):
    """The real server with :class:`tests.support.kube_hub.KubeHub` 's face: OCM objects
    written as kubectl would (namespaces created as needed), decisions and status read
    back, and the controller's writes read from the audit log."""

    def __init__(self, server: Envtest, folder: Path) -> None:
        self.server = server
        self.folder = folder
        self.url = server.url
        self.kubeconfig = server.kubeconfig
        self._namespaces: set[str] = set()

    @staticmethod
    def path(kind: str, name: str | None = None, namespace: str | None = None) -> str:
        version = f"{OCM}/{_VERSIONS[kind]}"
        _, namespaced = _PLURALS[kind]
        return resource_path(version, kind, (namespace or "default") if namespaced else None, name)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        kind = "application/merge-patch+json" if method == "PATCH" else "application/json"
        return self.server.request(method, path, body, content_type=kind)

    def namespace(self, name: str) -> None:
        """Create the namespace ``name`` unless this hub made it already."""
        ensure_namespace(self.server, name, self._namespaces)

    def create(self, kind: str, name: str, namespace: str | None = None, **body: Any) -> None:
        _, namespaced = _PLURALS[kind]
        meta: dict[str, Any] = {"name": name, **body.pop("metadata", {})}
        if namespaced:
            meta["namespace"] = namespace or "default"
            self.namespace(meta["namespace"])
        obj = {"apiVersion": f"{OCM}/{_VERSIONS[kind]}", "kind": kind, "metadata": meta, **body}
        status, answer = self.request("POST", self.path(kind, namespace=meta.get("namespace")), obj)
        assert status in (200, 201), (kind, name, status, answer)

    def patch(self, kind: str, name: str, body: Any, namespace: str | None = None) -> None:
        status, answer = self.request("PATCH", self.path(kind, name, namespace), body)
        assert status == 200, (kind, name, status, answer)

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        status, answer = self.request("DELETE", self.path(kind, name, namespace))
        assert status in (200, 202), (kind, name, status, answer)

    def objects(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """The objects of ``kind`` (in ``namespace``, or everywhere)."""
        version = f"{OCM}/{_VERSIONS[kind]}" if kind in _VERSIONS else "v1"
        found = self.server.get(resource_path(version, kind, namespace))
        return list((found or {}).get("items") or [])

    def decisions(self, namespace: str = "ns") -> dict[str, list[str]]:
        """Each PlacementDecision's clusters, by name."""
        return {
            obj["metadata"]["name"]: [
                d["clusterName"] for d in (obj.get("status") or {}).get("decisions") or ()
            ]
            for obj in self.objects("PlacementDecision", namespace)
        }

    def status(self, name: str, namespace: str = "ns") -> dict[str, Any]:
        found = self.server.get(self.path("Placement", name, namespace)) or {}
        return dict(found.get("status") or {})

    def writes(self, agent: str = "clusterplace") -> list[dict[str, Any]]:
        """The audit log's writes (not reads) made with a User-Agent starting ``agent``."""
        return [
            entry
            for entry in self.server.audit()
            if entry.get("verb") not in ("get", "list", "watch")
            and str(entry.get("userAgent", "")).startswith(agent)
        ]

    def events(self, namespace: str = "ns") -> list[dict[str, Any]]:
        found = self.server.get(f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")
        return list((found or {}).get("items") or [])

    faults = False  # a real server: no scripted faults, no request bodies in its log

    def stored(self, plural: str) -> dict[tuple[str | None, str], dict[str, Any]]:
        """Every object of ``plural`` (a kind's plural: ``placements``, ``events``,
        ``leases`` ...), by (namespace, name): :class:`KubeHub` 's reader."""
        kind = next(k for k, (p, _) in _PLURALS.items() if p == plural)
        version = _API_VERSIONS.get(kind) or f"{OCM}/{_VERSIONS[kind]}"
        found = self.server.get(resource_path(version, kind)) or {}
        return {
            (obj["metadata"].get("namespace"), obj["metadata"]["name"]): obj
            for obj in found.get("items") or ()
        }

    def watches(self) -> int:
        """How many watches a clusterplace client holds open now (the audit log's
        watches started and not completed)."""
        started: set[str] = set()
        ended: set[str] = set()
        for entry in self.server.audit():
            if entry.get("verb") != "watch":
                continue
            if not str(entry.get("userAgent", "")).startswith("clusterplace"):
                continue
            if entry.get("stage") == "ResponseStarted":
                started.add(entry["auditID"])
            elif entry.get("stage") in ("ResponseComplete", "Panic"):
                ended.add(entry["auditID"])
        return len(started - ended)

    def controller_writes(self) -> list[tuple[str, str]]:
        """(HTTP method, path) of every write a clusterplace client made, in order."""
        methods = {"create": "POST", "update": "PUT", "patch": "PATCH", "delete": "DELETE"}
        return [
            (methods.get(entry["verb"], entry["verb"]), entry["requestURI"].split("?", 1)[0])
            for entry in self.writes()
            if entry.get("stage") == "ResponseComplete"
        ]

    def reset(self) -> None:
        """Delete every OCM object (finalizers cleared first): the next test starts
        from an empty hub. Namespaces stay (deleting one takes the controller manager
        seconds, and a test may create objects in it again at once)."""
        # The SIG-Multicluster kinds first (when served): ClusterProfiles, and the
        # PlacementDecisions of multicluster.x-k8s.io.
        for plural in ("clusterprofiles", "placementdecisions"):
            listing = self.server.get(f"/apis/{SIG_GROUP}/v1alpha1/{plural}") or {}
            for obj in listing.get("items") or ():
                meta = obj["metadata"]
                self.server.request(
                    "DELETE",
                    f"/apis/{SIG_GROUP}/v1alpha1/namespaces/{meta['namespace']}/{plural}/"
                    f"{meta['name']}",
                )
        kinds = [
            ("ManifestWorkReplicaSet", "work.open-cluster-management.io/v1alpha1"),
            ("ManifestWork", "work.open-cluster-management.io/v1"),
            *((kind, f"{OCM}/{version}") for kind, version in _VERSIONS.items()),
        ]
        for kind, version in kinds:
            listing = self.server.get(resource_path(version, kind)) or {}
            for obj in listing.get("items") or ():
                meta = obj["metadata"]
                path = resource_path(version, kind, meta.get("namespace"), meta["name"])
                if meta.get("finalizers"):
                    self.server.request(
                        "PATCH",
                        path,
                        {"metadata": {"finalizers": None}},
                        content_type="application/merge-patch+json",
                    )
                self.server.request("DELETE", path)
        # The controller's Leases too: a test that leaves one held would make the next
        # test's controller stand by for a lease duration.
        leases = self.server.get("/apis/coordination.k8s.io/v1/leases") or {}
        for lease in leases.get("items") or ():
            meta = lease["metadata"]
            if meta.get("namespace") in ("kube-system", "kube-node-lease"):
                continue
            self.server.request(
                "DELETE",
                f"/apis/coordination.k8s.io/v1/namespaces/{meta['namespace']}/leases/{meta['name']}",
            )
        for kind, version in kinds:
            wait_for(
                lambda kind=kind, version=version: (
                    not (  # type: ignore[misc]
                        (self.server.get(resource_path(version, kind)) or {}).get("items")
                    )
                ),
                30,
                f"every {kind} deleted",
            )


def write_kubeconfig(path: Path, contexts: dict[str, tuple[Envtest, str]]) -> Path:
    """A kubeconfig with a context per entry (context name -> the server and the bearer
    token its user sends): several members on one or more real servers, each server a
    cluster entry with its CA file, as kubectl's own kubeconfigs name them."""
    servers: dict[str, Envtest] = {}
    for server, _ in contexts.values():
        servers.setdefault(server.url, server)
    cluster_of = {url: f"server-{i}" for i, url in enumerate(servers)}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster_of[url],
                "cluster": {"server": url, "certificate-authority": str(s.pki / "ca.crt")},
            }
            for url, s in servers.items()
        ],
        "users": [
            {"name": f"user-{name}", "user": {"token": token}}
            for name, (_, token) in contexts.items()
        ],
        "contexts": [
            {"name": name, "context": {"cluster": cluster_of[s.url], "user": f"user-{name}"}}
            for name, (s, _) in contexts.items()
        ],
        "current-context": next(iter(contexts)),
    }
    path.write_text(yaml.safe_dump(config))
    return path


@contextlib.contextmanager
def envtest_server(
    folder: Path, *, controller_manager: bool = True, skip_crds: tuple[str, ...] = ()
) -> Iterator[Envtest]:
    """:func:`start_or_skip`, stopped on exit."""
    server = start_or_skip(folder, controller_manager=controller_manager, skip_crds=skip_crds)
    try:
        yield server
    finally:
        server.stop()
