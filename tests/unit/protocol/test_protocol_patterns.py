"""Behaviour patterns' pure arithmetic: recency decay, the decomposed ranking, reopening, grouping
by meaning, and guidance (properties over generated data, and the cases a person would check)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    GENERAL_CATEGORY,
    PatternFacts,
    PatternState,
    accumulate,
    category_of,
    cosine,
    guidance,
    nearest,
    occur,
    rank,
    recency_weight,
)

DAY = 86400.0
times = st.floats(min_value=0, max_value=1e9, allow_nan=False)
half_lives = st.floats(min_value=1.0, max_value=1e8, allow_nan=False)


def facts(pid: int, recurrence: int, last_seen: float, **kw: object) -> PatternFacts:
    base: dict[str, object] = {
        "dimension": "factual_grounding",
        "category": GENERAL_CATEGORY,
        "reason": "cites no source",
        "first_seen": 0.0,
    }
    base.update(kw)
    return PatternFacts(id=pid, recurrence=recurrence, last_seen=last_seen, **base)  # type: ignore[arg-type]


def test_recency_halves_every_half_life_and_is_one_for_now() -> None:
    assert recency_weight(100.0, 100.0, DAY) == 1.0
    assert recency_weight(0.0, DAY, DAY) == pytest.approx(0.5)
    assert recency_weight(0.0, 3 * DAY, DAY) == pytest.approx(0.125)
    assert recency_weight(200.0, 100.0, DAY) == 1.0  # seen "in the future" (clock skew): now
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="half-life"):
            recency_weight(0.0, 1.0, bad)


@given(times, times, times, half_lives)
def test_recency_is_a_weight_that_never_grows_with_age(a: float, b: float, now: float, half: float) -> None:
    older, newer = sorted((a, b))
    w_old, w_new = recency_weight(older, now, half), recency_weight(newer, now, half)
    assert 0.0 <= w_old <= w_new <= 1.0


pattern_lists = st.lists(
    st.tuples(st.integers(min_value=1, max_value=10_000), times), min_size=0, max_size=30
)


@given(pattern_lists, times, half_lives)
def test_the_ranking_is_decomposed_and_ordered(
    items: list[tuple[int, float]], now: float, half: float
) -> None:
    ps = [facts(i, rec, seen) for i, (rec, seen) in enumerate(items)]
    ranked = rank(ps, now, half)
    assert sorted(r.pattern.id for r in ranked) == list(range(len(items)))
    for r in ranked:
        assert r.recurrence == r.pattern.recurrence
        assert r.recency == recency_weight(r.pattern.last_seen, now, half)
        assert r.score == r.recurrence * r.recency  # the parts a person sees multiply to the score
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


@given(st.integers(min_value=1, max_value=1000), st.integers(min_value=1, max_value=1000), times, half_lives)
def test_more_recurrence_at_the_same_time_never_ranks_lower(a: int, b: int, seen: float, half: float) -> None:
    ranked = rank([facts(1, a, seen), facts(2, b, seen)], seen, half)
    first = ranked[0].pattern
    assert first.recurrence == max(a, b)


@given(st.integers(min_value=1, max_value=1000), times, times, half_lives)
def test_more_recent_at_the_same_recurrence_never_ranks_lower(
    n: int, a: float, b: float, half: float
) -> None:
    now = max(a, b)
    ranked = rank([facts(1, n, a), facts(2, n, b)], now, half)
    assert ranked[0].pattern.last_seen == max(a, b)


def test_a_recent_pattern_outranks_a_larger_stale_one_and_the_numbers_say_why() -> None:
    now = 30 * DAY
    stale = facts(1, 12, now - 14 * DAY)  # 12 x 0.25 = 3
    fresh = facts(2, 4, now)  # 4 x 1.0 = 4
    first, second = rank([stale, fresh], now, 7 * DAY)
    assert (first.pattern.id, first.recurrence, first.recency, first.score) == (2, 4, 1.0, 4.0)
    assert (second.pattern.id, second.recurrence) == (1, 12)
    assert second.recency == pytest.approx(0.25) and second.score == pytest.approx(3.0)


def test_a_resolved_pattern_reopens_only_on_a_failure_after_its_fix() -> None:
    assert occur(PatternState.OPEN, 3, None, 10.0) == occur(PatternState.OPEN, 3, 5.0, 1.0)
    step = occur(PatternState.OPEN, 3, None, 10.0)
    assert (step.state, step.recurrence, step.reopened) == (PatternState.OPEN, 4, False)
    late = occur(PatternState.RESOLVED, 7, 100.0, 90.0)  # evidence from before the fix arrived late
    assert (late.state, late.recurrence, late.reopened) == (PatternState.RESOLVED, 7, False)
    again = occur(PatternState.RESOLVED, 7, 100.0, 101.0)
    assert (again.state, again.recurrence, again.reopened) == (PatternState.OPEN, 1, True)


unit = st.lists(st.floats(min_value=-1, max_value=1, allow_nan=False), min_size=3, max_size=3).filter(
    lambda v: math.sqrt(sum(x * x for x in v)) > 1e-3
)


@given(unit, st.lists(unit, max_size=8), st.floats(min_value=-1, max_value=1, allow_nan=False))
def test_nearest_is_the_most_similar_centroid_at_the_threshold_or_none(
    v: list[float], centroids: list[list[float]], threshold: float
) -> None:
    i = nearest(v, centroids, threshold)
    sims = [cosine(v, c) for c in centroids]
    if i is None:
        assert all(s < threshold for s in sims)
    else:
        assert sims[i] >= threshold and sims[i] == max(sims)
        assert i == sims.index(max(sims))  # ties go to the older pattern


def test_a_pattern_sums_its_vectors_and_cosine_reads_only_direction() -> None:
    assert accumulate([1.0, 0.0], [0.0, 1.0]) == [1.0, 1.0]
    assert cosine([3.0, 1.0], [1.0, 1.0]) == pytest.approx(cosine([1.5, 0.5], [1.0, 1.0]))
    with pytest.raises(ValueError, match="length"):
        accumulate([1.0], [1.0, 2.0])
    assert cosine([1.0, 0.0], [2.0, 0.0]) == 1.0 and cosine([1.0, 0.0], [0.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="length"):
        cosine([1.0], [1.0, 2.0])


def test_a_runs_category_comes_from_its_signals() -> None:
    assert category_of({"loopSuspected": True, "toolErrors": 2}) == "loop"
    assert category_of({"loopSuspected": False, "toolErrors": 2}) == "tool-errors"
    assert category_of({"toolErrors": 0, "abstained": True}) == "abstained"
    assert category_of({"toolErrors": True}) == GENERAL_CATEGORY  # a bool is not a count
    assert category_of({}) == GENERAL_CATEGORY


def test_guidance_comes_from_open_patterns_with_their_evidence_most_pressing_first() -> None:
    now = 10 * DAY
    ps = [
        facts(1, 2, now, dimension="safety", reason="Leaks a phone number."),
        facts(2, 9, now, reason="Cites no source for the band."),
        facts(3, 50, now, reason="Old and fixed.", state=PatternState.RESOLVED),
        facts(
            4, 1, now, dimension="task_success", category="tool-errors", reason="Gave up after a tool error."
        ),
    ]
    rubrics = {"factual_grounding": "Is it supported?\n100: every claim is supported by the context.\n0: x"}
    lines = guidance(
        rank(ps, now, DAY),
        {2: ["r1", "r2", "r3", "r4", "r5", "r6"], 1: ["r9"]},
        rubrics,
        {"factual_grounding": 70.0, "safety": 50.0},
    )
    assert [g.pattern for g in lines] == [2, 1, 4]  # the resolved pattern gives no guidance
    top = lines[0]
    assert top.text == (
        "factual_grounding fell below its threshold (70) 9 times. The judge's reason: Cites no source "
        "for the band. Aim for: every claim is supported by the context."
    )
    assert top.evidence == ("r1", "r2", "r3", "r4", "r5")  # at most five runs, the latest first
    assert lines[1].evidence == ("r9",) and "(50) 2 times" in lines[1].text and "Aim for" not in lines[1].text
    assert lines[2].text.startswith("task_success fell below its threshold in runs with tool-errors once")
    assert lines[2].evidence == ()
    assert len(guidance(rank(ps, now, DAY), {}, {}, {}, limit=1)) == 1
