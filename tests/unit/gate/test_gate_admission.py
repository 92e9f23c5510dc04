"""The webhook's decision, from the object alone."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from hypothesis import given
from hypothesis import strategies as st

from proctor.api import BREAK_GLASS_ANNOTATION
from proctor.api.policy import LabelSelector
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    BREAK_GLASS_BY_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    PROTECTED,
    GateEntry,
    Request,
    admission_patch,
    admit,
    request_of,
    template_hash,
)
from proctor.gate.certs import ensure_certs
from proctor.k8s.objects import PROBE_WEBHOOK_NAME, mutating_webhook_configuration

OPERATOR = "system:serviceaccount:proctor-system:proctor"
MALLORY = "mallory"


def _dep(
    template: dict[str, Any],
    annotations: dict[str, str] | None = None,
    paused: bool = False,
    gated: bool = True,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    base = {"proctor.dev/gate-policy": "p"} if gated else {}
    return {
        "metadata": {"namespace": "team", "labels": base | (labels or {}), "annotations": annotations or {}},
        "spec": {"template": template, "paused": paused},
    }


T1 = {"spec": {"containers": [{"name": "a", "image": "agent:v1"}]}}
T2 = {"spec": {"containers": [{"name": "a", "image": "agent:v2"}]}}
H1, H2 = template_hash(T1), template_hash(T2)
#: v1 approved and running (what the operator leaves after a PASS)
APPROVED_V1 = _dep(T1, {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}"})


def _admit(new: dict[str, Any], old: dict[str, Any] | None = None, *, user: str = MALLORY, **kw: Any) -> Any:
    entries = kw.pop("entries", lambda ns, policy: [GateEntry("Enforce")])
    req = request_of(new, old, user, operator=OPERATOR, entries=entries)
    return admit(req, **kw)


def _held(d: Any) -> bool:
    return bool(d.allowed and d.pause)


def test_ungated_objects_pass() -> None:
    d = _admit(_dep(T2, gated=False))
    assert d.allowed and not d.changes


def test_a_template_that_is_not_approved_is_held_with_its_hash() -> None:
    d = _admit(_dep(T2, {APPROVED_ANNOTATION: H1}), APPROVED_V1 | {})
    assert d.pause
    assert d.pending_hash == H2
    assert "GatePolicy p" in d.message


def test_the_approved_template_passes_whatever_else_changes() -> None:
    new = _dep(T1, {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}"})
    new["spec"]["replicas"] = 5
    d = _admit(new, APPROVED_V1)
    assert d.allowed and not d.changes


def test_an_already_held_template_is_left_alone() -> None:
    held = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=True)
    assert not _admit(held, held).changes
    # ... but not when someone unpaused it by hand
    unpaused = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=False)
    assert _admit(unpaused, held).pause


# --- what the request says is not believed -------------------------------------------------------


def test_copying_the_pending_hash_into_the_approval_is_refused() -> None:
    """The attack of the issue: pending copied into approved, unpaused, in one patch."""
    held = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=True)
    forged = _dep(T2, {APPROVED_ANNOTATION: H2, PENDING_ANNOTATION: H2}, paused=False)
    d = _admit(forged, held)
    assert not d.allowed
    assert APPROVED_ANNOTATION in d.message and "only by the Proctor operator" in d.message
    # the operator itself writes exactly that after a PASS
    assert _admit(forged, held, user=OPERATOR).allowed


@pytest.mark.parametrize("key", PROTECTED)
def test_no_protected_annotation_may_be_set_or_changed_by_anyone_else(key: str) -> None:
    new = _dep(T1, {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}", key: "sha256:forged"})
    assert not _admit(new, APPROVED_V1).allowed


def test_a_dropped_protected_annotation_comes_back() -> None:
    """``kubectl replace`` of the original manifest drops the gate's annotations: they are put back
    as stored, so the approval is neither lost nor forgeable by removal."""
    d = _admit(_dep(T1, {}), APPROVED_V1)
    assert d.allowed and d.restore == {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}"}
    assert not d.pause  # the stored approval still covers the template
    d = _admit(_dep(T2, {}), APPROVED_V1)
    assert _held(d) and d.restore[APPROVED_ANNOTATION] == H1


def test_create_with_the_approval_preset_is_refused() -> None:
    d = _admit(_dep(T2, {APPROVED_ANNOTATION: H2}))
    assert not d.allowed and "created or becomes gated" in d.message
    assert _held(_admit(_dep(T2)))  # created without it: held for its exam


def test_labelling_a_deployment_that_carries_an_approval_is_refused() -> None:
    """Set while the object was not gated (the webhook never saw it), an approval proves nothing."""
    before = _dep(T2, {APPROVED_ANNOTATION: H2}, gated=False)
    assert not _admit(_dep(T2, {APPROVED_ANNOTATION: H2}), before).allowed


def test_removing_or_changing_the_gate_label_is_refused() -> None:
    held = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=True)
    unlabelled = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, gated=False)
    d = _admit(unlabelled, held)
    assert not d.allowed and "cannot be removed or changed" in d.message
    relabelled = _dep(
        T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, labels={"proctor.dev/gate-policy": "lax"}
    )
    assert not _admit(relabelled, held).allowed
    # also from an approved, running Deployment (un-gate now, change the image later)
    assert not _admit(
        _dep(T1, dict(APPROVED_V1["metadata"]["annotations"]), gated=False), APPROVED_V1
    ).allowed


def test_a_label_change_that_leaves_the_policys_selector_is_refused() -> None:
    prod = GateEntry("Enforce", LabelSelector(match_labels={"tier": "prod"}))
    old = _dep(T1, dict(APPROVED_V1["metadata"]["annotations"]), labels={"tier": "prod"})
    new = _dep(T2, dict(APPROVED_V1["metadata"]["annotations"]), labels={"tier": "dev"})
    d = _admit(new, old, entries=lambda ns, policy: [prod])
    assert not d.allowed
    # a Deployment the selector never selected is not gated: it passes untouched
    assert _admit(new, new, entries=lambda ns, policy: [prod]).changes is False


def test_unpausing_or_changing_another_field_in_the_same_request_does_not_help() -> None:
    held = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=True)
    sneaky = _dep(T2, {APPROVED_ANNOTATION: H1, PENDING_ANNOTATION: H2}, paused=False)
    sneaky["spec"]["replicas"] = 9
    assert _held(_admit(sneaky, held))


def test_an_unknown_policy_holds_and_says_so() -> None:
    d = _admit(_dep(T2), None, entries=lambda ns, policy: [])
    assert _held(d) and "not found: held" in d.message


def test_observing_records_without_pausing() -> None:
    d = _admit(_dep(T2, {APPROVED_ANNOTATION: H1}), APPROVED_V1, entries=lambda ns, p: [GateEntry("Observe")])
    assert d.allowed and not d.pause and d.pending_hash == H2


# --- break-glass ---------------------------------------------------------------------------------


def test_break_glass_needs_the_right_and_is_recorded() -> None:
    glass = _dep(
        T2, {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}", BREAK_GLASS_ANNOTATION: "INC-42"}
    )
    refused = _admit(glass, APPROVED_V1, may_break_glass=False)
    assert not refused.allowed and "may not break the glass" in refused.message
    d = _admit(glass, APPROVED_V1, may_break_glass=True)
    assert d.allowed and not d.pause
    assert d.break_glass is not None and (d.break_glass.user, d.break_glass.reason) == (MALLORY, "INC-42")
    patch = admission_patch(d, dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert patch["metadata"]["annotations"] == {
        BREAK_GLASS_BY_ANNOTATION: MALLORY,
        BREAK_GLASS_TEMPLATE_ANNOTATION: H2,
    }
    # with the right, the gate label may go too
    unlabelled = _dep(
        T2,
        {APPROVED_ANNOTATION: H1, APPROVED_TEMPLATE_ANNOTATION: "{}", BREAK_GLASS_ANNOTATION: "INC-43"},
        gated=False,
    )
    assert _admit(unlabelled, APPROVED_V1, may_break_glass=True).allowed
    # the reason already there is not a new break-glass: the next change is held again
    after = _dep(T2, {APPROVED_ANNOTATION: H1, BREAK_GLASS_ANNOTATION: "INC-42"})
    nxt = _dep(
        {"spec": {"containers": [{"name": "a", "image": "agent:v3"}]}},
        {APPROVED_ANNOTATION: H1, BREAK_GLASS_ANNOTATION: "INC-42"},
    )
    assert _held(_admit(nxt, after))


def test_the_record_of_a_break_glass_cannot_be_forged() -> None:
    forged = _dep(
        T2, {APPROVED_ANNOTATION: H1, BREAK_GLASS_TEMPLATE_ANNOTATION: H2, BREAK_GLASS_BY_ANNOTATION: "root"}
    )
    assert not _admit(forged, APPROVED_V1).allowed


def test_the_pending_patch_records_when() -> None:
    d = _admit(_dep(T2), None)
    patch = admission_patch(d, dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert patch["spec"]["paused"] is True
    assert patch["metadata"]["annotations"][PENDING_ANNOTATION] == H2
    assert patch["metadata"]["annotations"][PENDING_SINCE_ANNOTATION].startswith("2026-01-01T00:00:00")


def test_a_request_is_read_with_who_asks_and_the_policies() -> None:
    req = request_of(
        _dep(T2), APPROVED_V1, OPERATOR, operator=OPERATOR, entries=lambda ns, p: [GateEntry("Enforce")]
    )
    assert isinstance(req, Request) and req.by_operator and req.gated_old and req.gated_new
    # an operator whose identity is unknown is nobody: its approvals are refused (fail closed)
    assert not request_of(_dep(T2), None, OPERATOR, operator=None, entries=lambda ns, p: []).by_operator


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


def test_an_operator_watching_some_namespaces_intercepts_only_those() -> None:
    """Another install's namespaces are its own webhook's: this one knows neither their policies nor
    their operator (it would hold their Deployments and refuse their approvals)."""
    name = "kubernetes.io/metadata.name"
    for only, want in (
        (
            ["team-a", "ops", "team-b", "team-a"],
            {"key": name, "operator": "In", "values": ["team-a", "team-b"]},
        ),
        (["ops"], {"key": name, "operator": "DoesNotExist"}),  # every namespace has the label: none
    ):
        cfg = mutating_webhook_configuration(
            b"CA",
            url="https://127.0.0.1:9443",
            exclude_namespaces=["kube-system", "ops"],
            only_namespaces=only,
        )
        for hook in cfg["webhooks"]:  # the probe too: it answers for the watched policies only
            excluded, scoped = hook["namespaceSelector"]["matchExpressions"]
            assert excluded["operator"] == "NotIn" and excluded["values"] == ["kube-system", "ops"]
            assert scoped == want


def test_the_webhook_configuration_is_scoped_and_fails_closed() -> None:
    cfg = mutating_webhook_configuration(
        b"CA", url="https://127.0.0.1:9443", exclude_namespaces=["kube-system", "ops"]
    )
    wh, probe, pods, workloads = cfg["webhooks"]
    assert wh["objectSelector"]["matchExpressions"][0]["key"] == "proctor.dev/gate-policy"
    assert wh["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "ops"]
    # its one side effect (the Events of a break-glass) is skipped on dry runs
    assert (wh["failurePolicy"], wh["sideEffects"], wh["timeoutSeconds"]) == ("Fail", "NoneOnDryRun", 5)
    assert wh["clientConfig"]["url"] == "https://127.0.0.1:9443/proctor-gate"
    # the probe sees only GatePolicies carrying the probe label (the operator's own dry runs)
    assert probe["name"] == PROBE_WEBHOOK_NAME
    assert probe["clientConfig"]["url"] == "https://127.0.0.1:9443/proctor-probe"
    assert probe["rules"][0]["resources"] == ["gatepolicies"] and probe["rules"][0]["operations"] == [
        "UPDATE"
    ]
    assert probe["objectSelector"]["matchExpressions"][0]["key"] == "proctor.dev/webhook-probe"
    assert (probe["failurePolicy"], probe["sideEffects"]) == ("Fail", "None")
    # what makes pods: the gate-labelled ReplicaSets and Pods fail closed; the rest (and any scale of
    # a ReplicaSet: a Scale has no labels) fails open, for it sees every pod of the namespaces
    for hook in (pods, workloads):
        assert hook["clientConfig"]["url"] == "https://127.0.0.1:9443/proctor-pods"
        assert hook["namespaceSelector"] == wh["namespaceSelector"]
        assert [r["resources"] for r in hook["rules"]][1] == ["pods"]
    assert pods["objectSelector"] == wh["objectSelector"] and pods["failurePolicy"] == "Fail"
    assert pods["rules"][0]["resources"] == ["replicasets"]
    assert workloads["objectSelector"]["matchExpressions"][0]["operator"] == "DoesNotExist"
    assert workloads["rules"][0]["resources"] == ["replicasets", "replicasets/scale"]
    assert workloads["failurePolicy"] == "Ignore"
    ignore = mutating_webhook_configuration(b"CA", url="https://h:1", failure_policy="Ignore")["webhooks"]
    assert ignore[2]["failurePolicy"] == "Ignore"


def _with_label(template: dict[str, Any], policy: str) -> dict[str, Any]:
    return template | {"metadata": {"labels": {"app": "a", "proctor.dev/gate-policy": policy}}}


def test_a_gated_template_is_given_the_gate_label_which_is_not_part_of_its_hash() -> None:
    """The label marks the pods (so the webhook that fails closed sees their ReplicaSets and Pods); it
    changes nothing they run, so writing it re-examines nothing and leaves the approval standing."""
    plain = T1 | {"metadata": {"labels": {"app": "a"}}}
    assert template_hash(_with_label(plain, "p")) == template_hash(plain)
    approved = _dep(plain, {APPROVED_ANNOTATION: template_hash(plain)})
    d = _admit(approved, approved)
    assert d.allowed and not d.pause and d.label_template == "p"
    patch = admission_patch(d, dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert patch["spec"] == {"template": {"metadata": {"labels": {"proctor.dev/gate-policy": "p"}}}}
    # already there: nothing to write; a wrong value is set right; an ungated Deployment gets none
    assert _admit(_dep(_with_label(plain, "p"))).label_template is None
    assert _admit(_dep(_with_label(plain, "other"))).label_template == "p"
    assert _admit(_dep(plain, gated=False)).label_template is None


def test_the_approved_template_on_changed_content_stays_held() -> None:
    """A referenced ConfigMap changed: the operator recorded the identity the approved template has
    now. Unpausing (alone, or with any other change) is paused again; forging the identity is refused."""
    from proctor.gate.admission import APPROVED_IDENTITY_ANNOTATION, PENDING_IDENTITY_ANNOTATION

    ann = {
        APPROVED_ANNOTATION: H1,
        APPROVED_TEMPLATE_ANNOTATION: "{}",
        APPROVED_IDENTITY_ANNOTATION: "sha256:" + "a" * 64,
        PENDING_IDENTITY_ANNOTATION: "sha256:" + "b" * 64,
    }
    held = _dep(T1, ann, paused=True)
    d = _admit(_dep(T1, ann, paused=False), held)
    assert _held(d) and d.pending_hash is None and "content changed" in d.message
    assert not _admit(_dep(T1, ann, paused=True), held).pause  # already held: nothing to change
    forged = ann | {PENDING_IDENTITY_ANNOTATION: ann[APPROVED_IDENTITY_ANNOTATION]}
    assert not _admit(_dep(T1, forged, paused=False), held).allowed
    # the same content approved again: the approved template rolls out as before
    approved = ann | {PENDING_IDENTITY_ANNOTATION: ann[APPROVED_IDENTITY_ANNOTATION]}
    d = _admit(_dep(T1, approved, paused=False), _dep(T1, approved, paused=True))
    assert d.allowed and not d.pause
