"""The webhook's serving certificate: a private CA and a server certificate (:mod:`proctor.k8s.certs`).

(Kopf's own self-signed path needs oscrypto, which does not work against OpenSSL 3.) The CA bundle
goes into the MutatingWebhookConfiguration; files are written 0600 and reused while valid.
"""

from __future__ import annotations

import datetime as dt
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509

from proctor.api import utc_now
from proctor.k8s import certs

RENEW_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class WebhookCerts:
    certfile: Path
    keyfile: Path
    ca_pem: bytes


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
    now = now or utc_now()
    directory.mkdir(parents=True, exist_ok=True)
    ca_crt, crt, key = directory / "ca.crt", directory / "tls.crt", directory / "tls.key"
    if ca_crt.exists() and key.exists() and _still_valid(crt, sans, now):
        return WebhookCerts(crt, key, ca_crt.read_bytes())
    ca = certs.authority("proctor-webhook-ca", now=now, path_length=0)
    server, server_key = certs.issue(ca, certs.name(sans[0]), now=now, server=True, sans=sans)
    certs.write_key(key, server_key)
    crt.write_bytes(certs.pem(server))
    ca_crt.write_bytes(certs.pem(ca.cert))
    return WebhookCerts(crt, key, ca_crt.read_bytes())


def server_context(certs: WebhookCerts) -> ssl.SSLContext:
    """The TLS context the webhook serves with (TLS 1.2 or later, the server certificate)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certs.certfile, certs.keyfile)
    return context
