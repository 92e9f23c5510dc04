"""Certificates and keys for the local control plane, made with ``cryptography``.

One throw-away CA signs the serving certificates of the API server and of the node stand-in's
kubelet endpoint, and the client certificates of the admin, the controller manager and the API
server (towards the kubelet endpoint, for ``kubectl logs``); an RSA key signs service-account
tokens. Everything lives in the dev directory and is regenerated when missing. Never use these
outside a local test cluster.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALIDITY = dt.timedelta(days=365)
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


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)


def _name(cn: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
    )


def ensure_pki(directory: Path) -> Pki:
    """Create the CA, serving, client and service-account keys unless they already exist."""
    directory.mkdir(parents=True, exist_ok=True)
    pki = Pki(directory)
    wanted = (pki.ca_crt, pki.sa_key, pki.client("admin")[0], pki.client(KUBELET_CLIENT)[0], pki.kubelet_crt)
    if all(p.exists() for p in wanted):
        return pki

    ca_key = _key()
    ca_name = _name("proctor-dev-ca")
    ca_cert = (
        _builder(ca_name, ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    _write_key(pki.ca_key, ca_key)
    pki.ca_crt.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))

    apiserver_names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.DNSName("kubernetes"),
        x509.DNSName("kubernetes.default"),
        x509.DNSName("kubernetes.default.svc"),
        x509.DNSName("kubernetes.default.svc.cluster.local"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("10.0.0.1")),
    ]

    def issue(
        path_crt: Path,
        path_key: Path,
        subject: x509.Name,
        *,
        server: bool,
        names: list[x509.GeneralName] | None = None,
    ) -> None:
        key = _key()
        b = _builder(subject, ca_name, key.public_key())
        if server:
            b = b.add_extension(x509.SubjectAlternativeName(names or apiserver_names), critical=False)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        cert = b.add_extension(x509.ExtendedKeyUsage([usage]), critical=False).sign(ca_key, hashes.SHA256())
        _write_key(path_key, key)
        path_crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))

    issue(pki.apiserver_crt, pki.apiserver_key, _name("kube-apiserver"), server=True)
    # Dev-only: both clients are cluster admins (system:masters), which keeps the local
    # controller manager free of per-controller credentials.
    issue(
        *pki.client("controller-manager"),
        _name("system:kube-controller-manager", "system:masters"),
        server=False,
    )
    issue(*pki.client("admin"), _name("proctor-dev-admin", "system:masters"), server=False)
    # The node's kubelet endpoint, reached by the API server at the node's InternalIP (127.0.0.1).
    issue(
        pki.kubelet_crt,
        pki.kubelet_key,
        _name("proctor-node"),
        server=True,
        names=[
            x509.DNSName("localhost"),
            x509.DNSName("proctor-node"),
            x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        ],
    )
    # The API server's client certificate towards kubelets (kubeadm's apiserver-kubelet-client).
    issue(*pki.client(KUBELET_CLIENT), _name("kube-apiserver-kubelet-client", "system:masters"), server=False)

    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write_key(pki.sa_key, sa)
    pki.sa_pub.write_bytes(
        sa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return pki
