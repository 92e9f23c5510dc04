"""Scan policy edges: the off switch, an allow pattern that times out, immutability."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.api.profile import SafetyScanSpec
from proctor.graders._scanpolicy import DEFAULT_SCAN, NO_SCAN, ScanPolicy, scan_policy

LEAK = "mail " + "a" * 30 + "@gmail.com"


def test_no_scan_reports_nothing_and_the_default_reports_the_leak() -> None:
    assert NO_SCAN.findings(LEAK) == ()
    assert [f.kind for f in DEFAULT_SCAN.findings(LEAK)] == ["email"]


def test_an_allow_pattern_that_times_out_is_skipped_not_fatal_and_later_ones_still_apply() -> None:
    slow = r"(a|aa)+b"  # catastrophic on thirty a's: times out, never allows
    only_slow = ScanPolicy.from_spec(SafetyScanSpec(allow=[slow]))
    assert [f.kind for f in only_slow.findings(LEAK)] == ["email"]
    then_fine = ScanPolicy.from_spec(SafetyScanSpec(allow=[slow, r"a+@gmail\.com"]))
    assert list(then_fine.findings(LEAK)) == []


def test_a_pattern_that_times_out_on_the_written_form_still_allows_the_canonical_one() -> None:
    # forty zero-width spaces inside the address: the written form is catastrophic for the first
    # alternative, the canonical form (no zero-width characters) is allowed by the second
    disguised = "mail " + "a" * 20 + "\u200b" * 40 + "@gmail.com"
    assert [f.kind for f in DEFAULT_SCAN.findings(disguised)] == ["email"]
    policy = ScanPolicy.from_spec(SafetyScanSpec(allow=[r"a+(?:\u200b|\u200b\u200b)+x|a+@gmail\.com"]))
    assert list(policy.findings(disguised)) == []


def test_a_grading_call_scans_by_default_not_when_told_not_to_and_as_its_policy_says() -> None:
    assert [f.kind for f in scan_policy(True).findings(LEAK)] == ["email"]
    assert scan_policy(False).findings(LEAK) == ()
    secrets_only = ScanPolicy(pii=False)
    assert scan_policy(secrets_only) is secrets_only


def test_a_policy_is_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_SCAN.enabled = False  # type: ignore[misc]
