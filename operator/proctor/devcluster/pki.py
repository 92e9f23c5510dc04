"""Certificates and keys for the local control plane, made with :mod:`proctor.k8s.certs`.

One throw-away CA signs the serving certificates of the API server and of the node stand-in's
kubelet endpoint, and the client certificates of the admin, the controller manager and the API
server (towards the kubelet endpoint, for ``kubectl logs``); an RSA key signs service-account
tokens. Everything lives in the dev directory and is regenerated when missing. Never use these
outside a local test cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from proctor.api import utc_now
from proctor.k8s import certs

#: Where the API server is reached from inside and outside the cluster.
APISERVER_SANS = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "127.0.0.1",
    "10.0.0.1",
)
#: Where the API server reaches the node's kubelet endpoint (the node's InternalIP is 127.0.0.1).
KUBELET_SANS = ("localhost", "proctor-node", "127.0.0.1")
#: The API server's client certificate towards the node stand-in's kubelet endpoint.
KUBELET_CLIENT = "apiserver-kubelet-client"


@dataclass(frozen=True)
class Pki:
    """Paths of the files the control plane's processes read."""

    dir: Path

    @property
    def ca_crt(self) -> Path:
        return self.dir / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.dir / "ca.key"

    @property
    def apiserver_crt(self) -> Path:
        return self.dir / "apiserver.crt"

    @property
    def apiserver_key(self) -> Path:
        return self.dir / "apiserver.key"

    @property
    def kubelet_crt(self) -> Path:
        """The node stand-in's serving certificate (its kubelet endpoint)."""
        return self.dir / "kubelet.crt"

    @property
    def kubelet_key(self) -> Path:
        return self.dir / "kubelet.key"

    @property
    def sa_key(self) -> Path:
        return self.dir / "sa.key"

    @property
    def sa_pub(self) -> Path:
        return self.dir / "sa.pub"

    def client(self, name: str) -> tuple[Path, Path]:
        return self.dir / f"{name}.crt", self.dir / f"{name}.key"


def ensure_pki(directory: Path) -> Pki:
    """Create the CA, serving, client and service-account keys unless they already exist."""
    directory.mkdir(parents=True, exist_ok=True)
    pki = Pki(directory)
    wanted = (pki.ca_crt, pki.sa_key, pki.client("admin")[0], pki.client(KUBELET_CLIENT)[0], pki.kubelet_crt)
    if all(p.exists() for p in wanted):
        return pki

    now = utc_now()
    ca = certs.authority("proctor-dev-ca", now=now)
    certs.write_key(pki.ca_key, ca.key)
    pki.ca_crt.write_bytes(certs.pem(ca.cert))

    def issue(
        path_crt: Path, path_key: Path, cn: str, org: str | None = None, *, sans: Sequence[str] = ()
    ) -> None:
        cert, key = certs.issue(ca, certs.name(cn, org), now=now, server=bool(sans), sans=sans)
        certs.write_key(path_key, key)
        path_crt.write_bytes(certs.pem(cert))

    issue(pki.apiserver_crt, pki.apiserver_key, "kube-apiserver", sans=APISERVER_SANS)
    # Dev-only: the clients are cluster admins (system:masters), which keeps the local
    # controller manager free of per-controller credentials.
    issue(*pki.client("controller-manager"), "system:kube-controller-manager", "system:masters")
    issue(*pki.client("admin"), "proctor-dev-admin", "system:masters")
    # The node's kubelet endpoint, and the API server's client certificate towards it
    # (kubeadm's apiserver-kubelet-client).
    issue(pki.kubelet_crt, pki.kubelet_key, "proctor-node", sans=KUBELET_SANS)
    issue(*pki.client(KUBELET_CLIENT), "kube-apiserver-kubelet-client", "system:masters")

    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certs.write_key(pki.sa_key, sa)
    pki.sa_pub.write_bytes(
        sa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return pki
