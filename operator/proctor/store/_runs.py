"""The runs-and-scores room: what the API, the CLI and status read (runs, their trajectories,
scores, evaluation attempts, a monitor's summary). Reads only: a snapshot each, never a lock."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from proctor.protocol import (
    EVALUATED_STATES,
    ewma,
)
from proctor.store._records import (
    EWMA_WINDOW,
    DimensionSeries,
    EvaluationView,
    MonitorSummary,
    RunView,
    Trajectory,
    current_scores,
    event_record,
    run_view,
    span_record,
)
from proctor.store._room import Room, RunNotFound
from proctor.store._schema import Evaluation, Event, Run, Score, Span


class Runs(Room):
    """Queries over runs and their scores (see the module's docstring)."""

    def trajectory(self, run: str) -> Trajectory:
        """Every span and event stored for ``run``, in time order."""

        def go() -> Trajectory:
            with Session(self.engine) as session:
                spans = session.scalars(
                    select(Span).where(Span.run_id == run).order_by(Span.start_ns, Span.span_id)
                )
                events = session.scalars(
                    select(Event).where(Event.run_id == run).order_by(Event.timestamp, Event.id)
                )
                return Trajectory(tuple(map(span_record, spans)), tuple(map(event_record, events)))

        return self._guard(go)

    def list_runs(
        self,
        *,
        monitors: Sequence[str] | None = None,
        state: str | None = None,
        limit: int = 100,
        before: str | None = None,
    ) -> list[RunView]:
        """Runs, newest first (by first event, then id), with their current scores. ``monitors``
        limits them (None: all); ``before`` is the id of the last run of the previous page."""

        def go() -> list[RunView]:
            with Session(self.engine) as session:
                stmt = select(Run).order_by(Run.first_event_at.desc(), Run.id.desc()).limit(limit)
                if monitors is not None:
                    stmt = stmt.where(Run.monitor.in_(list(monitors)))
                if state is not None:
                    stmt = stmt.where(Run.state == state)
                if before is not None:
                    anchor = session.get(Run, before)
                    if anchor is not None:
                        stmt = stmt.where(
                            or_(
                                Run.first_event_at < anchor.first_event_at,
                                and_(Run.first_event_at == anchor.first_event_at, Run.id < anchor.id),
                            )
                        )
                rows = list(session.scalars(stmt))
                scores = current_scores(session, rows)
                return [run_view(r, scores.get(r.id, ())) for r in rows]

        return self._guard(go)

    def get_run(self, run: str) -> RunView:
        """One run with its current scores. Raises :class:`RunNotFound`."""

        def go() -> RunView:
            with Session(self.engine) as session:
                row = session.get(Run, run)
                if row is None:
                    raise RunNotFound(run)
                return run_view(row, current_scores(session, [row]).get(row.id, ()))

        return self._guard(go)

    def evaluations(self, run: str) -> list[EvaluationView]:
        """Every evaluation attempt of ``run``, oldest first."""

        def go() -> list[EvaluationView]:
            with Session(self.engine) as session:
                return [
                    EvaluationView(
                        id=e.id,
                        attempt=e.attempt,
                        worker=e.worker,
                        started_at=e.started_at,
                        finished_at=e.finished_at,
                        outcome=e.outcome,
                        error=e.error,
                        provenance=json.loads(e.provenance),
                        signals=json.loads(e.signals),
                        judge_calls=e.judge_calls,
                        judgments=e.judgments,
                    )
                    for e in session.scalars(
                        select(Evaluation).where(Evaluation.run_id == run).order_by(Evaluation.id)
                    )
                ]

        return self._guard(go)

    def summary(
        self,
        monitor: str,
        *,
        fast_span: int = 3,
        slow_span: int = 10,
        thresholds: Mapping[str, float] | None = None,
    ) -> MonitorSummary:
        """A monitor's summary for its status: runs by state, per-dimension latest score and both
        EWMAs (recomputed from the last :data:`EWMA_WINDOW` scores, oldest first), judge cost."""

        def go() -> MonitorSummary:
            with Session(self.engine) as session:
                counts = {
                    state: int(n)
                    for state, n in session.execute(
                        select(Run.state, func.count()).where(Run.monitor == monitor).group_by(Run.state)
                    )
                }
                breached = int(
                    session.scalar(
                        select(func.count()).where(
                            Run.monitor == monitor,
                            Run.breached.is_(True),
                            Run.state.in_([s.value for s in EVALUATED_STATES]),
                        )
                    )
                    or 0
                )
                dims: list[DimensionSeries] = []
                names = sorted(
                    session.scalars(select(Score.dimension).where(Score.monitor == monitor).distinct())
                )
                for name in names:
                    recent = list(
                        session.execute(
                            select(Score.score, Score.threshold)
                            .where(Score.monitor == monitor, Score.dimension == name)
                            .order_by(Score.created_at.desc(), Score.evaluation_id.desc())
                            .limit(EWMA_WINDOW)
                        )
                    )
                    measured = [float(s) for s, _ in reversed(recent) if s is not None]
                    fast = slow = None
                    for value in measured:
                        fast, slow = ewma(fast, value, fast_span), ewma(slow, value, slow_span)
                    total = session.scalar(
                        select(func.count()).where(
                            Score.monitor == monitor, Score.dimension == name, Score.score.is_not(None)
                        )
                    )
                    skipped = session.scalar(
                        select(func.count()).where(
                            Score.monitor == monitor, Score.dimension == name, Score.score.is_(None)
                        )
                    )
                    threshold = (thresholds or {}).get(name, recent[0][1] if recent else None)
                    dims.append(
                        DimensionSeries(
                            name=name,
                            latest=measured[-1] if measured else None,
                            fast_ewma=fast,
                            slow_ewma=slow,
                            samples=int(total or 0),
                            skipped=int(skipped or 0),
                            threshold=threshold,
                        )
                    )
                calls, judged = session.execute(
                    select(
                        func.coalesce(func.sum(Evaluation.judge_calls), 0),
                        func.coalesce(func.sum(Evaluation.judgments), 0),
                    ).where(Evaluation.monitor == monitor)
                ).one()
                revisions = tuple(
                    str(r)
                    for r, _ in session.execute(
                        select(Run.revision, func.max(Run.last_event_at).label("t"))
                        .where(Run.monitor == monitor, Run.revision.is_not(None))
                        .group_by(Run.revision)
                        .order_by(func.max(Run.last_event_at).desc())
                        .limit(16)
                    )
                )
                last_event = session.scalar(select(func.max(Run.last_event_at)).where(Run.monitor == monitor))
                last_eval = session.scalar(
                    select(func.max(Evaluation.finished_at)).where(Evaluation.monitor == monitor)
                )
                return MonitorSummary(
                    counts=counts,
                    breached=breached,
                    dimensions=tuple(dims),
                    judge_calls=int(calls),
                    judgments=int(judged),
                    revisions=revisions,
                    last_event_at=float(last_event) if last_event is not None else None,
                    last_evaluation_at=float(last_eval) if last_eval is not None else None,
                )

        return self._guard(go)

    def count(self, table: str) -> int:
        """Rows in ``table`` (spans, events, runs, evaluations, scores): for benchmarks and checks."""
        model = {"spans": Span, "events": Event, "runs": Run, "evaluations": Evaluation, "scores": Score}[
            table
        ]

        def go() -> int:
            with Session(self.engine) as session:
                return int(session.scalar(select(func.count()).select_from(model)) or 0)

        return self._guard(go)
