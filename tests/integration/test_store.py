"""The store on SQLite and on a real PostgreSQL: the same tests, the same code path."""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from proctor.devcluster.postgres import PostgresServer, wait_until_up
from proctor.protocol import AttemptOutcome, LifecyclePolicy, RunState
from proctor.store import (
    EventRecord,
    Item,
    RunNotFound,
    RunRef,
    ScoreRecord,
    SpanRecord,
    Store,
    StoreUnavailable,
    head,
    run_id,
)
from proctor.store._engine import current
from proctor.store._schema import Base

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=90)}


def ref(key: str) -> RunRef:
    return RunRef(
        monitor=MON, key=key, key_source="gen_ai.conversation.id", agent="oil-agent", revision="1.0"
    )


def span(trace: str, span_id: str, name: str = "chat", **kw: object) -> SpanRecord:
    return SpanRecord(
        trace_id=trace.rjust(32, "0"),
        span_id=span_id.rjust(16, "0"),
        name=name,
        start_ns=1,
        end_ns=2,
        attributes={"gen_ai.operation.name": "chat", **kw},
    )


@pytest.fixture
def store(db_url: str) -> Store:
    s = Store.open(db_url)
    yield s
    s.close()


def test_migrations_bring_the_schema_to_the_models_and_run_once(store: Store, db_url: str) -> None:
    assert current(store.engine) == head()
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    again = Store.open(db_url)  # a second start migrates nothing and loses nothing
    assert current(again.engine) == head()
    again.close()


def test_a_resend_changes_nothing(store: Store) -> None:
    items = [Item(ref("c1"), span=span("a", str(i))) for i in range(1, 4)]
    first = store.ingest(items, POLICIES, now=1000.0)
    assert (first.spans, first.duplicates, first.new_runs) == (3, 0, 1)
    before = store.get_run(run_id(MON, "c1"))
    again = store.ingest(items, POLICIES, now=1050.0)
    assert (again.spans, again.duplicates, again.new_runs) == (0, 3, 0)
    after = store.get_run(run_id(MON, "c1"))
    assert after == before  # last_event_at did not move: a resend is not a late event
    assert store.count("spans") == 3
    events = [Item(ref("c1"), event=EventRecord(id="e1", kind="output", text="hi", timestamp=1.0))]
    assert store.ingest(events, POLICIES, now=1060.0).events == 1
    assert store.ingest(events, POLICIES, now=1061.0).duplicates == 1
    assert store.get_run(run_id(MON, "c1")).event_count == 1


def test_a_run_is_judged_once_after_its_quiescence_and_keeps_its_scores(store: Store) -> None:
    store.ingest([Item(ref("c1"), span=span("a", "1"))], POLICIES, now=1000.0)
    rid = run_id(MON, "c1")
    assert store.claim("w1", now=1010.0) == []
    store.advance_due(1010.0)
    assert store.get_run(rid).state == RunState.QUIESCING
    store.advance_due(1090.0)
    assert store.get_run(rid).state == RunState.READY
    assert store.next_due() == 1090.0
    (c,) = store.claim("w1", now=1090.0)
    assert store.claim("w2", now=1090.0) == []  # claimed once
    assert store.get_run(rid).state == RunState.EVALUATING
    scores = [
        ScoreRecord("task_success", 50.0, "judge", score=80.0, samples=(80.0,), rationale="fine"),
        ScoreRecord("safety", 50.0, "judge", skipped_reason="judge unavailable after 4 attempts: 503"),
    ]
    prov = {"digest": "sha256:" + "a" * 64, "judgePrompt": "sha256:" + "b" * 64}
    assert store.complete(
        c, AttemptOutcome.PARTIAL, 1091.0, scores=scores, provenance=prov, judgments=2, judge_calls=2
    )
    run = store.get_run(rid)
    assert run.state == RunState.PARTIALLY_EVALUATED and run.attempts == 1
    got = {s.dimension: s for s in run.scores}
    assert got["task_success"].score == 80.0 and got["task_success"].provenance == prov["digest"]
    assert got["safety"].score is None and "unavailable" in (got["safety"].skipped_reason or "")
    (ev,) = store.evaluations(rid)
    assert ev.outcome == "partial" and ev.provenance == prov and ev.worker == "w1"
    # a late event: stale, judged once more after quiescence; the old scores stay until then
    store.ingest([Item(ref("c1"), span=span("a", "2"))], POLICIES, now=1200.0)
    run = store.get_run(rid)
    assert run.state == RunState.RECEIVING and run.stale and len(run.scores) == 2


def test_an_expired_lease_fails_the_attempt_and_fences_the_old_worker(store: Store) -> None:
    store.ingest([Item(ref("c1"), span=span("a", "1"))], POLICIES, now=0.0)
    store.advance_due(90.0)
    (c,) = store.claim("w1", now=90.0, lease_seconds=30)
    assert store.renew([c], 100.0, lease_seconds=30) == []
    store.advance_due(125.0)
    assert store.get_run(c.run_id).state == RunState.EVALUATING  # renewed until 130
    store.advance_due(130.0)
    run = store.get_run(c.run_id)
    assert run.state == RunState.EVALUATION_FAILED and run.attempts == 1 and run.next_attempt_at == 190.0
    assert not store.complete(c, AttemptOutcome.EVALUATED, 131.0)  # too late: nothing written
    assert store.renew([c], 131.0) == [c.run_id]
    (ev,) = store.evaluations(c.run_id)
    assert ev.outcome == "failed" and "lease" in (ev.error or "")


def test_evaluate_now_and_unknown_runs(store: Store) -> None:
    store.ingest([Item(ref("c1"), span=span("a", "1"))], POLICIES, now=0.0)
    assert store.evaluate_now(run_id(MON, "c1"), 1.0).state == RunState.READY
    assert len(store.claim("w1", now=1.0)) == 1
    with pytest.raises(RunNotFound):
        store.evaluate_now("r-nope", 1.0)


def test_listing_pages_and_filters(store: Store) -> None:
    for i in range(5):
        store.ingest([Item(ref(f"c{i}"), span=span(f"t{i}", "1"))], POLICIES, now=float(i))
    page = store.list_runs(monitors=[MON], limit=2)
    assert [r.key for r in page] == ["c4", "c3"]
    nxt = store.list_runs(monitors=[MON], limit=2, before=page[-1].id)
    assert [r.key for r in nxt] == ["c2", "c1"]
    assert store.list_runs(monitors=["other/x"]) == []
    assert len(store.list_runs(state=RunState.RECEIVING.value)) == 5


def test_summary_counts_states_and_recomputes_ewmas(store: Store) -> None:
    now = 0.0
    for i, value in enumerate([90.0, 80.0, 40.0]):
        store.ingest([Item(ref(f"c{i}"), span=span(f"t{i}", "1"))], POLICIES, now=now)
        store.evaluate_now(run_id(MON, f"c{i}"), now)
        (c,) = store.claim("w", now=now)
        store.complete(
            c,
            AttemptOutcome.EVALUATED,
            now,
            scores=[ScoreRecord("safety", 50.0, "judge", score=value)],
            judgments=1,
            judge_calls=3 if value < 60 else 1,
        )
        now += 1
    s = store.summary(MON)
    assert s.counts == {RunState.EVALUATED.value: 3} and s.breached == 1 and s.total == 3
    (dim,) = s.dimensions
    assert dim.latest == 40.0 and dim.samples == 3
    assert dim.fast_ewma == pytest.approx(0.5 * 40 + 0.5 * (0.5 * 80 + 0.5 * 90))
    assert dim.slow_ewma is not None and dim.slow_ewma > dim.fast_ewma
    assert s.consensus_multiplier == pytest.approx(5 / 3)
    assert s.revisions == ("1.0",)


def test_concurrent_claims_never_share_a_run(store: Store) -> None:
    for i in range(40):
        store.ingest([Item(ref(f"c{i}"), span=span(f"t{i}", "1"))], POLICIES, now=0.0)
        store.evaluate_now(run_id(MON, f"c{i}"), 0.0)
    got: list[str] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        while True:
            claims = store.claim(name, now=1.0, limit=3)
            if not claims:
                return
            with lock:
                got.extend(c.run_id for c in claims)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 40 and len(set(got)) == 40


def test_a_database_that_is_down_raises_store_unavailable_and_stores_nothing() -> None:
    directory = Path(tempfile.mkdtemp(prefix="proctor-pg-down-"))
    server = PostgresServer(directory).start()
    try:
        store = Store.open(server.create_database("down"))
        store.ingest([Item(ref("c1"), span=span("a", "1"))], POLICIES, now=0.0)
        server.kill()
        with pytest.raises(StoreUnavailable):
            store.ingest([Item(ref("c2"), span=span("b", "1"))], POLICIES, now=1.0)
        server.restart()
        wait_until_up(server)
        assert store.count("spans") == 1  # the failed request left nothing behind
        store.ingest([Item(ref("c2"), span=span("b", "1"))], POLICIES, now=2.0)
        assert store.count("spans") == 2
        store.close()
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
