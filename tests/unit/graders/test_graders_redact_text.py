"""Redaction with the scan's own findings (``redact_text``): the value is gone, its marker stays,
the marker reads back as the finding, and what is left is clean by the scan's own reading."""

from __future__ import annotations

import json
import re
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
from proctor.graders._redact import Finding
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


class _ReadsPreviews(ScanPolicy):
    """A detector that reads what is in a marker (a preview's digits, a whole marker) and a word
    right after one: what the scan finds in a redaction it wrote."""

    def findings(self, answer: str) -> list[Finding]:
        found = list(super().findings(answer))
        for pattern in (r"(?<=\*\*\*\* )\d{4}(?=\])", r"\[redacted [^\]]*\]", r"(?<=\] )and\b"):
            found += (Finding("phone", "********", m.start(), m.end()) for m in re.finditer(pattern, answer))
        return sorted(found, key=lambda f: f.start)


def test_a_marker_written_here_is_no_secret_whatever_a_detector_reads_in_it() -> None:
    # the preview stays and the text is not withheld; what the second reading finds outside the
    # marker ("and", right after it) is redacted too
    out, found = redact_text(f"card {CARD} and 2024", _ReadsPreviews())
    assert out == "card [redacted credit-card: **** **** **** 1111] [redacted phone: ********] 2024"
    assert [f.kind for f in found] == ["credit-card"]


def test_what_the_rereading_still_finds_is_redacted_for_a_few_passes_then_the_text_is_withheld() -> None:
    # each pass finds one more "and" right after the last marker: two are redacted in turn, three
    # are one too many and the whole text is withheld
    twice, _ = redact_text(f"card {CARD} and and 2024", _ReadsPreviews())
    card = "card [redacted credit-card: **** **** **** 1111]"
    assert twice == card + " [redacted phone: ********]" * 2 + " 2024"
    thrice, found = redact_text(f"card {CARD} and and and 2024", _ReadsPreviews())
    assert thrice.startswith("[redacted withheld: the whole text") and "1111" not in thrice
    assert [f.kind for f in found] == ["credit-card"]


def test_the_shortest_finding_is_redacted() -> None:
    out, found = redact_text("a@b.io")
    assert out == "[redacted email: a***@b***.io]" and [f.kind for f in found] == ["email"]


class _LongPreview(ScanPolicy):
    def findings(self, answer: str) -> list[Finding]:
        return [Finding("private-key", "x" * 400, m.start(), m.end()) for m in re.finditer("KEYDATA", answer)]


def test_an_overlong_preview_is_cut_so_the_marker_still_reads_back() -> None:
    out, _ = redact_text("here KEYDATA there", _LongPreview())
    (f,) = redacted_findings(out)
    assert f.kind == "private-key" and f.redacted == "x" * 300


class _ReadsPastTheQuote(ScanPolicy):
    """A detector whose finding runs past the end of a JSON string (over its closing quote)."""

    def findings(self, answer: str) -> list[Finding]:
        found = re.finditer(r"Sup3r[^,}]*", answer)
        return [Finding("credential", "********", m.start(), m.end()) for m in found]


def test_a_finding_over_a_json_strings_end_leaves_a_document_that_parses_as_written() -> None:
    out, found = redact_text('{"note": "café", "password": "Sup3r-S3cret-Value!"}', _ReadsPastTheQuote())
    assert found and "Sup3r" not in out
    assert json.loads(out) == {"note": "café", "password": "[redacted credential: ********]"}
    assert "café" in out  # the document's other text as it was written, not escaped


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
