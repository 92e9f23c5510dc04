"""Each room of the store on its own, on SQLite and a real PostgreSQL: built from the engine as a
later room would be, with no Store facade in between."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from databases import db_url, postgres  # noqa: F401 (fixtures)
from proctor.protocol import AttemptOutcome, LifecyclePolicy, RunState
from proctor.store import (
    Ingestion,
    Item,
    RunNotFound,
    RunRef,
    Runs,
    ScoreRecord,
    SpanRecord,
    Store,
    WorkQueue,
    run_id,
)
from proctor.store._engine import create

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=10)}


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:  # noqa: F811 (fixture)
    Store.open(db_url).close()  # migrated once, as the collector does at start
    e = create(db_url)
    yield e
    e.dispose()


def item(key: str, span_id: str) -> Item:
    ref = RunRef(MON, key, "session.id", "oil-agent", "v1")
    span = SpanRecord(trace_id="a" * 32, span_id=span_id.rjust(16, "0"), name="chat", start_ns=1, end_ns=2)
    return Item(ref, span=span)


def test_ingestion_creates_runs_and_a_resend_stores_nothing(engine: Engine) -> None:
    rooms = Ingestion(engine), Runs(engine)
    ingestion, runs = rooms
    first = ingestion.ingest([item("c1", "1"), item("c1", "2"), item("c2", "1")], POLICIES, now=100.0)
    assert (first.spans, first.new_runs, first.by_monitor[MON]) == (3, 2, (3, 0, 2))
    again = ingestion.ingest([item("c1", "1")], POLICIES, now=101.0)
    assert (again.spans, again.duplicates, again.new_runs) == (0, 1, 0)
    run = runs.get_run(run_id(MON, "c1"))
    assert (run.span_count, run.state, run.last_event_at) == (2, RunState.RECEIVING, 100.0)


def test_the_work_queue_hands_each_ready_run_to_one_worker_and_fences_a_lost_lease(engine: Engine) -> None:
    Ingestion(engine).ingest([item("c1", "1"), item("c2", "1")], POLICIES, now=0.0)
    one, two = WorkQueue(engine), WorkQueue(engine)  # two replicas' queues on one database
    assert one.advance_due(10.0) == 2 and one.next_due() == 10.0
    mine = one.claim("w1", 10.0, limit=1, lease_seconds=30)
    theirs = two.claim("w2", 10.0, limit=5, lease_seconds=30)
    assert len(mine) == 1 and len(theirs) == 1 and mine[0].run_id != theirs[0].run_id
    assert two.claim("w2", 10.0) == []
    safety = [ScoreRecord("safety", 50.0, "judge", score=90.0)]
    assert two.complete(theirs[0], AttemptOutcome.EVALUATED, 20.0, scores=safety)
    two.advance_due(41.0)  # w1 never renewed: its lease expired
    assert not one.complete(mine[0], AttemptOutcome.EVALUATED, 42.0, scores=safety)  # fenced: nothing written
    runs = Runs(engine)
    assert runs.get_run(mine[0].run_id).state == RunState.EVALUATION_FAILED
    done = runs.get_run(theirs[0].run_id)
    assert done.state == RunState.EVALUATED and [s.score for s in done.scores] == [90.0]


def test_runs_and_scores_page_newest_first_and_summarise_a_monitor(engine: Engine) -> None:
    ingestion, queue, runs = Ingestion(engine), WorkQueue(engine), Runs(engine)
    for i in range(5):
        ingestion.ingest([item(f"c{i}", "1")], POLICIES, now=float(i))
    queue.advance_due(100.0)
    for n, c in enumerate(queue.claim("w1", 100.0, limit=5)):
        queue.complete(
            c,
            AttemptOutcome.EVALUATED,
            100.0 + n,
            scores=[ScoreRecord("safety", 50.0, "judge", score=60.0 + n)],
        )
    page = runs.list_runs(monitors=[MON], limit=2)
    assert [r.key for r in page] == ["c4", "c3"]
    assert [r.key for r in runs.list_runs(monitors=[MON], limit=2, before=page[-1].id)] == ["c2", "c1"]
    assert runs.list_runs(monitors=["ns/other"]) == []
    summary = runs.summary(MON)
    assert summary.total == 5 and summary.counts[RunState.EVALUATED.value] == 5
    (safety,) = summary.dimensions
    assert (safety.samples, safety.latest) == (5, 64.0)
    assert runs.count("scores") == 5 and len(runs.evaluations(page[0].id)) == 1
    with pytest.raises(RunNotFound):
        runs.get_run("r-none")
