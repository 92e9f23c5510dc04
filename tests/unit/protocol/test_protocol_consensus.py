"""Consensus near the threshold (seed 001): when to sample again, and how to combine samples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import CONSENSUS_SAMPLES, DEFAULT_BAND, Consensus, aggregate, needs_consensus


@pytest.mark.parametrize(
    ("score", "expected"),
    [(60.0, True), (40.0, True), (50.0, True), (60.5, False), (39.5, False), (95.0, False), (3.0, False)],
)
def test_within_the_band_of_the_threshold_inclusive(score: float, expected: bool) -> None:
    assert needs_consensus(score, 50.0) is expected


def test_low_confidence_needs_consensus_even_far_from_the_threshold() -> None:
    assert needs_consensus(95.0, 50.0, confidence=0.3)
    assert not needs_consensus(95.0, 50.0, confidence=0.9)
    assert not needs_consensus(95.0, 50.0, confidence=None)
    assert needs_consensus(95.0, 50.0, confidence=0.7, min_confidence=0.8)


def test_band_is_configurable() -> None:
    assert DEFAULT_BAND == 10.0
    assert needs_consensus(70.0, 50.0, band=20.0)
    assert not needs_consensus(51.0, 50.0, band=0.0)
    with pytest.raises(ValueError, match="band"):
        needs_consensus(50.0, 50.0, band=-1.0)
    with pytest.raises(ValueError, match="numbers"):
        needs_consensus(math.nan, 50.0)


def test_three_samples_report_the_median_and_agreement_from_the_spread() -> None:
    assert CONSENSUS_SAMPLES == 3
    result = aggregate([90.0, 70.0, 72.0])
    assert isinstance(result, Consensus)
    median, agreement = result  # it is the (median, agreement) pair
    assert median == result.median == 72.0
    assert agreement == result.agreement == pytest.approx(0.8)


def test_agreement_extremes() -> None:
    assert aggregate([61.0]).agreement == 1.0
    assert aggregate([55.0, 55.0, 55.0]).agreement == 1.0
    assert aggregate([0.0, 100.0, 50.0]).agreement == 0.0
    assert tuple(aggregate([0.2, 0.4], scale=1.0)) == pytest.approx((0.3, 0.8))


def test_aggregate_rejects_nothing_and_nonsense() -> None:
    with pytest.raises(ValueError, match="at least one"):
        aggregate([])
    with pytest.raises(ValueError, match="numbers"):
        aggregate([50.0, math.nan])
    with pytest.raises(ValueError, match="scale"):
        aggregate([50.0], scale=0.0)


@given(st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=7))
def test_median_stays_within_samples_and_agreement_within_unit(samples: list[float]) -> None:
    median, agreement = aggregate(samples)
    assert min(samples) <= median <= max(samples)
    assert 0.0 <= agreement <= 1.0
    assert agreement == pytest.approx(1.0 - (max(samples) - min(samples)) / 100)
    if max(samples) == min(samples):
        assert agreement == 1.0
