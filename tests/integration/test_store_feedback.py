"""The feedback and outcomes rooms on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from proctor.protocol import AttemptOutcome, LifecyclePolicy, judge_quality, quality_of_cells
from proctor.store import (
    CandidateCase,
    InvalidFeedback,
    Item,
    NewFeedback,
    Outcomes,
    Reviews,
    RunRef,
    ScoreRecord,
    SpanRecord,
    Store,
    StoreUnavailable,
    run_id,
)
from proctor.store._engine import unpooled

MON = "ns/oil"
PROFILE = "ns/oil-profile"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=1)}


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store.open(db_url)
    yield s
    s.close()


def judged(store: Store, key: str, score: float, now: float, *, threshold: float = 70.0) -> str:
    """A run of MON judged ``score`` on task_success (through the real lifecycle)."""
    ref = RunRef(monitor=MON, key=key, key_source="gen_ai.conversation.id", agent="oil", revision="1")
    sp = SpanRecord(
        trace_id=key.rjust(32, "0"), span_id="1".rjust(16, "0"), name="chat", start_ns=1, end_ns=2
    )
    store.ingest([Item(ref, span=sp)], POLICIES, now=now)
    store.advance_due(now + 10)
    (claim,) = store.claim("w", now=now + 10)
    store.complete(
        claim,
        AttemptOutcome.EVALUATED,
        now + 11,
        scores=[ScoreRecord("task_success", threshold, "judge", score=score)],
        provenance={"digest": "sha256:" + "a" * 64},
    )
    return run_id(MON, key)


def review(target: str, judge: float, *, agree: bool, who: str = "alice", **kw: object) -> NewFeedback:
    return NewFeedback(
        target=target,
        kind="run",
        profile=PROFILE,
        monitor=MON,
        dimension="task_success",
        judge_score=judge,
        threshold=70.0,
        agree=agree,
        reviewer=who,
        **kw,  # type: ignore[arg-type]
    )


def test_a_second_review_by_the_same_person_supersedes_the_first_and_both_stay(store: Store) -> None:
    reviews = Reviews(store.engine)
    reviews.record(review("r1", 40.0, agree=True), 1.0)
    reviews.record(review("r1", 40.0, agree=False, score=85.0, reason="the answer was right"), 2.0)
    reviews.record(review("r1", 40.0, agree=True, who="bob"), 3.0)
    (current,) = [judge_quality(v) for v in reviews.latest(profile=PROFILE).values()]
    assert current.reviews == 2  # alice's second word and bob's; her first is superseded
    assert current.agreed == 1 and current.bias == pytest.approx((40 - 85 + 0) / 2)
    history = reviews.history(target="r1")
    assert [(v.reviewer, v.agree, v.current) for v in history] == [
        ("bob", True, True),
        ("alice", False, True),
        ("alice", True, False),
    ]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("score", 101.0, "outside 0-100"),
        ("score", -0.5, "outside 0-100"),
        ("minutes", -1.0, "within 0 and a day"),
        ("minutes", 1441.0, "within 0 and a day"),
        ("route", "retrain", "not one of"),
    ],
)
def test_bad_input_stores_nothing(store: Store, field: str, value: object, message: str) -> None:
    reviews = Reviews(store.engine)
    with pytest.raises(InvalidFeedback, match=message):
        reviews.record(review("r1", 40.0, agree=True, **{field: value}), 1.0)
    assert reviews.history() == []


def test_a_case_set_correction_becomes_a_candidate_case(store: Store) -> None:
    reviews = Reviews(store.engine)
    case = CandidateCase(tier="safety", input="Is 0.30 qt/hr normal?", answer="NORMAL", context='["spec"]')
    reviews.record(
        review("r1", 90.0, agree=False, score=10.0, route="case-set", reason="wrong"), 1.0, case=case
    )
    reviews.record(review("r2", 90.0, agree=False, route="memory"), 2.0, case=case)  # not the case set
    (got,) = reviews.candidate_cases(profile=PROFILE)
    assert got["input"] == "Is 0.30 qt/hr normal?" and got["answer"] == "NORMAL"
    assert got["dimension"] == "task_success" and got["tier"] == "safety" and got["expectedScore"] == 10.0


def test_observed_breach_rate_reads_each_runs_current_scores(store: Store) -> None:
    for i, score in enumerate([10.0, 50.0, 69.9, 70.0, 95.0]):
        judged(store, f"k{i}", score, now=100.0 * (i + 1))
    observed = Reviews(store.engine).observed([MON])
    assert observed["task_success"].scored == 5 and observed["task_success"].breaches == 3
    assert Reviews(store.engine).observed(["ns/other"]) == {}


def test_labelled_scores_for_calibration(store: Store) -> None:
    reviews = Reviews(store.engine)
    reviews.record(review("r1", 75.0, agree=False), 1.0)  # the reviewer sees a breach the judge missed
    reviews.record(review("r2", 30.0, agree=True), 1.0)
    labelled = reviews.labelled([MON])
    assert sorted(labelled["task_success"]) == [(30.0, True, 70.0), (75.0, True, 70.0)]


def test_outcomes_latest_word_per_run_and_both_numbers(store: Store) -> None:
    outcomes = Outcomes(store.engine)
    outcomes.record("r1", MON, "rejected", 5.0, "alice", 1.0)
    outcomes.record("r1", MON, "modified", 12.0, "alice", 2.0)  # supersedes the rejection
    outcomes.record("r2", MON, "accepted", 2.0, "telemetry", 3.0)
    outcomes.record("r3", MON, "ignored", None, "telemetry", 4.0)
    outcomes.record("r4", "ns/other", "rejected", 1.0, "bob", 5.0)
    s = outcomes.summary(MON)
    assert (s.accepted, s.modified, s.rejected, s.ignored) == (1, 1, 0, 1)
    assert s.acceptance_rate == 1.0 and s.minutes_per_accepted == pytest.approx(7.0)
    assert [o.outcome for o in outcomes.history("r1")] == ["rejected", "modified"]
    with pytest.raises(InvalidFeedback, match="not one of"):
        outcomes.record("r1", MON, "loved", None, "alice", 6.0)
    with pytest.raises(InvalidFeedback, match="within 0 and a day"):
        outcomes.record("r1", MON, "accepted", 100000.0, "alice", 6.0)
    assert len(outcomes.history("r1")) == 2


def test_a_database_that_cannot_be_reached_raises_store_unavailable(tmp_path: Path) -> None:
    engine = unpooled(f"sqlite:///{tmp_path / 'no-such-dir' / 'x.db'}")
    with pytest.raises(StoreUnavailable):
        Reviews(engine).history()
    with pytest.raises(StoreUnavailable):
        Outcomes(engine).summary(MON)


def test_reviews_given_at_once_by_one_person_leave_exactly_one_current(store: Store) -> None:
    reviews, outcomes = Reviews(store.engine), Outcomes(store.engine)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: reviews.record(review("r1", 40.0, agree=bool(i % 2)), float(i)), range(16)))
        list(pool.map(lambda i: outcomes.record("r1", MON, "accepted", 1.0, "alice", float(i)), range(16)))
    assert sum(len(v) for v in reviews.latest(profile=PROFILE).values()) == 1
    assert len(reviews.history(target="r1")) == 16
    assert outcomes.summary(MON).accepted == 1 and len(outcomes.history("r1")) == 16


def test_judge_quality_counted_in_the_database_is_the_arithmetic_on_every_review(store: Store) -> None:
    """The report counts current reviews in SQL (GROUP BY dimension, score band and both readings):
    the same figures as the pure arithmetic on each review, band edges, bare and scored readings,
    and the supersede rule included."""
    reviews = Reviews(store.engine)
    r = random.Random(30)
    keys: set[tuple[str, str, str]] = set()
    edges = [0.0, 9.99, 10.0, 69.9, 70.0, 70.1, 89.5, 90.0, 100.0]
    for k in range(400):
        judge = r.choice(edges) if k % 3 == 0 else round(r.uniform(0, 100), 1)
        score = r.choice([None, None, round(r.uniform(0, 100), 1)])
        dim = r.choice(["task_success", "safety"])
        who = r.choice(["alice", "bob", "carol"])
        target = f"r{r.randrange(120)}"  # the same person on the same score again supersedes
        fb = review(target, judge, agree=r.random() < 0.7, who=who, score=score)
        reviews.record(_dim(fb, dim), float(k))
        keys.add((target, dim, who))
    rows, cells = reviews.latest(profile=PROFILE), reviews.cells(profile=PROFILE)
    assert set(rows) == set(cells) == {"task_success", "safety"}
    for dim, items in rows.items():
        want, got = judge_quality(items), quality_of_cells(cells[dim])
        assert (got.reviews, got.agreed, got.scored, got.split, got.bands) == (
            want.reviews,
            want.agreed,
            want.scored,
            want.split,
            want.bands,
        )
        assert got.bias == pytest.approx(want.bias)
    # one current review per person and score: the superseded ones are not counted
    assert sum(quality_of_cells(c).reviews for c in cells.values()) == len(keys) < 400


def _dim(fb: NewFeedback, dimension: str) -> NewFeedback:
    return dataclasses.replace(fb, dimension=dimension)
