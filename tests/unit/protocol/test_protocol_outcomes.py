"""Outcome metrics: the acceptance rate never travels without the minutes it cost."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import MAX_MINUTES, OUTCOME_KINDS, summarise, valid_minutes


def test_acceptance_rate_beside_minutes_and_ignored_apart() -> None:
    s = summarise(
        [("accepted", 2.0), ("modified", 10.0), ("rejected", 3.0), ("ignored", None), ("ignored", None)]
    )
    assert (s.accepted, s.modified, s.rejected, s.ignored) == (1, 1, 1, 2)
    assert s.acceptance_rate == pytest.approx(2 / 3)  # ignored outputs are not "rejected"
    assert s.minutes_per_accepted == pytest.approx(7.5)  # 15 minutes for two kept outputs
    empty = summarise([])
    assert empty.acceptance_rate is None and empty.minutes_per_accepted is None
    assert summarise([("accepted", None)]).minutes_per_accepted is None  # unknown, never 0


def test_minutes_bounds() -> None:
    assert valid_minutes(0) and valid_minutes(MAX_MINUTES)
    assert not valid_minutes(-1) and not valid_minutes(MAX_MINUTES + 1) and not valid_minutes(float("nan"))
    with pytest.raises(ValueError, match="x"):
        summarise([("x", None)])


@given(st.lists(st.tuples(st.sampled_from(OUTCOME_KINDS), st.none() | st.floats(0, MAX_MINUTES))))
def test_rate_within_bounds(items: list[tuple[str, float | None]]) -> None:
    s = summarise(items)
    assert s.accepted + s.modified + s.rejected + s.ignored == len(items)
    if s.acceptance_rate is not None:
        assert 0.0 <= s.acceptance_rate <= 1.0
