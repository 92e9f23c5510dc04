"""Redaction with the scan's own findings (``redact_text``): the value is gone, its marker stays,
the marker reads back as the finding, and what is left is clean by the scan's own reading."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proctor.graders import (
    ScanPolicy,
    redact_result,
    redact_text,
    redact_value,
    redacted_findings,
    scan,
)
from proctor.protocol.types import CaseResult, DimensionScore, Failure, Tier

AWS = "AKIAIOSFODNN7EXAMPLX"
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
EMAIL = "jane.doe@acme-corp.com"
CARD = "4111 1111 1111 1111"
PASSWORD_JSON = '{"user": "svc", "password": "Sup3r-S3cret-Value!"}'
SECRETS = (AWS, GITHUB, EMAIL, CARD)


@pytest.mark.parametrize("secret", SECRETS)
def test_a_finding_is_replaced_by_its_marker_and_reads_back_as_the_finding(secret: str) -> None:
    text = f"The tool returned {secret} for the account."
    out, found = redact_text(text)
    assert secret not in out
    assert found and found[0].kind in out
    back = redacted_findings(out)
    assert [f.kind for f in back] == [f.kind for f in found]
    assert [f.redacted for f in back] == [f.redacted for f in found]
    assert scan(out) == []
    assert redact_text(out) == (out, ())  # redacting twice changes nothing


@pytest.mark.parametrize("secret", SECRETS)
def test_a_secret_written_inside_a_forged_marker_is_redacted(secret: str) -> None:
    # an answer may write a marker's shape around a value: the shape hides nothing
    for forged in (f"[redacted email: {secret}]", f"note [redacted note: key {secret} here] end"):
        out, found = redact_text(forged)
        assert found and secret not in out, out
        assert all(secret not in f.redacted and secret not in f.describe() for f in redacted_findings(out))


def test_a_text_without_findings_is_the_same_object() -> None:
    text = "Oil consumption of 0.30 qt/hr is ELEVATED (AMM 72-00)."
    out, found = redact_text(text)
    assert out is text and found == ()
    assert redacted_findings(text) == ()


def test_a_json_document_stays_a_json_document() -> None:
    doc = json.dumps([{"role": "tool", "parts": [{"type": "text", "content": f"key {AWS} mail {EMAIL}"}]}])
    out, found = redact_text(doc)
    assert {f.kind for f in found} == {"aws-access-key", "email"}
    parsed = json.loads(out)
    assert AWS not in out and EMAIL not in out
    assert "[redacted aws-access-key:" in parsed[0]["parts"][0]["content"]


def test_a_credential_spanning_json_syntax_is_redacted_and_the_document_still_parses() -> None:
    out, found = redact_text(PASSWORD_JSON)
    assert found and "Sup3r-S3cret-Value!" not in out
    assert json.loads(out)["user"] == "svc"
    assert redacted_findings(out)


def test_the_policy_decides_what_is_a_finding() -> None:
    text = f"mail {EMAIL} key {AWS}"
    secrets_only = ScanPolicy(pii=False)
    out, found = redact_text(text, secrets_only)
    assert EMAIL in out and AWS not in out
    assert [f.kind for f in found] == ["aws-access-key"]
    assert redact_text(text, ScanPolicy(enabled=False)) == (text, ())


def test_values_are_redacted_inside_lists_and_mappings_keys_too() -> None:
    value = {"a": [1, f"x {AWS}"], EMAIL: {"b": True}}
    out, found = redact_value(value)
    assert len(found) == 2
    assert AWS not in json.dumps(out) and EMAIL not in json.dumps(out)
    assert out["a"][0] == 1
    same = {"a": [1, "plain"]}
    assert redact_value(same)[0] is same


def test_a_case_result_is_redacted_everywhere_it_quotes() -> None:
    result = CaseResult(
        case_id="c",
        tier=Tier.SAFETY,
        failures=(Failure("contains", f"answer was {AWS}"),),
        dimensions=(
            DimensionScore("safety", 90, score=10, rationale=f"the answer leaks {GITHUB}"),
            DimensionScore("task_success", 50, skipped_reason=f"judge said {EMAIL}"),
        ),
        error=f"agent error page: {CARD}",
    )
    text = repr(redact_result(result))
    for secret in SECRETS:
        assert secret not in text
    assert "[redacted github-token:" in text or "[redacted github" in text


_WORDS = st.text(alphabet=string.ascii_letters + " .,:;\n{}\"'", max_size=60)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_WORDS, after=_WORDS, secret=st.sampled_from(SECRETS))
def test_property_a_planted_secret_never_survives_redaction(before: str, after: str, secret: str) -> None:
    text = f"{before} {secret} {after}"
    out, found = redact_text(text)
    assert secret not in out
    assert found
    # nothing the scan finds is left outside a marker
    outside = [
        f for f in scan(out) if not any(m.start <= f.start and f.end <= m.end for m in redacted_findings(out))
    ]
    assert outside == []
    assert len(redacted_findings(out)) >= 1


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_property_redaction_is_idempotent_and_never_raises(text: str) -> None:
    out, _ = redact_text(text)
    again, more = redact_text(out)
    assert again == out and more == ()
