"""The detector-state room on SQLite and a real PostgreSQL: series stepped from stored scores,
once per evaluation, surviving a restart, and recomputable from the scores."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping

import pytest

from databases import db_url, postgres  # noqa: F401 (fixtures)
from proctor.protocol import (
    AttemptOutcome,
    DetectorConfig,
    DetectorKind,
    LifecyclePolicy,
    SeriesState,
    detect,
)
from proctor.store import Item, RunRef, ScoreRecord, SpanRecord, StepRequest, Store, run_id

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=0)}
CONFIG = DetectorConfig()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:  # noqa: F811 (fixture)
    s = Store.open(db_url)
    yield s
    s.close()


def judged(
    store: Store,
    key: str,
    scores: Mapping[str, float | None],
    now: float,
    *,
    revision: str = "v1",
    signals: Mapping[str, object] | None = None,
) -> int:
    """Ingest, judge and store one run; its evaluation id."""
    ref = RunRef(MON, key, "session.id", "oil-agent", revision)
    span = SpanRecord(
        trace_id=key.rjust(32, "0"), span_id="1".rjust(16, "0"), name="chat", start_ns=1, end_ns=2
    )
    store.ingest([Item(ref, span=span)], POLICIES, now=now)
    store.advance_due(now)
    (c,) = store.claim("w1", now=now)
    records = [
        ScoreRecord(d, 50.0, "judge", score=s)
        if s is not None
        else ScoreRecord(d, 50.0, "judge", skipped_reason="x")
        for d, s in scores.items()
    ]
    assert store.complete(c, AttemptOutcome.EVALUATED, now, scores=records, signals=signals or {})
    return c.evaluation_id


def test_a_score_below_its_threshold_breaches_and_a_pending_one_never_does(store: Store) -> None:
    e = judged(store, "a1", {"safety": 30.0, "task_success": None}, 10.0)
    (d,) = store.detectors.step(e, CONFIG, 10.0)
    assert (d.kind, d.metric, d.score, d.reference) == (DetectorKind.BREACH, "safety", 0.3, 0.5)
    (series,) = store.detectors.series(MON)  # the pending dimension has no series yet
    assert (series.metric, series.revision, series.latest, series.samples) == ("safety", "v1", 30.0, 1)
    assert series.signatures == ("breach:safety",)


def test_an_evaluation_is_stepped_once_however_often_it_is_observed(store: Store) -> None:
    e = judged(store, "a1", {"safety": 30.0}, 10.0)
    first = store.detectors.step(e, CONFIG, 10.0)
    again = store.detectors.step(e, CONFIG, 11.0)
    assert again == first and store.detectors.detections(e) == first
    assert store.detectors.series(MON)[0].samples == 1


def test_a_monitor_threshold_overrides_the_profile_one(store: Store) -> None:
    e = judged(store, "a1", {"safety": 80.0}, 10.0)
    (d,) = store.detectors.step(e, DetectorConfig(thresholds={"safety": 0.9}), 10.0)
    assert d.kind is DetectorKind.BREACH and d.reference == 0.9


def test_trajectory_signals_are_series_of_their_own(store: Store) -> None:
    e = judged(store, "a1", {"safety": 90.0}, 10.0, signals={"toolErrorRate": 0.75, "loopSuspected": False})
    fired = store.detectors.step(e, CONFIG, 10.0)
    assert [d.signature for d in fired] == ["breach:trajectory_tool_success"]
    assert {s.metric for s in store.detectors.series(MON)} == {
        "safety",
        "trajectory_tool_success",
        "trajectory_loop_free",
    }


DRIFT = (80.0, 80.0, 80.0, 80.0, 80.0, 80.0, 70.0, 65.0, 60.0, 55.0)


def test_a_drift_is_a_trend_without_a_breach_and_each_revision_is_its_own_series(store: Store) -> None:
    fired = []
    for i, value in enumerate(DRIFT):
        e = judged(store, f"r{i}", {"task_success": value}, 10.0 + i)
        fired.append(store.detectors.step(e, CONFIG, 10.0 + i))
    kinds = [{d.kind for d in f} for f in fired]
    assert kinds[:6] == [set()] * 6 and {DetectorKind.TREND} in kinds[6:]
    assert all(DetectorKind.BREACH not in k for k in kinds)
    e = judged(store, "other", {"task_success": 55.0}, 30.0, revision="v2")
    assert store.detectors.step(e, CONFIG, 30.0) == ()  # v2's first score: no trend of v1's carried over
    v1, v2 = store.detectors.series(MON, revision="v1"), store.detectors.series(MON, revision="v2")
    assert (v1[0].samples, v2[0].samples) == (len(DRIFT), 1)
    assert v1[0].fast_ewma is not None and v1[0].slow_ewma is not None and v1[0].fast_ewma < v1[0].slow_ewma


def test_state_survives_a_restart_mid_trend_and_a_recompute_reproduces_it(store: Store, db_url: str) -> None:  # noqa: F811
    live = []
    for i, value in enumerate(DRIFT[:5]):
        e = judged(store, f"r{i}", {"task_success": value}, 10.0 + i)
        live.append(store.detectors.step(e, CONFIG, 10.0 + i))
    store.close()
    reopened = Store.open(db_url)  # a restarted collector
    try:
        for i, value in enumerate(DRIFT[5:], start=5):
            e = judged(reopened, f"r{i}", {"task_success": value}, 10.0 + i)
            live.append(reopened.detectors.step(e, CONFIG, 10.0 + i))
        before = reopened.detectors.series(MON)
        assert reopened.detectors.recompute(MON, CONFIG, 99.0) == len(DRIFT)
        after = reopened.detectors.series(MON)
        assert [(s.samples, s.latest, s.fast_ewma, s.slow_ewma, s.signatures) for s in after] == [
            (s.samples, s.latest, s.fast_ewma, s.slow_ewma, s.signatures) for s in before
        ]
        # the same detections as one uninterrupted pass of the pure detectors over the scores
        state, expected = SeriesState(), []
        for value in DRIFT:
            state, found = detect(state, "task_success", value / 100.0, CONFIG)
            expected.append(found)
        assert live == expected and any(d.kind is DetectorKind.TREND for f in live for d in f)
    finally:
        reopened.close()


def test_two_collectors_stepping_at_once_step_each_evaluation_once(store: Store, db_url: str) -> None:  # noqa: F811
    evaluations = [judged(store, f"r{i}", {"task_success": 70.0 + i}, 10.0 + i) for i in range(12)]
    other = Store.open(db_url)  # a second collector on the same database
    errors: list[BaseException] = []

    def collector(s: Store) -> None:
        try:
            for e in evaluations:
                s.detectors.step(e, CONFIG, 50.0)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=collector, args=(s,)) for s in (store, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    assert errors == []
    (series,) = store.detectors.series(MON)
    assert series.samples == len(evaluations)


def test_stepping_in_one_transaction_gives_what_stepping_one_by_one_gives(store: Store) -> None:
    evaluations = [judged(store, f"r{i}", {"task_success": v}, 10.0 + i) for i, v in enumerate(DRIFT)]
    one_by_one = [store.detectors.step(e, CONFIG, 50.0) for e in evaluations]
    before = store.detectors.series(MON)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM detector_steps")
        conn.exec_driver_sql("DELETE FROM detector_series")
    batched = store.detectors.step_many([(e, None) for e in evaluations], CONFIG, 50.0)
    assert [batched[e] for e in evaluations] == one_by_one
    assert store.detectors.series(MON) == before
    assert store.detectors.step_many([(evaluations[-1], None)], CONFIG, 60.0) == {
        evaluations[-1]: one_by_one[-1]
    }


def test_a_batch_mixing_settings_sessions_and_a_repeat_steps_as_one_call_each_would(store: Store) -> None:
    """What the worker's group commit hands the store: evaluations of two sessions, each with its
    own settings, one asked twice; the same detections and series as a transaction each."""
    strict = DetectorConfig(thresholds={"task_success": 0.75})
    plan = [
        (judged(store, f"r{i}", {"task_success": v, "safety": 90.0}, 10.0 + i), f"s{i % 2}", cfg)
        for i, (v, cfg) in enumerate(zip(DRIFT, [CONFIG, strict] * 5, strict=True))
    ]
    requests = [StepRequest(e, cfg, session) for e, session, cfg in plan]
    requests.insert(3, requests[1])  # asked again before the batch ends: stepped once
    one_each = [store.detectors.step(r.evaluation_id, r.config, 50.0, session=r.session) for r in requests]
    before = store.detectors.series(MON)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM detector_steps")
        conn.exec_driver_sql("DELETE FROM detector_series")
    assert store.detectors.step_batch(requests, 50.0) == one_each
    assert store.detectors.series(MON) == before
    assert {s.session for s in before} == {"s0", "s1"} and sum(s.samples for s in before) == 2 * len(DRIFT)
    assert any(d.kind is DetectorKind.BREACH for found in one_each for d in found)  # strict's 75


def test_evaluations_left_unstepped_are_found_oldest_first_within_the_window(store: Store) -> None:
    old = judged(store, "old", {"safety": 90.0}, 10.0)  # before the window: recompute's, not the worker's
    first = judged(store, "a", {"safety": 90.0}, 100.0)
    second = judged(store, "b", {"safety": 20.0}, 101.0)
    store.detectors.step(first, CONFIG, 102.0)
    assert store.detectors.unstepped(50.0) == [(second, MON, store.get_run(run_id(MON, "b")).id)]
    assert [e for e, _, _ in store.detectors.unstepped(0.0)] == [old, second]
    store.detectors.step(second, CONFIG, 103.0)
    assert store.detectors.unstepped(50.0) == []
