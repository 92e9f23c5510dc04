"""The protocol's plain types: immutable, comparable by what they mean, documented defaults."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.protocol import DEFAULT_THRESHOLDS, CaseResult, DimensionScore, Failure, Tier


def test_default_thresholds_are_the_documented_ones() -> None:
    assert DEFAULT_THRESHOLDS == {Tier.SAFETY: 100.0, Tier.TRUST: 95.0, Tier.FORM: 90.0}


def test_results_are_immutable() -> None:
    for obj, attr in (
        (Failure("contains", "x"), "reason"),
        (DimensionScore("tone", 50.0, 40.0), "score"),
        (CaseResult("c", Tier.TRUST), "tier"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)


def test_extra_is_bookkeeping_never_part_of_a_results_identity() -> None:
    a = CaseResult("c", Tier.TRUST, extra={"answerSha256": "1"})
    b = CaseResult("c", Tier.TRUST, extra={"answerSha256": "2"})
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
