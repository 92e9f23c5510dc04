"""Judge quality arithmetic: the split, intervals, kappa, Rogan-Gladen and threshold proposals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    MIN_SPLIT_REVIEWS,
    PROVISIONAL_REVIEWS,
    Confusion,
    Review,
    band_of,
    confusion,
    corrected_rate,
    judge_quality,
    propose_threshold,
    recall_floor_breached,
    rogan_gladen,
    trade_offs,
    wilson,
)

scores = st.floats(min_value=0, max_value=100, allow_nan=False)
reviews = st.builds(
    Review,
    judge=scores,
    threshold=st.sampled_from([50.0, 70.0, 80.0]),
    agree=st.booleans(),
    score=st.none() | scores,
)


def test_reviewer_reading_follows_the_issue() -> None:
    # agree: the judge's side; disagree: the other side; a score: its own side
    assert Review(40, 70, agree=True).human_breach
    assert not Review(40, 70, agree=False).human_breach
    assert Review(90, 70, agree=False).human_breach
    assert not Review(40, 70, agree=False, score=75).human_breach
    assert Review(40, 70, agree=True, score=69.9).human_breach
    assert Review(90, 70, agree=False).human_score is None
    assert Review(90, 70, agree=True).human_score == 90


def test_missed_breaches_and_false_alarms_are_told_apart() -> None:
    # a judge that flags healthy outputs and one that passes broken ones have the same agreement
    alarms = [Review(40, 70, agree=False)] * 3 + [Review(90, 70, agree=True)] * 7
    misses = [Review(90, 70, agree=False)] * 3 + [Review(90, 70, agree=True)] * 7
    assert confusion(alarms) == Confusion(tp=0, fp=3, fn=0, tn=7)
    assert confusion(misses) == Confusion(tp=0, fp=0, fn=3, tn=7)
    assert confusion(alarms).agreement == confusion(misses).agreement == 0.7


def test_split_shown_from_twenty_reviews_and_provisional_under_fifty() -> None:
    few = judge_quality([Review(90, 70, agree=True)] * (MIN_SPLIT_REVIEWS - 1))
    assert few.split is None and few.provisional and few.agreement == 1.0
    some = judge_quality([Review(90, 70, agree=True)] * MIN_SPLIT_REVIEWS)
    assert some.split is not None and some.provisional
    many = judge_quality([Review(90, 70, agree=True)] * PROVISIONAL_REVIEWS)
    assert not many.provisional


def test_bias_is_judge_minus_human_over_scored_reviews() -> None:
    q = judge_quality(
        [Review(80, 70, agree=False, score=60), Review(50, 70, agree=True), Review(90, 70, agree=False)]
    )
    assert q.bias == pytest.approx(10.0)  # (80-60 + 0) / 2; a bare disagree has no size
    assert q.scored == 2
    assert judge_quality([Review(90, 70, agree=False)]).bias is None


def test_bands_of_ten_points() -> None:
    assert [band_of(s) for s in (0, 9.99, 10, 55, 99.9, 100)] == [0, 0, 10, 50, 90, 90]
    q = judge_quality([Review(55, 70, agree=True), Review(58, 70, agree=False), Review(95, 70, agree=True)])
    assert [(b.low, b.reviews, b.agreed) for b in q.bands] == [(50, 2, 1), (90, 1, 1)]


def test_wilson_known_values() -> None:
    # Wilson (1927) / Newcombe (1998) table: 81/263 -> 0.2553-0.3662
    bounds = wilson(81, 263)
    assert bounds is not None
    assert bounds.low == pytest.approx(0.2553, abs=1e-4)
    assert bounds.high == pytest.approx(0.3662, abs=1e-4)
    zero = wilson(0, 10)
    assert zero is not None and zero.low == 0.0 and 0.2 < zero.high < 0.35
    assert wilson(0, 0) is None
    with pytest.raises(ValueError, match="successes"):
        wilson(3, 2)


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_holds_the_rate(k: int, n: int) -> None:
    k = min(k, n)
    bounds = wilson(k, n)
    assert bounds is not None
    assert 0.0 <= bounds.low <= k / n + 1e-12 and k / n - 1e-12 <= bounds.high <= 1.0


@given(st.lists(reviews, max_size=200))
def test_split_properties(items: list[Review]) -> None:
    split = confusion(items)
    assert split.total == len(items)
    q = judge_quality(items)
    assert q.agreed == split.tp + split.tn
    assert sum(b.reviews for b in q.bands) == len(items)
    assert sum(b.agreed for b in q.bands) == q.agreed
    for value in (split.precision, split.recall, split.agreement, split.specificity):
        assert value is None or 0.0 <= value <= 1.0
    if split.kappa is not None:
        assert -1.0 - 1e-9 <= split.kappa <= 1.0 + 1e-9
    if q.bias is not None:
        assert -100 <= q.bias <= 100
    # a judge that agrees on every review has perfect agreement, and kappa 1 where defined
    agreeing = [Review(r.judge, r.threshold, agree=True) for r in items]
    assert confusion(agreeing).fp == confusion(agreeing).fn == 0
    assert confusion(agreeing).kappa in (None, 1.0)


def test_recall_floor_is_undetermined_without_evidence() -> None:
    healthy = judge_quality([Review(90, 70, agree=True)] * 30)
    assert recall_floor_breached(healthy, 0.8) is None  # nobody saw a breach: cannot be told
    missing = judge_quality([Review(90, 70, agree=False)] * 5 + [Review(40, 70, agree=True)] * 25)
    assert recall_floor_breached(missing, 0.8) is True
    catching = judge_quality([Review(40, 70, agree=True)] * 200 + [Review(90, 70, agree=True)] * 50)
    assert recall_floor_breached(catching, 0.9) is False


def test_rogan_gladen_undoes_a_known_error() -> None:
    # true prevalence 0.2, Se 0.8, Sp 0.9 -> observed 0.2*0.8 + 0.8*0.1 = 0.24
    assert rogan_gladen(0.24, 0.8, 0.9) == pytest.approx(0.2)
    assert rogan_gladen(0.5, 0.5, 0.5) is None  # a coin
    assert rogan_gladen(0.01, 0.8, 0.9) == 0.0  # clipped


def test_corrected_rate_has_an_interval_around_it() -> None:
    split = Confusion(tp=80, fp=10, fn=20, tn=90)  # Se 0.8, Sp 0.9
    rate = corrected_rate(240, 1000, split)
    assert rate is not None and rate.corrected == pytest.approx(0.2)
    assert rate.interval is not None and rate.interval.low < 0.2 < rate.interval.high
    assert rate.observed_interval.low < 0.24 < rate.observed_interval.high
    assert corrected_rate(0, 0, split) is None
    no_split = corrected_rate(5, 10, None)
    assert no_split is not None and no_split.corrected is None and no_split.observed == 0.5


@given(
    st.integers(0, 1000),
    st.integers(1, 1000),
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 60),
)
def test_corrected_interval_holds_the_point(k: int, n: int, tp: int, fp: int, fn: int, tn: int) -> None:
    rate = corrected_rate(min(k, n), n, Confusion(tp, fp, fn, tn))
    assert rate is not None
    if rate.corrected is not None:
        assert rate.interval is not None
        assert 0.0 <= rate.interval.low <= rate.corrected + 1e-12 <= rate.interval.high + 2e-12 <= 1.0 + 2e-12


def test_threshold_proposal_prefers_precision_at_the_required_recall() -> None:
    # reviewers see breaches under 60; the judge scores them 50-64 and healthy ones 58-95
    labelled = [(float(s), True) for s in range(50, 65)] + [(float(s), False) for s in range(58, 96)]
    proposal = propose_threshold(labelled, required_recall=1.0, current=70)
    assert proposal.threshold == 65.0  # the lowest threshold catching every breach
    chosen = proposal.chosen
    assert chosen is not None and chosen.split.recall == 1.0 and chosen.split.fn == 0
    assert {row.threshold for row in proposal.table} >= {10.0, 65.0, 70.0, 100.0}
    loose = propose_threshold(labelled, required_recall=0.5)
    assert loose.threshold is not None and loose.threshold < 65.0
    assert loose.chosen is not None and (loose.chosen.split.precision or 0) >= (chosen.split.precision or 0)
    assert propose_threshold([(90.0, False)] * 10).threshold is None  # nothing to catch
    with pytest.raises(ValueError, match="recall"):
        propose_threshold(labelled, required_recall=1.5)


@given(st.lists(st.tuples(scores, st.booleans()), max_size=100), st.lists(scores, min_size=1, max_size=5))
def test_trade_offs_match_a_direct_count(labelled: list[tuple[float, bool]], ts: list[float]) -> None:
    for row in trade_offs(labelled, ts):
        direct = Confusion()
        for s, breach in labelled:
            direct = direct.add(s < row.threshold, breach)
        assert row.split == direct


@given(st.lists(st.tuples(scores, st.booleans()), min_size=1, max_size=100), st.floats(0, 1))
def test_proposal_keeps_the_recall(labelled: list[tuple[float, bool]], required: float) -> None:
    proposal = propose_threshold(labelled, required_recall=required)
    if proposal.threshold is not None:
        chosen = proposal.chosen
        assert chosen is not None and (chosen.split.recall or 0.0) >= required
        for row in trade_offs(labelled, range(1, 101)):
            if (row.split.recall or 0.0) >= required:
                assert (row.split.precision or 0.0) <= (chosen.split.precision or 0.0) + 1e-12
    else:
        assert not any(b for _, b in labelled) or math.isclose(required, required)


def test_a_current_threshold_between_whole_points_is_in_the_table() -> None:
    labelled = [(70.0, True), (72.0, True), (73.0, False), (90.0, False)]
    proposal = propose_threshold(labelled, required_recall=1.0, current=72.5)
    (row,) = [r for r in proposal.table if r.threshold == 72.5]
    assert (row.split.tp, row.split.fp, row.split.fn, row.split.tn) == (2, 0, 0, 2)
    assert [r.threshold for r in proposal.table] == sorted(r.threshold for r in proposal.table)
