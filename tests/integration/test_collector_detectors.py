"""The detectors in the real collector process: live runs judged by the scripted judge, their series
stepped in the real database (SQLite and PostgreSQL), a restart mid-trend changing nothing, and what
the monitor's summary and ``/metrics`` then say."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_collector import otlp_body, post

from collecting import collector, manifests, wait_for
from judging import JudgeServer, marker_score
from proctor.protocol import (
    AttemptOutcome,
    DetectorConfig,
    DetectorKind,
    LifecyclePolicy,
    SeriesState,
    detect,
)
from proctor.store import Item, RunRef, ScoreRecord, SpanRecord, Store

#: One dimension's scores, run after run: steady, then drifting down (a trend), then a breach.
SCORES = (80, 80, 80, 80, 80, 80, 70, 65, 60, 30)


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        server.default = marker_score()  # the score written in the answer, [[score:NN]]
        yield server


def judged(c, n: int, score: int) -> dict:  # type: ignore[no-untyped-def]
    """Send run ``n`` (its answer marked with ``score``) and wait until it is evaluated."""
    assert post(c.url, otlp_body(conversation=f"conv-{n}", text=f"[[score:{score}]]")).status_code == 200
    return wait_for(lambda: _done(c, n), f"run {n} judged")  # type: ignore[no-any-return]


def _done(c, n: int):  # type: ignore[no-untyped-def]
    with c.client() as api:
        runs = api.list_runs(monitor="demo/oil-agent", limit=100)
    return next((r for r in runs if r["key"] == f"conv-{n}" and r["state"] == "Evaluated"), None)


def test_a_drift_then_a_breach_survive_a_restart_and_show_in_the_summary_and_metrics(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    objects = manifests(judge.base_url)
    with collector(tmp_path, db_url, objects, name="first") as c:
        for n, score in enumerate(SCORES[:5]):
            judged(c, n, score)
    with collector(tmp_path, db_url, objects, name="second") as c:  # restarted mid-trend
        for n, score in enumerate(SCORES[5:], start=5):
            judged(c, n, score)
        with c.client() as api:
            summary = api.monitor("demo", "oil-agent")
        metrics = httpx.get(f"{c.url}/metrics").text
    breached = {(f["signature"], f["revision"]) for f in summary["detectors"]["breached"]}
    assert ("breach:task_success", "") in breached  # the agent sends no service.version
    assert not any(sig.startswith("breach:trajectory") for sig, _ in breached)  # no tool call failed
    firing = (
        'proctor_collector_detector_firing{agent="oil-agent",dimension="task_success",'
        'monitor="demo/oil-agent",revision="",signature="breach:task_success"} 1.0'
    )
    assert firing in metrics
    # what the collectors recorded, run by run, is one uninterrupted pass of the pure detectors
    store = Store.open(db_url)
    try:
        runs = sorted(store.list_runs(limit=100), key=lambda r: r.scores[0].evaluation_id)
        got = []
        for run in runs:
            fired = store.detectors.detections(run.scores[0].evaluation_id)
            assert fired is not None  # every evaluated run was stepped, before and after the restart
            got.append(tuple(d for d in fired if d.metric == "task_success"))
        (series,) = [s for s in store.detectors.series("demo/oil-agent") if s.metric == "task_success"]
    finally:
        store.close()
    state, expected = SeriesState(), []
    for score in SCORES:
        state, found = detect(state, "task_success", score / 100.0, DetectorConfig())
        expected.append(found)
    assert got == expected
    assert any(d.kind is DetectorKind.TREND for f in got for d in f)
    assert series.samples == len(SCORES) and series.latest == 30.0


def test_a_collector_steps_at_start_the_runs_a_stopped_one_judged_but_never_stepped(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    objects = manifests(judge.base_url)
    store = Store.open(db_url)  # what a collector stopped between storing the scores and stepping left
    try:
        now = time.time()
        ref = RunRef("demo/oil-agent", "conv-x", "gen_ai.conversation.id", "oil-agent", "1.0")
        span = SpanRecord(trace_id="ab" * 16, span_id="cd" * 8, name="chat", start_ns=1, end_ns=2)
        store.ingest([Item(ref, span=span)], {"demo/oil-agent": LifecyclePolicy(quiescence_seconds=0)}, now)
        store.advance_due(now)
        (c,) = store.claim("gone", now)
        low = ScoreRecord("safety", 50.0, "judge", score=20.0)
        assert store.complete(c, AttemptOutcome.EVALUATED, now, scores=[low])
        assert store.detectors.detections(c.evaluation_id) is None
    finally:
        store.close()
    with collector(tmp_path, db_url, objects) as c:

        def stepped():  # type: ignore[no-untyped-def]
            with c.client() as api:
                return api.monitor("demo", "oil-agent")["detectors"]["breached"]

        (fired,) = wait_for(stepped, "the stored evaluation to be stepped")
    assert (fired["signature"], fired["revision"], fired["latest"]) == ("breach:safety", "1.0", 20.0)
