"""The webhook's serving certificate: a private CA and a server certificate, with ``cryptography``.

(Kopf's own self-signed path needs oscrypto, which does not work against OpenSSL 3.) The CA bundle
goes into the MutatingWebhookConfiguration; files are written 0600 and reused while valid.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = dt.timedelta(days=365)
RENEW_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class WebhookCerts:
    certfile: Path
    keyfile: Path
    ca_pem: bytes


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _still_valid(path: Path, sans: list[str], now: dt.datetime) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError):
        return False
    if cert.not_valid_after_utc - RENEW_BEFORE < now:
        return False
    try:
        ext = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have = {str(v) for v in ext.get_values_for_type(x509.DNSName)}
    have |= {str(v) for v in ext.get_values_for_type(x509.IPAddress)}
    return set(sans) <= have


def ensure_certs(directory: Path, sans: list[str], *, now: dt.datetime | None = None) -> WebhookCerts:
    """A CA and a server certificate for ``sans`` (DNS names or IPs) in ``directory``."""
    now = now or dt.datetime.now(dt.UTC)
    directory.mkdir(parents=True, exist_ok=True)
    ca_crt, crt, key = directory / "ca.crt", directory / "tls.crt", directory / "tls.key"
    if ca_crt.exists() and key.exists() and _still_valid(crt, sans, now):
        return WebhookCerts(crt, key, ca_crt.read_bytes())
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("proctor-webhook-ca"))
        .issuer_name(_name("proctor-webhook-ca"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = []
    for s in sans:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(s)))
        except ValueError:
            alt.append(x509.DNSName(s))
    server = (
        x509.CertificateBuilder()
        .subject_name(_name(sans[0]))
        .issuer_name(ca.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    key.chmod(0o600)
    crt.write_bytes(server.public_bytes(serialization.Encoding.PEM))
    ca_crt.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return WebhookCerts(crt, key, ca_crt.read_bytes())
