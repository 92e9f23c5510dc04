"""Behaviour patterns on SQLite and on a real PostgreSQL: failing scores the store keeps, grouped by
dimension, run category and the meaning of the judge's reason (the shipped embedding model),
ranked, resolved, reopened; none lost, none counted twice."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from proctor.collector.coaching import Coaching
from proctor.judge.embeddings import EmbeddingUnavailable
from proctor.protocol import AttemptOutcome, LifecyclePolicy, PatternState
from proctor.store import Item, Patterns, RunRef, ScoreRecord, SpanRecord, Store, run_id

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=90)}
DAY = 86400.0
#: Two reasons for one failure (a missing citation), and two for another (a misread boundary):
#: the embedding model reads each pair as one (cosine about 0.5), the two pairs apart (about 0.15).
NO_CITATION = (
    "The answer cites no source for the oil consumption band.",
    "No citation of the maintenance manual is given for the band it states.",
)
WRONG_BAND = (
    "The answer calls 0.30 qt/hr NORMAL although the manual says ELEVATED.",
    "It misreads the inclusive boundary: 0.30 is ELEVATED, not NORMAL.",
)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store.open(db_url)
    yield s
    s.close()


def judged(
    store: Store,
    key: str,
    now: float,
    scores: Sequence[ScoreRecord],
    *,
    signals: Mapping[str, Any] | None = None,
) -> str:
    """A run ``key`` ingested, claimed and judged at ``now`` with ``scores``; its id."""
    ref = RunRef(monitor=MON, key=key, key_source="gen_ai.conversation.id", agent="oil-agent")
    span = SpanRecord(
        trace_id=key.rjust(32, "0"), span_id="1".rjust(16, "0"), name="chat", start_ns=1, end_ns=2
    )
    store.ingest([Item(ref, span=span)], POLICIES, now=now)
    store.evaluate_now(ref.id, now)
    (claim,) = store.claim("w", now=now)
    assert store.complete(claim, AttemptOutcome.EVALUATED, now, scores=scores, signals=signals or {})
    return ref.id


def fail(dimension: str, reason: str, score: float = 30.0) -> ScoreRecord:
    return ScoreRecord(dimension, 70.0, "judge", score=score, rationale=reason)


def test_failures_group_by_meaning_dimension_and_category_and_rank_decomposed(store: Store) -> None:
    coaching = Coaching(Patterns(store.engine), half_life=DAY)
    t = 10 * DAY
    cited = [
        judged(store, "c1", t - 2 * DAY, [fail("factual_grounding", NO_CITATION[0])]),
        judged(store, "c2", t - DAY, [fail("factual_grounding", NO_CITATION[1])]),
        judged(store, "c3", t - DAY, [fail("factual_grounding", NO_CITATION[0])]),
    ]
    band = [
        judged(store, "b1", t, [fail("factual_grounding", WRONG_BAND[0])]),
        judged(store, "b2", t, [fail("factual_grounding", WRONG_BAND[1])]),
    ]
    # the same words in a looping run: another category, another pattern
    loop = judged(
        store, "l1", t, [fail("factual_grounding", NO_CITATION[0])], signals={"loopSuspected": True}
    )
    # what never joins a pattern: a passing score, a skipped one, a score at its threshold
    judged(
        store,
        "ok",
        t,
        [
            ScoreRecord("factual_grounding", 70.0, "judge", score=70.0, rationale=NO_CITATION[0]),
            ScoreRecord("safety", 50.0, "judge", skipped_reason="judge unavailable"),
        ],
    )
    doc = coaching.report(MON, t)
    assert doc["grouping"] == "by dimension, run category and the meaning of the judge's reason"
    got = [(p["category"], p["recurrence"], sorted(p["evidence"])) for p in doc["patterns"]]
    assert got == [
        ("general", 2, sorted(band)),  # 2 x 1.0 = 2.0
        ("general", 3, sorted(cited)),  # 3 x 0.5 (seen a day ago) = 1.5
        ("loop", 1, [loop]),  # 1 x 1.0
    ]
    top, second, _ = doc["patterns"]
    assert (top["recurrence"], top["recencyWeight"], top["score"]) == (2, 1.0, 2.0)
    assert (second["recurrence"], second["recencyWeight"], second["score"]) == (3, 0.5, 1.5)
    assert second["reason"] == NO_CITATION[0] and second["groupedByMeaning"] is True
    assert second["evidence"][0] in (cited[1], cited[2])  # the latest runs first
    # asking again groups nothing twice
    assert [p["recurrence"] for p in coaching.report(MON, t)["patterns"]] == [2, 3, 1]


def test_a_resolved_pattern_stays_resolved_until_it_recurs_after_the_fix(store: Store) -> None:
    coaching = Coaching(Patterns(store.engine), half_life=DAY)
    first = judged(store, "c1", 100.0, [fail("factual_grounding", NO_CITATION[0])])
    judged(store, "c2", 200.0, [fail("factual_grounding", NO_CITATION[1])])
    (p,) = coaching.report(MON, 300.0)["patterns"]
    resolved = coaching.patterns.resolve(p["id"], by="alice", note="prompt v7 cites the AMM", now=300.0)
    assert resolved.facts.state is PatternState.RESOLVED and resolved.resolved_by == "alice"
    assert coaching.report(MON, 400.0)["patterns"] == []  # open ones only, by default
    # another kind of failure after the fix: a new pattern, the resolved one stays resolved
    judged(store, "b1", 500.0, [fail("factual_grounding", WRONG_BAND[0])])
    open_now = coaching.report(MON, 600.0)["patterns"]
    assert [o["reason"] for o in open_now] == [WRONG_BAND[0]]
    assert coaching.patterns.get(p["id"]).facts.state is PatternState.RESOLVED
    # the same failure after the fix: it reopens, counting again from that failure
    again = judged(store, "c3", 700.0, [fail("factual_grounding", NO_CITATION[0])])
    reopened = next(o for o in coaching.report(MON, 800.0)["patterns"] if o["id"] == p["id"])
    assert (reopened["state"], reopened["recurrence"], reopened["occurrences"], reopened["reopened"]) == (
        "open",
        1,
        3,
        1,
    )
    assert reopened["evidence"][0] == again and first in reopened["evidence"]
    everything = coaching.report(MON, 800.0, state="all")["patterns"]
    assert len(everything) == 2 and all(o["state"] == "open" for o in everything)


def test_a_slow_evaluation_holds_grouping_back_so_none_is_lost_or_counted_twice(store: Store) -> None:
    patterns = Patterns(store.engine)
    ref = RunRef(monitor=MON, key="slow", key_source="k", agent="oil-agent")
    span = SpanRecord(trace_id="5".rjust(32, "0"), span_id="1".rjust(16, "0"), name="x", start_ns=1, end_ns=2)
    store.ingest([Item(ref, span=span)], POLICIES, now=1.0)
    store.evaluate_now(ref.id, 1.0)
    (slow,) = store.claim("w-slow", now=1.0)  # an evaluation still running: a lower id than the next
    fast = judged(store, "fast", 2.0, [fail("safety", "Leaks a phone number.")])
    pending = patterns.pending(MON)
    assert pending.failures == ()  # the fast one waits behind the running evaluation
    patterns.record(MON, pending, [], similarity=0.45)
    store.complete(slow, AttemptOutcome.EVALUATED, 3.0, scores=[fail("safety", "Leaks a phone number.")])
    pending = patterns.pending(MON)
    assert sorted(f.run_id for f in pending.failures) == sorted([run_id(MON, "slow"), fast])
    vectors = [[1.0, 0.0]] * len(pending.failures)
    assert patterns.record(MON, pending, vectors, similarity=0.45) == 2
    assert patterns.record(MON, pending, vectors, similarity=0.45) == 0  # a second replica: nothing new
    (p,) = patterns.find(MON)
    assert (p.facts.recurrence, p.occurrences) == (2, 2)


@pytest.mark.parametrize("limit", [1, 3])  # 1: fewer than one evaluation's failures
def test_batches_cut_between_evaluations_and_group_each_failure_once(store: Store, limit: int) -> None:
    patterns = Patterns(store.engine)
    for i in range(7):
        judged(
            store,
            f"c{i}",
            float(i),
            [fail("safety", "Leaks a phone number."), fail("task_success", "Gave up.")],
        )
    seen: list[tuple[int, str]] = []
    while True:
        pending = patterns.pending(MON, limit=limit)
        seen += [(f.evaluation_id, f.dimension) for f in pending.failures]
        patterns.record(MON, pending, [[1.0, 0.0]] * len(pending.failures), similarity=0.45)
        if not pending.more:
            break
    assert len(seen) == 14
    assert {p.facts.dimension: p.facts.recurrence for p in patterns.find(MON)} == {
        "safety": 7,
        "task_success": 7,
    }


def test_without_the_embedding_model_reasons_are_grouped_by_dimension_and_category_and_it_says_so(
    store: Store,
) -> None:
    def unavailable(_texts: Sequence[str]) -> list[list[float]]:
        raise EmbeddingUnavailable("model: no such file: /nowhere/model.onnx")

    coaching = Coaching(Patterns(store.engine), embed=unavailable)
    judged(store, "c1", 1.0, [fail("factual_grounding", NO_CITATION[0])])
    judged(store, "b1", 2.0, [fail("factual_grounding", WRONG_BAND[0])])
    doc = coaching.report(MON, 3.0)
    assert doc["grouping"].startswith(
        "by dimension and run category only: the embedding model is unavailable"
    )
    (p,) = doc["patterns"]
    assert p["recurrence"] == 2 and p["groupedByMeaning"] is False
