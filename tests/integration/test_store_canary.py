"""The canary's reads (:class:`proctor.store.LiveCanary`) on SQLite and on a real PostgreSQL: what a
revision's verdict is counted from, how revisions match, and which runs become candidate cases."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from proctor.protocol import AttemptOutcome, LifecyclePolicy
from proctor.store import Item, LiveCanary, RunRef, ScoreRecord, SpanRecord, Store, normalise_url

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=10)}


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store.open(db_url)
    yield s
    s.close()


def judged(
    store: Store,
    key: str,
    revision: str | None,
    scores: dict[str, tuple[float | None, str]],
    *,
    outcome: AttemptOutcome = AttemptOutcome.EVALUATED,
    monitor: str = MON,
    now: float = 1000.0,
) -> None:
    """A run of ``revision`` ingested, claimed and completed with ``scores`` {dimension: (score, src)}."""
    ref = RunRef(monitor, key, "gen_ai.conversation.id", "oil-agent", revision)
    span = SpanRecord(
        trace_id=key.rjust(32, "0"), span_id="1".rjust(16, "0"), name="chat", start_ns=1, end_ns=2
    )
    store.ingest([Item(ref, span=span, final=True)], {monitor: LifecyclePolicy(quiescence_seconds=0)}, now)
    store.advance_due(now + 1)
    (c,) = [c for c in store.claim("w", now + 1, limit=50) if c.run_id == ref.id]
    records = [
        ScoreRecord(
            dimension=d, threshold=50.0, source=src, score=s, skipped_reason=None if s is not None else "x"
        )
        for d, (s, src) in scores.items()
    ]
    assert store.complete(
        c,
        outcome,
        now + 2,
        scores=records if outcome is not AttemptOutcome.FAILED else (),
        reason="judge unavailable: 503" if outcome is AttemptOutcome.FAILED else None,
    )


def test_a_revisions_runs_are_counted_by_state_breach_and_tier(store: Store) -> None:
    judged(store, "a", "2.0", {"task_success": (90, "judge"), "safety": (95, "judge")})
    judged(
        store, "b", "2.0", {"task_success": (20, "judge"), "safety": (None, "judge")}
    )  # skipped: no breach
    judged(store, "c", "2.0@abc123", {"task_success": (80, "judge"), "safety": (0, "safety-scan")})
    judged(store, "d", "2.0@abc123", {}, outcome=AttemptOutcome.FAILED)
    judged(store, "e", "1.0", {"task_success": (10, "judge")})  # another revision
    judged(store, "f", "2.0", {"task_success": (10, "judge")}, monitor="other/mon")  # another monitor
    canary = LiveCanary(store.engine)

    counts = canary.revision(MON, "2.0")  # 2.0 and 2.0@<any hash>
    e = counts.evidence
    assert (e.judged, e.breached, e.safety_breached, e.failed, e.pending) == (3, 2, 1, 1, 0)
    assert e.last_error == "judge unavailable: 503"
    assert counts.dimensions == {"safety": 1, "task_success": 1}

    hashed = canary.revision(MON, "@abc123").evidence  # a pod-template hash, whatever the version
    assert (hashed.judged, hashed.breached, hashed.safety_breached, hashed.failed) == (1, 1, 1, 1)
    exact = canary.revision(MON, "2.0@abc123").evidence
    assert (exact.judged, exact.failed) == (1, 1)
    assert canary.revision(MON, "2").evidence.judged == 0  # a version is not a prefix of another
    assert canary.revision(MON, "2.0%").evidence.judged == 0  # LIKE wildcards are text
    assert canary.revision(MON, "@abc%").evidence.judged == 0
    assert canary.revision(MON, "1.0").evidence.breached == 1


def test_breached_runs_come_newest_first_with_only_their_breached_scores(store: Store) -> None:
    judged(store, "old", "2.0", {"task_success": (20, "judge"), "output_quality": (90, "judge")}, now=1000)
    judged(store, "clean", "2.0", {"task_success": (90, "judge")}, now=2000)
    judged(store, "new", "3.0", {"safety": (0, "safety-scan")}, now=3000)
    canary = LiveCanary(store.engine)
    runs = canary.breached_runs(MON)
    assert [r.revision for r in runs] == ["3.0", "2.0"]
    assert [s.dimension for s in runs[1].scores] == ["task_success"]
    assert runs[0].scores[0].source == "safety-scan"
    assert [r.revision for r in canary.breached_runs(MON, revision="2.0")] == ["2.0"]
    assert len(canary.breached_runs(MON, limit=1)) == 1
    assert canary.breached_runs("other/mon") == []


def test_revisions_match_in_a_database_whose_collation_ignores_punctuation(postgres: Any) -> None:
    """PostgreSQL compares text in the database's collation; in one that skips punctuation
    ("1.3.0@abc" sorts after "1.3.0A"), a range of revisions would leave the hashed runs out, and
    with them a safety breach. The runs of 1.3.0@abc count however the database sorts."""
    admin = create_engine(normalise_url(postgres.create_database()), isolation_level="AUTOCOMMIT")
    name = f"icu_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(
            text(
                f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu "
                "ICU_LOCALE 'en-US-u-ka-shifted' LOCALE 'C.UTF-8'"
            )
        )
    admin.dispose()
    store = Store.open(str(make_url(normalise_url(postgres.create_database())).set(database=name)))
    try:
        with store.engine.connect() as conn:  # the premise: this database sorts past the range
            assert conn.execute(text("SELECT '1.3.0@abc' > '1.3.0A'")).scalar() is True
        judged(store, "a", "1.3.0", {"task_success": (90, "judge")})
        judged(store, "b", "1.3.0@abc", {"safety": (0, "safety-scan")})
        e = LiveCanary(store.engine).revision(MON, "1.3.0").evidence
        assert (e.judged, e.safety_breached) == (2, 1)
    finally:
        store.close()
