"""The per-revision rollups the live verdict sums (:mod:`proctor.store._rollup`), on SQLite and on a
real PostgreSQL: after any sequence of what moves runs (completions of every outcome, late events
that re-open a judged run, "evaluate now", a revision learned late, leases that expire, runs
deleted) a revision's verdict counts equal a count from scratch over the stored runs, scores and
signals under the one breach rule; the migration's backfill and a rebuild give the same."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.orm import Session

from proctor.protocol import EVALUATED_STATES, AttemptOutcome, LifecyclePolicy, breached_metrics, run_metrics
from proctor.store import Item, LiveCanary, RunRef, ScoreRecord, SpanRecord, Store, run_id
from proctor.store._engine import _config, create, migrate
from proctor.store._schema import Evaluation, Run, Score

MON, OTHER = "ns/oil", "ns/other"
# the other monitor samples half its runs: NotSampled runs are counted too
POLICIES = {
    MON: LifecyclePolicy(quiescence_seconds=0),
    OTHER: LifecyclePolicy(quiescence_seconds=0, sampling=0.5),
}
STORED = ("1.0", "1.0@aaa", "1.0@bbb", "2.0", "2.0@aaa", "10.0", None)
ASKED = ("1.0", "1.0@aaa", "1.0@bbb", "@aaa", "@bbb", "2.0", "10.0", "1", "3.0")
DIMENSIONS = ("task_success", "output_quality", "safety")
JUDGED = frozenset(s.value for s in EVALUATED_STATES)
#: Completions, judged ones the likeliest.
OUTCOMES = (
    AttemptOutcome.EVALUATED,
    AttemptOutcome.EVALUATED,
    AttemptOutcome.PARTIAL,
    AttemptOutcome.FAILED,
    AttemptOutcome.INTERRUPTED,
)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store.open(db_url)
    yield s
    s.close()


def matches(stored: str | None, asked: str) -> bool:
    """``revision_filter``'s rule, in Python: R is R and R@<hash>; @H every version with hash H."""
    if stored is None:
        return False
    if asked.startswith("@"):
        return stored == asked or stored.endswith(asked)
    if "@" in asked:
        return stored == asked
    return stored == asked or stored.startswith(asked + "@")


def from_scratch(engine: sa.Engine, monitor: str, asked: str) -> dict[str, Any]:
    """The revision's counts from every stored run, its current scores and signals, by the rule."""
    out: dict[str, Any] = {"judged": 0, "breached": 0, "safety": 0, "failed": 0, "pending": 0, "ns": 0}
    dims: dict[str, int] = {}
    with Session(engine) as s:
        for run in s.scalars(select_runs(monitor)):
            if not matches(run.revision, asked):
                continue
            if run.state in JUDGED:
                scores = [
                    (x.dimension, x.score, x.threshold, x.source)
                    for x in s.scalars(sa.select(Score).where(Score.evaluation_id == run.evaluation_id))
                ]
                ev = s.get(Evaluation, run.evaluation_id)
                assert ev is not None
                found = breached_metrics(run_metrics(scores, json.loads(ev.signals)))
                out["judged"] += 1
                out["breached"] += bool(found)
                out["safety"] += any(m.safety for m in found)
                for m in found:
                    dims[m.name] = dims.get(m.name, 0) + 1
            elif run.state == "EvaluationFailed":
                out["failed"] += 1
            elif run.state == "NotSampled":
                out["ns"] += 1
            else:
                out["pending"] += 1
    out["dimensions"] = dict(sorted(dims.items()))
    return out


def select_runs(monitor: str) -> Any:
    return sa.select(Run).where(Run.monitor == monitor)


def counted(canary: LiveCanary, monitor: str, asked: str) -> dict[str, Any]:
    c = canary.revision(monitor, asked)
    e = c.evidence
    return {
        "judged": e.judged,
        "breached": e.breached,
        "safety": e.safety_breached,
        "failed": e.failed,
        "pending": e.pending,
        "ns": c.not_sampled,
        "dimensions": c.dimensions,
    }


def assert_counts_agree(store: Store) -> None:
    canary = LiveCanary(store.engine)
    for monitor in (MON, OTHER):
        for asked in ASKED:
            assert counted(canary, monitor, asked) == from_scratch(store.engine, monitor, asked), (
                monitor,
                asked,
            )


def random_scores(rng: random.Random) -> list[ScoreRecord]:
    out = []
    for d in rng.sample(DIMENSIONS, rng.randint(1, len(DIMENSIONS))):
        skipped = rng.random() < 0.15
        source = "safety-scan" if d == "safety" and rng.random() < 0.5 else "judge"
        out.append(
            ScoreRecord(
                dimension=d,
                threshold=rng.choice((50.0, 70.0)),
                source=source,
                score=None if skipped else float(rng.choice((0, 20, 49, 50, 69, 70, 90))),
                skipped_reason="judge unavailable" if skipped else None,
            )
        )
    return out


def random_signals(rng: random.Random) -> dict[str, Any]:
    return {
        "toolErrorRate": rng.choice((None, 0.0, 0.4, 0.6, 1.0)),
        "loopSuspected": rng.choice((None, False, False, True)),
    }


def ingest(store: Store, rng: random.Random, key: str, monitor: str, now: float) -> None:
    revision = rng.choice(STORED)
    ref = RunRef(monitor, key, "gen_ai.conversation.id", "oil-agent", revision)
    span = SpanRecord(
        trace_id=f"{rng.getrandbits(128):032x}",
        span_id=f"{rng.getrandbits(64):016x}",
        name="chat",
        start_ns=1,
        end_ns=2,
    )
    store.ingest([Item(ref, span=span, final=rng.random() < 0.7)], POLICIES, now)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rollup_equals_a_count_from_scratch_after_any_sequence(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{i}" for i in range(14)]
    now = 1000.0
    for step in range(70):
        now += rng.choice((0.5, 1.0, 400.0))  # 400 s: leases of 300 s expire
        op = rng.random()
        if op < 0.35:  # a new run, or a late event of one (re-opens a judged run, may learn its revision)
            ingest(store, rng, rng.choice(keys), rng.choice((MON, MON, OTHER)), now)
        elif op < 0.75:
            store.advance_due(now)
            for c in store.claim("w", now, limit=rng.randint(1, 4)):
                outcome = rng.choice(OUTCOMES)
                if rng.random() < 0.1:
                    continue  # the worker vanished: its lease expires later
                store.complete(
                    c,
                    outcome,
                    now,
                    scores=random_scores(rng)
                    if outcome in (AttemptOutcome.EVALUATED, AttemptOutcome.PARTIAL)
                    else (),
                    signals=random_signals(rng),
                    reason=None if outcome is AttemptOutcome.EVALUATED else "judge unavailable",
                )
        elif op < 0.85:
            rid = run_id(rng.choice((MON, OTHER)), rng.choice(keys))
            if _exists(store, rid):
                store.evaluate_now(rid, now)
        elif op < 0.92:  # a run deleted (as retention would, through the ORM)
            with Session(store.engine) as s, s.begin():
                runs = list(s.scalars(sa.select(Run)))
                if runs:
                    s.delete(rng.choice(runs))
        else:
            store.advance_due(now)
        if step % 10 == 9:
            assert_counts_agree(store)
    assert_counts_agree(store)
    judged = sum(
        from_scratch(store.engine, m, r)["judged"] for m in (MON, OTHER) for r in ("1.0", "2.0", "10.0")
    )
    assert judged > 0  # the sequence judged runs (the comparison was not of empty counts)
    store.rollups.rebuild()  # a recount from the runs finds the same
    assert_counts_agree(store)


def _exists(store: Store, rid: str) -> bool:
    with Session(store.engine) as s:
        return s.get(Run, rid) is not None


def test_a_run_that_leaves_and_comes_back_is_counted_once(store: Store) -> None:
    """A judged, breached run that a late event re-opens leaves its revision's counts at once, and
    comes back with its new result."""
    ref = RunRef(MON, "x", "gen_ai.conversation.id", "oil-agent", "1.0")

    def span(i: int) -> SpanRecord:
        return SpanRecord(trace_id=f"{i:032x}", span_id=f"{i:016x}", name="chat", start_ns=1, end_ns=2)

    def judge(now: float, score: float) -> None:
        store.advance_due(now)
        (c,) = store.claim("w", now)
        assert store.complete(
            c, AttemptOutcome.EVALUATED, now, scores=[ScoreRecord("task_success", 50.0, "judge", score=score)]
        )

    canary = LiveCanary(store.engine)
    store.ingest([Item(ref, span=span(1), final=True)], POLICIES, 1000.0)
    judge(1001.0, 10.0)
    e = canary.revision(MON, "1.0")
    assert (e.evidence.judged, e.evidence.breached, e.dimensions) == (1, 1, {"task_success": 1})
    store.ingest([Item(ref, span=span(2), final=True)], POLICIES, 1002.0)  # a late event: re-opened
    e = canary.revision(MON, "1.0")
    assert (e.evidence.judged, e.evidence.breached, e.evidence.pending, e.dimensions) == (0, 0, 1, {})
    judge(1003.0, 90.0)
    e = canary.revision(MON, "1.0")
    assert (e.evidence.judged, e.evidence.breached, e.dimensions) == (1, 0, {})


def test_the_migration_backfills_the_rollups_from_the_stored_runs(db_url: str) -> None:
    """A database at 0009 holding judged runs: after the upgrade, the verdict counts are those of
    the stored runs and scores (the backfill), and a breached run's metrics are kept with it."""
    engine = create(db_url)
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0009")
    meta = sa.MetaData()
    meta.reflect(engine, only=["runs", "evaluations", "scores"])
    runs, evaluations, scores = meta.tables["runs"], meta.tables["evaluations"], meta.tables["scores"]
    plan: list[tuple[str, str | None, str, dict[str, tuple[float | None, str]]]] = [
        # key, revision, state, {dimension: (score, source)}
        ("a", "1.0", "Evaluated", {"task_success": (90.0, "judge")}),
        ("b", "1.0@h1", "Evaluated", {"task_success": (20.0, "judge"), "output_quality": (30.0, "judge")}),
        ("c", "1.0", "PartiallyEvaluated", {"safety": (0.0, "safety-scan"), "task_success": (None, "judge")}),
        ("d", "1.0", "EvaluationFailed", {}),
        ("e", "2.0", "Evaluated", {"task_success": (10.0, "judge")}),
        ("f", None, "Evaluated", {"task_success": (10.0, "judge")}),
    ]
    with engine.begin() as conn:
        for i, (key, revision, state, dims) in enumerate(plan, start=1):
            rid = run_id(MON, key)
            breached = any(s is not None and s < 50 for s, _ in dims.values())
            conn.execute(
                runs.insert(),
                {
                    "id": rid, "monitor": MON, "key": key, "key_source": "k", "agent": "a",
                    "revision": revision, "state": state, "sampled": True, "attempts": 1,
                    "first_event_at": 1.0, "last_event_at": 1.0,
                    "since": 1.0, "stale": False, "reevaluated": False, "requested": False, "finished": True,
                    "quiescence_seconds": 0.0, "sampling": 1.0, "span_count": 1, "event_count": 0,
                    "evaluation_id": i, "breached": breached if dims else None, "created_at": 1.0,
                    "updated_at": 1.0, "last_error": "judge unavailable" if not dims else None,
                },
            )  # fmt: skip
            conn.execute(
                evaluations.insert(),
                {"id": i, "run_id": rid, "monitor": MON, "attempt": 1, "worker": "w", "started_at": 1.0,
                 "provenance": "{}", "signals": "{}", "judge_calls": 0, "judgments": 0},
            )  # fmt: skip
            for d, (score, source) in dims.items():
                conn.execute(
                    scores.insert(),
                    {"evaluation_id": i, "dimension": d, "run_id": rid, "monitor": MON, "score": score,
                     "skipped_reason": None if score is not None else "x", "threshold": 50.0, "samples": "[]",
                     "rationale": "", "source": source, "provenance": "p", "created_at": 1.0},
                )  # fmt: skip
    migrate(engine)
    canary = LiveCanary(engine)
    e = canary.revision(MON, "1.0")
    assert (e.evidence.judged, e.evidence.breached, e.evidence.safety_breached, e.evidence.failed) == (
        3,
        2,
        1,
        1,
    )
    assert e.dimensions == {"output_quality": 1, "safety": 1, "task_success": 1}
    assert canary.revision(MON, "2.0").evidence.breached == 1
    (b,) = [r for r in canary.breached_runs(MON, revision="1.0@h1")]
    assert [(s.dimension, s.score) for s in b.scores] == [("output_quality", 30.0), ("task_success", 20.0)]
    engine.dispose()


def test_recompute_decides_again_under_the_monitors_thresholds(store: Store) -> None:
    """``proctor monitors recompute``'s store half: a threshold raised after the runs were judged
    breaches them now, in the runs' flags, their cases and the verdict counts; lowered, clean again."""
    rng = random.Random(5)
    for key in ("a", "b"):
        store.ingest(
            [Item(RunRef(MON, key, "k", "oil-agent", "1.0"), span=span_of(rng), final=True)], POLICIES, 1.0
        )
    store.advance_due(2.0)
    for c in store.claim("w", 2.0, limit=5):
        score = 60.0 if c.run_id == run_id(MON, "a") else 80.0
        signals = {"toolErrorRate": 0.0, "loopSuspected": False}
        store.complete(
            c,
            AttemptOutcome.EVALUATED,
            2.0,
            scores=[ScoreRecord("task_success", 50.0, "judge", score=score)],
            signals=signals,
        )
    canary = LiveCanary(store.engine)
    assert canary.revision(MON, "1.0").evidence.breached == 0
    assert store.rollups.recompute(MON, {"task_success": 70.0}) == 2
    e = canary.revision(MON, "1.0")
    assert (e.evidence.judged, e.evidence.breached, e.dimensions) == (2, 1, {"task_success": 1})
    (run,) = canary.breached_runs(MON)
    assert run.id == run_id(MON, "a") and [(s.dimension, s.threshold) for s in run.scores] == [
        ("task_success", 70.0)
    ]
    assert store.get_run(run.id).breached is True
    store.rollups.recompute(MON, {"task_success": 70.0, "trajectory_tool_success": 101.0})
    e = canary.revision(MON, "1.0")  # every run's tool success (100) is now under its threshold
    assert (e.evidence.breached, e.dimensions) == (2, {"task_success": 1, "trajectory_tool_success": 2})
    store.rollups.recompute(MON, {})
    assert canary.revision(MON, "1.0").evidence.breached == 0 and canary.breached_runs(MON) == []


def span_of(rng: random.Random) -> SpanRecord:
    return SpanRecord(
        trace_id=f"{rng.getrandbits(128):032x}",
        span_id=f"{rng.getrandbits(64):016x}",
        name="chat",
        start_ns=1,
        end_ns=2,
    )
