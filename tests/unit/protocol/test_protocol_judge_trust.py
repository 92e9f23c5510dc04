"""Whether a profile's judge is trusted (pure): False as soon as a dimension misses breaches, Unknown
while any cannot be told, True only when every one clears the floor; and judge quality counted in
cells is the arithmetic on every review."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    MIN_SPLIT_REVIEWS,
    DimensionTrust,
    Review,
    TrustReason,
    band_of,
    confusion,
    judge_trust,
    quality_of_cells,
    review_cells,
)


def test_the_floor_is_inclusive_and_one_miss_is_enough() -> None:
    at = DimensionTrust(MIN_SPLIT_REVIEWS, 0.8)
    under = DimensionTrust(200, 0.79)
    assert at.trusted(0.8) is True and under.trusted(0.8) is False
    t = judge_trust({"a": at, "b": under, "c": DimensionTrust(0, None)}, 0.8)
    assert (t.trusted, t.reason, t.misses) == (False, TrustReason.MISSES_BREACHES, ("b",))
    assert "b (recall lower bound 0.79)" in t.message and "0.8" in t.message


def test_unknown_until_every_dimension_can_be_told() -> None:
    few = DimensionTrust(MIN_SPLIT_REVIEWS - 1, 0.99)  # a high bound on too few reviews tells nothing
    no_breach_seen = DimensionTrust(500, None)
    for dims in ({"a": few}, {"a": no_breach_seen}, {"a": DimensionTrust(50, 0.9), "b": few}, {}):
        t = judge_trust(dims, 0.8)
        assert (t.trusted, t.reason) == (None, TrustReason.TOO_FEW_REVIEWS)
    t = judge_trust({"a": DimensionTrust(50, 0.9), "b": DimensionTrust(60, 0.85)}, 0.8)
    assert (t.trusted, t.reason) == (True, TrustReason.RECALL_ABOVE_FLOOR)


reviews = st.lists(
    st.builds(
        Review,
        judge=st.sampled_from([0.0, 9.99, 10.0, 69.99, 70.0, 89.9, 90.0, 100.0]) | st.floats(0, 100),
        threshold=st.sampled_from([50.0, 70.0, 90.0]),
        agree=st.booleans(),
        score=st.none() | st.floats(0, 100),
    ),
    max_size=80,
)


@given(reviews)
def test_quality_from_cells_is_the_arithmetic_on_every_review(items: list[Review]) -> None:
    """Counted by band and both readings (as the database does), the figures are those of each
    review taken one by one."""
    got = quality_of_cells(review_cells(items))
    diffs = [r.judge - h for r in items if (h := r.human_score) is not None]
    bands: dict[int, list[int]] = {}
    for r in items:
        counts = bands.setdefault(band_of(r.judge), [0, 0])
        counts[0] += 1
        counts[1] += r.judge_breach == r.human_breach
    assert got.reviews == len(items)
    assert got.agreed == sum(r.judge_breach == r.human_breach for r in items)
    assert got.split == (confusion(items) if len(items) >= MIN_SPLIT_REVIEWS else None)
    assert got.scored == len(diffs)
    assert got.bias == (pytest.approx(math.fsum(diffs) / len(diffs)) if diffs else None)
    assert [(b.low, b.reviews, b.agreed) for b in got.bands] == [
        (k, n, a) for k, (n, a) in sorted(bands.items())
    ]
