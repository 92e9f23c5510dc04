"""The webhook's decision, from the object alone."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from cryptography import x509
from hypothesis import given
from hypothesis import strategies as st

from proctor.gate.admission import APPROVED_ANNOTATION, PENDING_ANNOTATION, admit, template_hash
from proctor.gate.certs import ensure_certs
from proctor.k8s.objects import mutating_webhook_configuration


def _dep(
    template: dict[str, Any],
    annotations: dict[str, str] | None = None,
    paused: bool = False,
    gated: bool = True,
) -> dict[str, Any]:
    labels = {"proctor.dev/gate-policy": "p"} if gated else {}
    return {
        "metadata": {"labels": labels, "annotations": annotations or {}},
        "spec": {"template": template, "paused": paused},
    }


T1 = {"spec": {"containers": [{"name": "a", "image": "agent:v1"}]}}
T2 = {"spec": {"containers": [{"name": "a", "image": "agent:v2"}]}}


def test_ungated_objects_pass() -> None:
    assert not admit(_dep(T2, gated=False)).changes


def test_a_template_that_is_not_approved_is_held_with_its_hash() -> None:
    d = admit(_dep(T2, {APPROVED_ANNOTATION: template_hash(T1)}))
    assert d.pause
    assert d.pending_hash == template_hash(T2)
    assert "GatePolicy p" in d.message


def test_the_approved_template_passes_whatever_else_changes() -> None:
    assert not admit(_dep(T1, {APPROVED_ANNOTATION: template_hash(T1)})).changes


def test_an_already_held_template_is_left_alone() -> None:
    assert not admit(_dep(T2, {PENDING_ANNOTATION: template_hash(T2)}, paused=True)).changes
    # ... but not when someone unpaused it by hand
    assert admit(_dep(T2, {PENDING_ANNOTATION: template_hash(T2)}, paused=False)).pause


@given(st.dictionaries(st.text(max_size=5), st.integers(), max_size=6))
def test_the_hash_ignores_key_order(d: dict[str, int]) -> None:
    assert template_hash(d) == template_hash(dict(reversed(list(d.items()))))


def test_certificates_are_made_once_and_cover_the_names(tmp_path: Path) -> None:
    first = ensure_certs(tmp_path, ["127.0.0.1", "localhost"])
    cert = x509.load_pem_x509_certificate(first.certfile.read_bytes())
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in sans.get_values_for_type(x509.DNSName)
    again = ensure_certs(tmp_path, ["127.0.0.1", "localhost"])
    assert again.ca_pem == first.ca_pem
    renewed = ensure_certs(tmp_path, ["127.0.0.1"], now=dt.datetime.now(dt.UTC) + dt.timedelta(days=340))
    assert renewed.ca_pem != first.ca_pem
    assert oct(first.keyfile.stat().st_mode)[-3:] == "600"


def test_the_webhook_configuration_is_scoped_and_fails_closed() -> None:
    cfg = mutating_webhook_configuration(
        b"CA", url="https://127.0.0.1:9443", exclude_namespaces=["kube-system", "ops"]
    )
    wh = cfg["webhooks"][0]
    assert wh["objectSelector"]["matchExpressions"][0]["key"] == "proctor.dev/gate-policy"
    assert wh["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "ops"]
    assert (wh["failurePolicy"], wh["sideEffects"], wh["timeoutSeconds"]) == ("Fail", "None", 5)
    assert wh["clientConfig"]["url"] == "https://127.0.0.1:9443/proctor-gate"
