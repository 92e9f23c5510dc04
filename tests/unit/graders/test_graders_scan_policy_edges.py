"""Scan policy edges: the off switch, an allow pattern that times out, immutability."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.api.profile import SafetyScanSpec
from proctor.graders._scanpolicy import DEFAULT_SCAN, NO_SCAN, ScanPolicy

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


def test_a_policy_is_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_SCAN.enabled = False  # type: ignore[misc]
