"""Certificates and keys for the local control plane, made with :mod:`proctor.k8s.certs`.

One throw-away CA signs the API server's serving certificate and the client certificates of the
admin and the controller manager; an RSA key signs service-account tokens. Everything lives in the
dev directory and is regenerated when missing. Never use these outside a local test cluster.
"""

from __future__ import annotations

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
    if pki.ca_crt.exists() and pki.sa_key.exists() and pki.client("admin")[0].exists():
        return pki

    now = utc_now()
    ca = certs.authority("proctor-dev-ca", now=now)
    certs.write_key(pki.ca_key, ca.key)
    pki.ca_crt.write_bytes(certs.pem(ca.cert))

    def issue(path_crt: Path, path_key: Path, cn: str, org: str | None = None, *, server: bool) -> None:
        cert, key = certs.issue(
            ca, certs.name(cn, org), now=now, server=server, sans=APISERVER_SANS if server else ()
        )
        certs.write_key(path_key, key)
        path_crt.write_bytes(certs.pem(cert))

    issue(pki.apiserver_crt, pki.apiserver_key, "kube-apiserver", server=True)
    # Dev-only: both clients are cluster admins (system:masters), which keeps the local
    # controller manager free of per-controller credentials.
    issue(*pki.client("controller-manager"), "system:kube-controller-manager", "system:masters", server=False)
    issue(*pki.client("admin"), "proctor-dev-admin", "system:masters", server=False)

    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certs.write_key(pki.sa_key, sa)
    pki.sa_pub.write_bytes(
        sa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return pki
