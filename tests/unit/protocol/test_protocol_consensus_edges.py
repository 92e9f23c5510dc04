"""Consensus edges: confidence exactly at its floor, the scale's bounds, agreement clamped to 0-1."""

from __future__ import annotations

import pytest

from proctor.protocol import aggregate, needs_consensus
from proctor.protocol._consensus import DEFAULT_MIN_CONFIDENCE


def test_confidence_exactly_at_the_floor_is_enough() -> None:
    far = {"score": 95.0, "threshold": 50.0}
    assert needs_consensus(**far, confidence=DEFAULT_MIN_CONFIDENCE) is False
    assert needs_consensus(**far, confidence=DEFAULT_MIN_CONFIDENCE - 0.01) is True


def test_the_scale_must_be_positive() -> None:
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="scale"):
            aggregate([50.0], scale=bad)
    assert aggregate([0.4, 0.6], scale=1.0).agreement == pytest.approx(0.8)
    with pytest.raises(TypeError):
        aggregate([50.0], 100.0)  # type: ignore[misc]


def test_agreement_is_one_for_identical_samples_and_zero_when_they_span_the_scale() -> None:
    assert aggregate([70.0, 70.0, 70.0]).agreement == 1.0
    assert aggregate([0.0, 100.0, 50.0]).agreement == 0.0
    assert aggregate([0.0, 150.0]).agreement == 0.0  # clamped, never negative
    assert aggregate([40.0, 60.0, 50.0]).median == 50.0
