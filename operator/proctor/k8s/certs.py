"""Certificates for the TLS endpoints Proctor runs or starts: one private CA, the certificates it signs.

The one builder behind both the admission webhook's serving certificate (:mod:`proctor.gate.certs`)
and the local control plane's PKI (:mod:`proctor.devcluster.pki`). Pure apart from key generation:
callers decide where files go (:func:`write_key`, :func:`pem`). EC P-256 keys, SHA-256 signatures,
valid from five minutes ago (clock skew between processes) for ``validity``.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = dt.timedelta(days=365)
#: How far back ``not_valid_before`` lies, so a certificate is valid at once on every clock.
SKEW = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class Authority:
    """A CA that signs certificates: its certificate and its key."""

    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    @property
    def name(self) -> x509.Name:
        return self.cert.subject


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def name(common_name: str, organization: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attrs)


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey, now: dt.datetime
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - SKEW)
        .not_valid_after(now + VALIDITY)
    )


def authority(common_name: str, *, now: dt.datetime, path_length: int | None = None) -> Authority:
    """A self-signed CA that may sign certificates (and, with ``path_length`` None, other CAs)."""
    key = new_key()
    subject = name(common_name)
    cert = (
        _builder(subject, subject, key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
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
        .sign(key, hashes.SHA256())
    )
    return Authority(cert, key)


def alt_names(sans: Sequence[str]) -> list[x509.GeneralName]:
    """DNS names and IP addresses for a SubjectAlternativeName (an address is recognised as one)."""
    out: list[x509.GeneralName] = []
    for s in sans:
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(s)))
        except ValueError:
            out.append(x509.DNSName(s))
    return out


def issue(
    ca: Authority, subject: x509.Name, *, now: dt.datetime, server: bool, sans: Sequence[str] = ()
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A certificate signed by ``ca``, for a server (with ``sans``) or a client, and its new key."""
    key = new_key()
    b = _builder(subject, ca.name, key.public_key(), now)
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(alt_names(sans)), critical=False)
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    cert = b.add_extension(x509.ExtendedKeyUsage([usage]), critical=False).sign(ca.key, hashes.SHA256())
    return cert, key


def pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    """A private key as PKCS#8 PEM, readable by its owner only."""
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    path.chmod(0o600)
