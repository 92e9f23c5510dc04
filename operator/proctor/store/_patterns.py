"""Behaviour patterns (arm C): recurring ways an agent falls short, grouped from its failing scores.

Tables (migration ``0007``):

- ``patterns``: one row per pattern of a monitor: the dimension, the run category, the reason
  (the first failure's words) and the sum of its reasons' vectors (``centroid``: its direction is
  their mean's, all cosine similarity reads; null when the
  reasons could not be embedded: then the pattern groups by dimension and category alone), its
  state (open / resolved, who resolved it and when), recurrence since it was (re)opened, and when
  it was first and last seen.
- ``pattern_occurrences``: which failing score (an evaluation's dimension) joined which pattern,
  with its run id and time: the evidence behind a pattern, one row per score (a score joins once).
- ``pattern_cursors``: per monitor, the evaluation id up to which failing scores were grouped.

Grouping reads the scores the worker stored (never changes them): :meth:`Patterns.pending` hands
out failing scores past the cursor, only of evaluations below the oldest one still running (so a
slow evaluation's scores are never skipped); the caller embeds their reasons, and
:meth:`Patterns.record` assigns each to a pattern with :mod:`proctor.protocol`'s pure
:func:`~proctor.protocol.nearest` / :func:`~proctor.protocol.occur`, in one transaction that also
moves the cursor. A score already recorded (another replica's refresh) is skipped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Double, Engine, ForeignKey, Index, Integer, String, Text, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import (
    EVIDENCE_RUNS,
    PatternFacts,
    PatternState,
    accumulate,
    category_of,
    nearest,
    occur,
)
from proctor.store import _engine
from proctor.store._room import StoreError, StoreUnavailable
from proctor.store._schema import Base, Evaluation, Score

#: Characters of a failure's reason kept as a pattern's words.
REASON_CHARS: Final = 500
#: Failing scores grouped per refresh at most (the rest wait for the next one).
DEFAULT_BATCH: Final = 2000


class PatternNotFound(StoreError, KeyError):
    """No pattern has this id."""


class Pattern(Base):
    """A recurring way a monitor's agent falls short."""

    __tablename__ = "patterns"
    __table_args__ = (Index("ix_patterns_monitor_state", "monitor", "state"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    monitor: Mapped[str] = mapped_column(String(320))
    dimension: Mapped[str] = mapped_column(String(63))
    category: Mapped[str] = mapped_column(String(63))
    reason: Mapped[str] = mapped_column(Text)
    centroid: Mapped[str | None] = mapped_column(Text)
    members: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(16))
    recurrence: Mapped[int] = mapped_column(Integer, default=0)
    occurrences: Mapped[int] = mapped_column(Integer, default=0)
    reopened: Mapped[int] = mapped_column(Integer, default=0)
    first_seen: Mapped[float] = mapped_column(Double)
    last_seen: Mapped[float] = mapped_column(Double)
    opened_at: Mapped[float] = mapped_column(Double)
    resolved_at: Mapped[float | None] = mapped_column(Double)
    resolved_by: Mapped[str | None] = mapped_column(String(255))
    resolution: Mapped[str | None] = mapped_column(Text)


class PatternOccurrence(Base):
    """One failing score in a pattern (the evidence)."""

    __tablename__ = "pattern_occurrences"
    __table_args__ = (Index("ix_pattern_occurrences_pattern_at", "pattern_id", "at"),)

    evaluation_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dimension: Mapped[str] = mapped_column(String(63), primary_key=True)
    pattern_id: Mapped[int] = mapped_column(Integer, ForeignKey("patterns.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(40))
    at: Mapped[float] = mapped_column(Double)


class PatternCursor(Base):
    """How far a monitor's failing scores were grouped."""

    __tablename__ = "pattern_cursors"

    monitor: Mapped[str] = mapped_column(String(320), primary_key=True)
    evaluation_id: Mapped[int] = mapped_column(Integer)


@dataclass(frozen=True, slots=True)
class Failure:
    """A failing score to group: a dimension below its threshold, and the judge's reason."""

    evaluation_id: int
    dimension: str
    run_id: str
    score: float
    threshold: float
    reason: str
    category: str
    at: float


@dataclass(frozen=True, slots=True)
class Pending:
    """Failing scores not grouped yet, and the cursor that grouping them moves to."""

    failures: tuple[Failure, ...]
    upto: int
    more: bool


@dataclass(frozen=True, slots=True)
class PatternView:
    """A pattern as the API shows it (the ranking is :func:`proctor.protocol.rank` of ``facts``)."""

    facts: PatternFacts
    monitor: str
    occurrences: int
    reopened: int
    opened_at: float
    resolved_at: float | None
    resolved_by: str | None
    resolution: str | None
    grouped_by_meaning: bool
    evidence: tuple[str, ...]

    @property
    def id(self) -> int:
        return self.facts.id


def _facts(row: Pattern) -> PatternFacts:
    return PatternFacts(
        id=row.id,
        dimension=row.dimension,
        category=row.category,
        reason=row.reason,
        recurrence=row.recurrence,
        last_seen=row.last_seen,
        first_seen=row.first_seen,
        state=PatternState(row.state),
    )


def _view(row: Pattern, evidence: Sequence[str]) -> PatternView:
    return PatternView(
        facts=_facts(row),
        monitor=row.monitor,
        occurrences=row.occurrences,
        reopened=row.reopened,
        opened_at=row.opened_at,
        resolved_at=row.resolved_at,
        resolved_by=row.resolved_by,
        resolution=row.resolution,
        grouped_by_meaning=row.centroid is not None,
        evidence=tuple(evidence),
    )


class Patterns:
    """The patterns room of the store. Methods are synchronous transactions (call them from a
    thread); each raises :class:`StoreUnavailable` when the database cannot be reached."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        self._writes = engine.execution_options(**{_engine.WRITE_OPTION: True})

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except (OperationalError, DBAPIError) as e:
            if isinstance(e, OperationalError) or e.connection_invalidated:
                raise StoreUnavailable(f"database unavailable: {type(e.orig).__name__}: {e.orig}") from None
            raise

    def pending(self, monitor: str, *, limit: int = DEFAULT_BATCH) -> Pending:
        """Failing scores of ``monitor`` not grouped yet (oldest evaluation first), up to ``limit``."""

        def go() -> Pending:
            with Session(self.engine) as session:
                cursor = session.scalar(
                    select(PatternCursor.evaluation_id).where(PatternCursor.monitor == monitor)
                )
                low = int(cursor or 0)
                # evaluations still running may store their scores later: stop below the oldest
                running = session.scalar(
                    select(func.min(Evaluation.id)).where(Evaluation.finished_at.is_(None))
                )
                top = session.scalar(select(func.max(Evaluation.id)))
                high = int(running) if running is not None else int(top or 0) + 1
                if high <= low + 1:
                    return Pending((), low, False)
                wanted = (
                    select(
                        Score.evaluation_id,
                        Score.dimension,
                        Score.run_id,
                        Score.score,
                        Score.threshold,
                        Score.rationale,
                        Score.created_at,
                        Evaluation.signals,
                    )
                    .join(Evaluation, Evaluation.id == Score.evaluation_id)
                    .where(
                        Score.evaluation_id > low,
                        Score.evaluation_id < high,
                        Score.monitor == monitor,
                        Score.score.is_not(None),
                        Score.score < Score.threshold,
                    )
                    .order_by(Score.evaluation_id, Score.dimension)
                )
                rows = session.execute(wanted.limit(limit + 1)).all()
                more = len(rows) > limit
                rows = rows[:limit]
                if more:
                    # a batch holds whole evaluations: the last one, cut, comes next time; a single
                    # evaluation with more failures than ``limit`` comes whole
                    last = rows[-1][0]
                    if rows[0][0] == last:
                        rows = session.execute(wanted.where(Score.evaluation_id == last)).all()
                    else:
                        rows = [r for r in rows if r[0] != last]
                signals: dict[str, str] = {}
                failures = []
                for ev, dim, run, value, threshold, rationale, at, sig in rows:
                    category = signals.get(sig)
                    if category is None:
                        try:
                            parsed = json.loads(sig or "{}")
                        except ValueError:
                            parsed = {}
                        category = signals[sig] = category_of(parsed if isinstance(parsed, dict) else {})
                    score = float(value) if value is not None else 0.0  # never None: filtered above
                    failures.append(
                        Failure(int(ev), dim, run, score, float(threshold), rationale or "", category, at)
                    )
                upto = failures[-1].evaluation_id if more else high - 1
                return Pending(tuple(failures), max(low, upto), more)

        return self._guard(go)  # type: ignore[no-any-return]

    def record(
        self,
        monitor: str,
        pending: Pending,
        vectors: Sequence[Sequence[float]] | None,
        *,
        similarity: float,
    ) -> int:
        """Group ``pending``'s failures into patterns (``vectors``: their reasons embedded, one per
        failure, None when they could not be: then grouped by dimension and category alone) and
        move the cursor. Returns how many failures joined a pattern."""
        if vectors is not None and len(vectors) != len(pending.failures):
            raise ValueError(f"{len(vectors)} vectors for {len(pending.failures)} failures")

        def go() -> int:
            with Session(self._writes) as session, session.begin():
                cur = session.get(
                    PatternCursor, monitor, with_for_update=self.dialect == "postgresql"
                ) or PatternCursor(monitor=monitor, evaluation_id=0)
                if cur not in session:
                    session.add(cur)
                done: set[tuple[int, str]] = set()
                if pending.failures:  # the batch's evaluations are a range of the primary key
                    ids = [f.evaluation_id for f in pending.failures]
                    done = {
                        (int(e), d)
                        for e, d in session.execute(
                            select(PatternOccurrence.evaluation_id, PatternOccurrence.dimension).where(
                                PatternOccurrence.evaluation_id >= min(ids),
                                PatternOccurrence.evaluation_id <= max(ids),
                            )
                        )
                    }
                stmt = select(Pattern).where(Pattern.monitor == monitor).order_by(Pattern.id)
                if self.dialect == "postgresql":
                    stmt = stmt.with_for_update()
                rows = list(session.scalars(stmt))
                groups: dict[tuple[str, str], list[Pattern]] = defaultdict(list)
                centroids: dict[int, list[float]] = {}
                for row in rows:
                    groups[(row.dimension, row.category)].append(row)
                    if row.centroid is not None:
                        centroids[row.id] = json.loads(row.centroid)
                joined = 0
                touched: set[int] = set()
                seen: dict[tuple[str, str, str], Pattern] = {}
                occurrences = []
                for i, f in enumerate(pending.failures):
                    if (f.evaluation_id, f.dimension) in done:
                        continue
                    vector = None
                    if vectors is not None and f.reason.strip():
                        vector = list(map(float, vectors[i]))
                    same = (f.dimension, f.category, f.reason)
                    found = seen.get(same) if vector is not None else None
                    if found is None:  # the same words again in this batch: the same pattern
                        found = self._match(groups[(f.dimension, f.category)], centroids, vector, similarity)
                    if found is not None:
                        row = found
                    else:
                        row = Pattern(
                            monitor=monitor,
                            dimension=f.dimension,
                            category=f.category,
                            reason=(f.reason.strip() or "(the judge gave no reason)")[:REASON_CHARS],
                            centroid=None,
                            members=0,
                            state=PatternState.OPEN.value,
                            recurrence=0,
                            occurrences=0,
                            reopened=0,
                            first_seen=f.at,
                            last_seen=f.at,
                            opened_at=f.at,
                        )
                        session.add(row)
                        session.flush()
                        groups[(f.dimension, f.category)].append(row)
                    if vector is not None:
                        seen[same] = row
                        old = centroids.get(row.id)
                        centroids[row.id] = vector if old is None else accumulate(old, vector)
                        touched.add(row.id)
                        row.members += 1
                    step = occur(PatternState(row.state), row.recurrence, row.resolved_at, f.at)
                    if step.reopened:
                        row.reopened += 1
                        row.opened_at = f.at
                    row.state = step.state.value
                    row.recurrence = step.recurrence
                    row.occurrences += 1
                    row.first_seen = min(row.first_seen, f.at)
                    row.last_seen = max(row.last_seen, f.at)
                    occurrences.append(
                        {
                            "evaluation_id": f.evaluation_id,
                            "dimension": f.dimension,
                            "pattern_id": row.id,
                            "run_id": f.run_id,
                            "at": f.at,
                        }
                    )
                    done.add((f.evaluation_id, f.dimension))
                    joined += 1
                for group in groups.values():
                    for row in group:
                        if row.id in touched:
                            row.centroid = json.dumps([round(x, 6) for x in centroids[row.id]])
                if occurrences:
                    session.execute(
                        self._insert(PatternOccurrence).on_conflict_do_nothing(),
                        occurrences,
                    )
                cur.evaluation_id = max(cur.evaluation_id or 0, pending.upto)
                return joined

        return self._guard(go)  # type: ignore[no-any-return]

    @staticmethod
    def _match(
        candidates: Sequence[Pattern],
        centroids: dict[int, list[float]],
        vector: list[float] | None,
        similarity: float,
    ) -> Pattern | None:
        if vector is None:  # not grouped by meaning: the dimension and category's ungrouped pattern
            return next((p for p in candidates if p.centroid is None and p.id not in centroids), None)
        embedded = [p for p in candidates if p.id in centroids]
        index = nearest(vector, [centroids[p.id] for p in embedded], similarity)
        return embedded[index] if index is not None else None

    def find(self, monitor: str, *, states: Sequence[PatternState] | None = None) -> list[PatternView]:
        """``monitor``'s patterns (``states``: only those; None: all), each with the latest run ids
        behind it (:data:`~proctor.protocol.EVIDENCE_RUNS` at most)."""

        def go() -> list[PatternView]:
            with Session(self.engine) as session:
                stmt = select(Pattern).where(Pattern.monitor == monitor).order_by(Pattern.id)
                if states is not None:
                    stmt = stmt.where(Pattern.state.in_([s.value for s in states]))
                rows = list(session.scalars(stmt))
                evidence = self._evidence(session, [r.id for r in rows])
                return [_view(r, evidence.get(r.id, ())) for r in rows]

        return self._guard(go)  # type: ignore[no-any-return]

    @staticmethod
    def _evidence(session: Session, ids: Sequence[int]) -> dict[int, list[str]]:
        """The latest run ids behind each pattern: one short index read per pattern (a window over
        every occurrence would sort them all)."""
        out: dict[int, list[str]] = defaultdict(list)
        for pid in ids:
            runs = out[pid]
            for (run,) in session.execute(
                select(PatternOccurrence.run_id)
                .where(PatternOccurrence.pattern_id == pid)
                .order_by(PatternOccurrence.at.desc(), PatternOccurrence.evaluation_id.desc())
                .limit(EVIDENCE_RUNS * 2)
            ):
                if run not in runs and len(runs) < EVIDENCE_RUNS:
                    runs.append(run)
        return out

    def get(self, pattern: int) -> PatternView:
        """One pattern. Raises :class:`PatternNotFound`."""

        def go() -> PatternView:
            with Session(self.engine) as session:
                row = session.get(Pattern, pattern)
                if row is None:
                    raise PatternNotFound(pattern)
                return _view(row, self._evidence(session, [row.id]).get(row.id, ()))

        return self._guard(go)  # type: ignore[no-any-return]

    def resolve(self, pattern: int, *, by: str, note: str | None, now: float) -> PatternView:
        """Mark ``pattern`` resolved (a fix shipped) by ``by`` at ``now``; a failure of its kind
        after ``now`` reopens it. Resolving a resolved pattern changes nothing. Raises
        :class:`PatternNotFound`."""

        def go() -> PatternView:
            with Session(self._writes) as session, session.begin():
                row = session.get(Pattern, pattern, with_for_update=self.dialect == "postgresql")
                if row is None:
                    raise PatternNotFound(pattern)
                if row.state != PatternState.RESOLVED.value:
                    row.state = PatternState.RESOLVED.value
                    row.resolved_at = now
                    row.resolved_by = by[:255]
                    row.resolution = (note or None) and note[:REASON_CHARS]
                return _view(row, self._evidence(session, [row.id]).get(row.id, ()))

        return self._guard(go)  # type: ignore[no-any-return]
