"""The work-queue room: the lifecycle's timed transitions, claims with leases, and completions.

Workers claim and advance runs with ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so several replicas
share the work and no run is claimed twice; a completion is fenced on the claim's lease owner and
evaluation id, so a worker whose lease expired cannot overwrite the run's newer state. The
transitions are the pure functions of :mod:`proctor.protocol`; this room loads the rows, applies
them, and writes the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from proctor.protocol import (
    AttemptOutcome,
    Metric,
    RunState,
    advance,
    breached_metrics,
    claim,
    due_at,
    evaluate_now,
    finish,
    renew,
    run_metrics,
)
from proctor.store._records import (
    Claim,
    RunView,
    ScoreRecord,
    current_scores,
    lifecycle_of,
    policy_of,
    run_view,
    write_lifecycle,
)
from proctor.store._rollup import encode_breaches
from proctor.store._room import Room, RunNotFound
from proctor.store._room import dumps as _dumps
from proctor.store._schema import Evaluation, Run, Score

#: States that time alone moves on (:func:`proctor.protocol.advance`).
TIMED_STATES: Final = (
    RunState.RECEIVING.value,
    RunState.QUIESCING.value,
    RunState.EVALUATING.value,
    RunState.EVALUATION_FAILED.value,
)


class WorkQueue(Room):
    """Runs due, claimed, renewed, completed, brought forward (see the module's docstring)."""

    def advance_due(self, now: float, *, limit: int = 500) -> int:
        """Apply every transition time has made by ``now`` (quiescence ends, retries come due,
        leases expire); returns how many runs moved."""
        return self._guard(lambda: self._advance_due(now, limit))

    def _advance_due(self, now: float, limit: int) -> int:
        moved = 0
        with Session(self._writes) as session, session.begin():
            stmt = (
                select(Run)
                .where(Run.state.in_(TIMED_STATES), Run.due_at <= now)
                .order_by(Run.due_at)
                .limit(limit)
            )
            for row in session.scalars(self._locked(stmt, skip=True)):
                policy = policy_of(row)
                before = lifecycle_of(row)
                after = advance(before, now, policy)
                if after != before:
                    if before.state is RunState.EVALUATING:
                        self._close_evaluation(session, row, AttemptOutcome.FAILED, after.last_error, now)
                    write_lifecycle(row, after, policy, now)
                    moved += 1
                else:  # nothing to do yet (its due time was computed under older settings)
                    row.due_at = due_at(after, policy)
        return moved

    def next_due(self) -> float | None:
        """The earliest time a timed transition or a claim is due (None: nothing is waiting)."""

        def go() -> float | None:
            with Session(self.engine) as session:
                value = session.scalar(
                    select(func.min(Run.due_at)).where(
                        Run.state.in_((*TIMED_STATES, RunState.READY.value)), Run.due_at.is_not(None)
                    )
                )
                return float(value) if value is not None else None

        return self._guard(go)

    def claim(self, worker: str, now: float, *, limit: int = 8, lease_seconds: float = 300.0) -> list[Claim]:
        """Take up to ``limit`` runs that are ready, oldest first, for ``worker``: each is Evaluating
        with a lease and a new evaluation row. On PostgreSQL, runs another replica holds are skipped."""
        return self._guard(lambda: self._claim(worker, now, limit, lease_seconds))

    def _claim(self, worker: str, now: float, limit: int, lease_seconds: float) -> list[Claim]:
        out: list[Claim] = []
        with Session(self._writes) as session, session.begin():
            stmt = (
                select(Run)
                .where(Run.state == RunState.READY.value, or_(Run.due_at.is_(None), Run.due_at <= now))
                .order_by(Run.due_at)
                .limit(limit)
            )
            for row in session.scalars(self._locked(stmt, skip=True)):
                policy = policy_of(row)
                life = claim(lifecycle_of(row), now, lease_seconds)
                write_lifecycle(row, life, policy, now)
                row.lease_owner = worker
                evaluation = Evaluation(
                    run_id=row.id,
                    monitor=row.monitor,
                    attempt=life.attempts + 1,
                    worker=worker,
                    started_at=now,
                    provenance="{}",
                    signals="{}",
                    judge_calls=0,
                    judgments=0,
                )
                session.add(evaluation)
                session.flush()
                row.evaluation_id = evaluation.id
                out.append(
                    Claim(
                        row.id, row.monitor, row.agent, row.revision, evaluation.id, life.attempts + 1, worker
                    )
                )
        return out

    def renew(self, claims: Iterable[Claim], now: float, *, lease_seconds: float = 300.0) -> list[str]:
        """Extend the leases of ``claims`` still held; returns the run ids whose lease was lost."""

        def go() -> list[str]:
            lost: list[str] = []
            with Session(self._writes) as session, session.begin():
                for c in claims:
                    row = session.get(Run, c.run_id, with_for_update=self.dialect == "postgresql")
                    if row is None or not self._holds(row, c):
                        lost.append(c.run_id)
                        continue
                    life = renew(lifecycle_of(row), now, lease_seconds)
                    write_lifecycle(row, life, policy_of(row), now)
            return lost

        return self._guard(go)

    @staticmethod
    def _holds(row: Run, c: Claim) -> bool:
        return (
            row.state == RunState.EVALUATING.value
            and row.lease_owner == c.worker
            and row.evaluation_id == c.evaluation_id
        )

    def _close_evaluation(
        self, session: Session, row: Run, outcome: AttemptOutcome, error: str | None, now: float
    ) -> None:
        if row.evaluation_id is None:
            return
        session.execute(
            update(Evaluation)
            .where(Evaluation.id == row.evaluation_id, Evaluation.finished_at.is_(None))
            .values(finished_at=now, outcome=outcome.value, error=error)
        )

    def complete(
        self,
        c: Claim,
        outcome: AttemptOutcome,
        now: float,
        *,
        scores: Sequence[ScoreRecord] = (),
        provenance: Mapping[str, Any] | None = None,
        signals: Mapping[str, Any] | None = None,
        reason: str | None = None,
        retry_after: float = 0.0,
        judge_calls: int = 0,
        judgments: int = 0,
        breaches: Sequence[Metric] | None = None,
        permanent: bool = False,
    ) -> bool:
        """Record the attempt's result and move the run on. False (nothing written) when the claim
        was lost: the lease expired and the run moved on without this worker.

        ``breaches``: the metrics a judged run breached, as the evaluation decided them under the
        monitor's thresholds (:func:`proctor.protocol.breached_metrics`); None: decided here from ``scores``
        and ``signals`` by the same rule, with the thresholds the scores carry. Stored with the run
        (its ``breached`` flag and ``breaches``); the revision's rollup moves with it."""

        def go() -> bool:
            with Session(self._writes) as session, session.begin():
                row = session.get(Run, c.run_id, with_for_update=self.dialect == "postgresql")
                if row is None or not self._holds(row, c):
                    return False
                policy = policy_of(row)
                life = finish(
                    lifecycle_of(row),
                    outcome,
                    now,
                    policy,
                    reason=reason,
                    retry_after=retry_after,
                    permanent=permanent,
                )
                prov = dict(provenance or {})
                digest = str(prov.get("digest", ""))
                session.execute(
                    update(Evaluation)
                    .where(Evaluation.id == c.evaluation_id)
                    .values(
                        finished_at=now,
                        outcome=outcome.value,
                        provenance=_dumps(prov),
                        signals=_dumps(dict(signals or {})),
                        error=reason,
                        judge_calls=judge_calls,
                        judgments=judgments,
                    )
                )
                if scores:
                    session.execute(
                        self._insert(Score),
                        [
                            {
                                "evaluation_id": c.evaluation_id,
                                "dimension": s.dimension,
                                "run_id": row.id,
                                "monitor": row.monitor,
                                "score": s.score,
                                "skipped_reason": s.skipped_reason,
                                "threshold": s.threshold,
                                "agreement": s.agreement,
                                "samples": _dumps(list(s.samples)),
                                "rationale": s.rationale,
                                "source": s.source,
                                "provenance": digest,
                                "created_at": now,
                            }
                            for s in scores
                        ],
                    )
                if outcome in (AttemptOutcome.EVALUATED, AttemptOutcome.PARTIAL):
                    found = (
                        breaches
                        if breaches is not None
                        else breached_metrics(
                            run_metrics(
                                ((s.dimension, s.score, s.threshold, s.source) for s in scores),
                                signals,
                            )
                        )
                    )
                    row.breached = bool(found)
                    row.breaches = encode_breaches(found) if found else None
                elif outcome is AttemptOutcome.INTERRUPTED:
                    row.evaluation_id = self._previous_evaluation(session, row.id, c.evaluation_id)
                write_lifecycle(row, life, policy, now)
                return True

        return self._guard(go)

    def _previous_evaluation(self, session: Session, run: str, this: int) -> int | None:
        """The evaluation the run showed before an interrupted attempt (its scores stay current)."""
        value = session.scalar(
            select(func.max(Evaluation.id)).where(
                Evaluation.run_id == run,
                Evaluation.id != this,
                Evaluation.outcome.in_((AttemptOutcome.EVALUATED.value, AttemptOutcome.PARTIAL.value)),
            )
        )
        return int(value) if value is not None else None

    def evaluate_now(self, run: str, now: float) -> RunView:
        """Bring ``run`` forward: ready for evaluation at once. Raises :class:`RunNotFound`."""

        def go() -> RunView:
            with Session(self._writes) as session, session.begin():
                row = session.get(Run, run, with_for_update=self.dialect == "postgresql")
                if row is None:
                    raise RunNotFound(run)
                policy = policy_of(row)
                write_lifecycle(row, evaluate_now(lifecycle_of(row), now), policy, now)
                return run_view(row, current_scores(session, [row]).get(row.id, ()))

        return self._guard(go)
