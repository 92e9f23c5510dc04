"""The outcomes room (arm C): what people did with each output a monitored agent delivered.

Append-only like feedback: a later word on the same run (from a person through the API, or from
the agent's own telemetry, span attribute :data:`OUTCOME_ATTRIBUTE`) supersedes the earlier in
the figures; every word stays in the record. The summary is
:func:`proctor.protocol.summarise` over the latest outcome of each run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Boolean, Double, Engine, Index, Integer, String, func, select, true, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import OutcomeSummary, check_outcome
from proctor.store import _engine
from proctor.store._room import guard
from proctor.store._schema import Base

#: The OpenTelemetry span attribute an agent sets on a run's span when it learns the outcome.
OUTCOME_ATTRIBUTE: Final = "proctor.outcome"
#: The span attribute with the human minutes spent on that output.
OUTCOME_MINUTES_ATTRIBUTE: Final = "proctor.outcome.minutes"
#: Who an outcome read from telemetry is recorded as.
TELEMETRY_SOURCE: Final = "telemetry"


class OutcomeRow(Base):
    """One word on what happened to a run's output (never updated, never deleted)."""

    __tablename__ = "outcomes"
    __table_args__ = (
        Index("ix_outcomes_monitor_current", "monitor", "current"),
        Index("ix_outcomes_run", "run_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(40))
    monitor: Mapped[str] = mapped_column(String(320))
    outcome: Mapped[str] = mapped_column(String(16))
    minutes: Mapped[float | None] = mapped_column(Double)
    #: The authenticated identity, or ``telemetry``.
    source: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[float] = mapped_column(Double)
    #: False once a later word on the same run superseded it (the word itself is kept as given).
    current: Mapped[bool] = mapped_column(Boolean, default=True)


@dataclass(frozen=True, slots=True)
class OutcomeView:
    id: int
    run_id: str
    monitor: str
    outcome: str
    minutes: float | None
    source: str
    created_at: float


class Outcomes:
    """The outcomes room's repository."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writes = engine.execution_options(**{_engine.WRITE_OPTION: True})

    def record(
        self, run_id: str, monitor: str, outcome: str, minutes: float | None, source: str, now: float
    ) -> OutcomeView:
        """Append one outcome of ``run_id``."""
        outcome, minutes = check_outcome(outcome, minutes)

        def go() -> OutcomeView:
            with Session(self._writes) as session, session.begin():
                if session.get_bind().dialect.name == "postgresql":  # one word at a time per run
                    key = json.dumps(["outcome", run_id])
                    session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))
                session.execute(
                    update(OutcomeRow)
                    .where(OutcomeRow.run_id == run_id, OutcomeRow.current == true())
                    .values(current=False)
                )
                row = OutcomeRow(
                    run_id=run_id,
                    monitor=monitor,
                    outcome=outcome,
                    minutes=minutes,
                    source=source,
                    created_at=now,
                    current=True,
                )
                session.add(row)
                session.flush()
                return OutcomeView(row.id, run_id, monitor, outcome, minutes, source, now)

        return guard(go)

    def summary(self, monitor: str) -> OutcomeSummary:
        """The monitor's outcome metrics over the latest outcome of each run (counted in the database)."""

        def go() -> OutcomeSummary:
            stmt = (
                select(
                    OutcomeRow.outcome,
                    func.count(),
                    func.coalesce(func.sum(OutcomeRow.minutes), 0.0),
                    func.count(OutcomeRow.minutes),
                )
                .where(OutcomeRow.monitor == monitor, OutcomeRow.current == true())
                .group_by(OutcomeRow.outcome)
            )
            with self.engine.connect() as conn:
                rows: list[Any] = list(conn.execute(stmt))
            counts = {kind: int(n) for kind, n, _, _ in rows}
            return OutcomeSummary(
                accepted=counts.get("accepted", 0),
                modified=counts.get("modified", 0),
                rejected=counts.get("rejected", 0),
                ignored=counts.get("ignored", 0),
                minutes=math.fsum(float(r[2] or 0.0) for r in rows),
                timed=sum(int(t) for _, _, _, t in rows),
            )

        return guard(go)

    def history(self, run_id: str) -> list[OutcomeView]:
        """Every outcome recorded for ``run_id``, oldest first."""

        def go() -> list[OutcomeView]:
            with Session(self.engine) as session:
                return [
                    OutcomeView(r.id, r.run_id, r.monitor, r.outcome, r.minutes, r.source, r.created_at)
                    for r in session.scalars(
                        select(OutcomeRow).where(OutcomeRow.run_id == run_id).order_by(OutcomeRow.id)
                    )
                ]

        return guard(go)
