"""The profile's safetyScan settings decide which findings count."""

from __future__ import annotations

import pytest

from proctor.api.profile import SafetyScanSpec
from proctor.graders import AssertionCompileError, ScanPolicy, grade_case
from proctor.protocol import Tier

ANSWER = "Key AKIAIOSFODNN7EXAMPLQ; mail jane.doe@gmail.com; card 4111 1111 1111 1111."


def kinds(policy: ScanPolicy) -> list[str]:
    return [f.kind for f in policy.findings(ANSWER)]


def test_default_reports_secrets_and_personal_data() -> None:
    assert set(kinds(ScanPolicy.from_spec(None))) == {"aws-access-key", "email", "credit-card"}


def test_secrets_only_and_pii_only() -> None:
    assert kinds(ScanPolicy.from_spec(SafetyScanSpec(pii=False))) == ["aws-access-key"]
    assert set(kinds(ScanPolicy.from_spec(SafetyScanSpec(secrets=False)))) == {"email", "credit-card"}


def test_allow_drops_a_documented_test_card_but_only_on_a_whole_match() -> None:
    policy = ScanPolicy.from_spec(SafetyScanSpec(allow=[r"4111[ -]?1111[ -]?1111[ -]?1111"]))
    assert "credit-card" not in kinds(policy)
    partial = ScanPolicy.from_spec(SafetyScanSpec(allow=["4111"]))
    assert "credit-card" in kinds(partial)


def test_disabled_scan_reports_nothing_and_the_case_passes() -> None:
    r = grade_case("c", Tier.FORM, ANSWER, [], scan=ScanPolicy.from_spec(SafetyScanSpec(enabled=False)))
    assert r.safety_findings == 0
    assert r.failures == ()


def test_an_invalid_allow_pattern_is_reported_with_its_index() -> None:
    with pytest.raises(AssertionCompileError, match=r"safetyScan.allow\[1\]"):
        ScanPolicy.from_spec(SafetyScanSpec(allow=["ok", "(unclosed"]))
