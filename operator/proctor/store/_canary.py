"""The canary's room: a revision's evidence for its live verdict, and the breached runs that become
candidate cases (reads only; the runs and scores are the lifecycle's).

A verdict is asked every few seconds by a rollout controller, so it must stay cheap however many
scores are stored: runs are counted on an index of ``(monitor, revision, state, breached)``
(index-only), and scores are read only for the revision's breached runs (through the scores'
primary key). Nothing is written here.

Revisions are matched as stored (``service.version``, plus ``@<pod-template-hash>`` when known):
``R`` selects runs of revision ``R`` and of ``R@<any hash>``; ``@H`` selects every version whose
pods have template hash ``H`` (this one scans the monitor's index entries: slower).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import ColumnElement, Engine, Index, and_, case, func, or_, select
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from proctor.protocol import EVALUATED_STATES, RevisionEvidence, RunState, is_safety_tier
from proctor.store._room import StoreUnavailable
from proctor.store._schema import Run, Score

#: The index verdicts are counted on (migration 0005); declared on the same metadata as the tables.
#: On SQLite a revision is asked as one range of it (never an OR of ranges), so that its planner,
#: which has no statistics, picks it over ``(monitor, state)`` (every run of the monitor); SQLite
#: compares bytes, so the range is exact. PostgreSQL compares text in the database's collation,
#: where ``<`` may skip punctuation (en_US: "1.3.0@abc" sorts after "1.3.0A"), so a range could
#: leave runs out: there the revision column is indexed with ``text_pattern_ops`` and asked as
#: ``= R OR LIKE 'R@%'``, both of which that operator class serves, in any collation.
REVISION_INDEX: Final = Index(
    "ix_runs_monitor_revision",
    Run.monitor,
    Run.revision,
    Run.state,
    Run.breached,
    postgresql_ops={"revision": "text_pattern_ops"},
)
_JUDGED: Final = tuple(s.value for s in EVALUATED_STATES)
_FAILED: Final = RunState.EVALUATION_FAILED.value
_NOT_JUDGED: Final = frozenset({RunState.NOT_SAMPLED.value})


@dataclass(frozen=True, slots=True)
class RevisionCounts:
    """What is stored for one revision: the evidence for its verdict, and per dimension how many
    judged runs breached it."""

    evidence: RevisionEvidence
    dimensions: dict[str, int]
    not_sampled: int = 0


@dataclass(frozen=True, slots=True)
class BreachedScore:
    dimension: str
    score: float
    threshold: float
    source: str
    rationale: str


@dataclass(frozen=True, slots=True)
class BreachedRun:
    """A judged run with at least one measured score under its threshold."""

    id: str
    monitor: str
    agent: str
    revision: str | None
    last_event_at: float
    scores: tuple[BreachedScore, ...]


def revision_filter(revision: str, dialect: str = "sqlite") -> ColumnElement[bool]:
    """The runs of ``revision`` (see the module docstring) on ``dialect``'s index."""
    if revision.startswith("@"):
        return or_(Run.revision == revision, Run.revision.endswith(revision, autoescape=True))
    if "@" in revision:
        return Run.revision == revision
    hashed = Run.revision.startswith(revision + "@", autoescape=True)
    if dialect != "sqlite":
        return or_(Run.revision == revision, hashed)
    # R or R@anything: within the byte range [R, R + "A") ("@" sorts just before "A"), then exact
    return and_(
        Run.revision >= revision, Run.revision < revision + "A", or_(Run.revision == revision, hashed)
    )


class LiveCanary:
    """Reads a revision's evidence and the breached runs (thread-safe; call from worker threads)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except (OperationalError, DBAPIError) as e:
            if isinstance(e, OperationalError) or e.connection_invalidated:
                raise StoreUnavailable(f"database unavailable: {type(e.orig).__name__}: {e.orig}") from None
            raise

    def revision(self, monitor: str, revision: str) -> RevisionCounts:
        """The evidence for ``revision``'s verdict under ``monitor`` (``hold`` left to the caller)."""

        def go() -> RevisionCounts:
            mine = and_(Run.monitor == monitor, revision_filter(revision, self.dialect))
            with self.engine.connect() as conn:  # a snapshot; no ORM objects on this hot path
                judged = breached = failed = pending = not_sampled = 0
                for state, n, b in conn.execute(
                    select(
                        Run.state,
                        func.count(),
                        func.coalesce(func.sum(case((Run.breached.is_(True), 1), else_=0)), 0),
                    )
                    .where(mine)
                    .group_by(Run.state)
                ):
                    if state in _JUDGED:
                        judged += int(n)
                        breached += int(b)
                    elif state == _FAILED:
                        failed += int(n)
                    elif state in _NOT_JUDGED:
                        not_sampled += int(n)
                    else:
                        pending += int(n)
                dimensions: dict[str, int] = {}
                safety = 0
                if breached:
                    under = and_(
                        mine,
                        Run.state.in_(_JUDGED),
                        Run.breached.is_(True),
                        Score.evaluation_id == Run.evaluation_id,
                        Score.score.is_not(None),
                        Score.score < Score.threshold,
                    )
                    # the breached scores of the breached runs: few for a revision that may pass
                    safety_runs: set[str] = set()
                    for run, dim, source in conn.execute(
                        select(Run.id, Score.dimension, Score.source).where(under)
                    ):
                        dimensions[dim] = dimensions.get(dim, 0) + 1
                        if is_safety_tier(dim, source):
                            safety_runs.add(run)
                    safety = len(safety_runs)
                last_error = None
                if failed:
                    last_error = conn.scalar(
                        select(Run.last_error)
                        .where(mine, Run.state == _FAILED)
                        .order_by(Run.updated_at.desc())
                        .limit(1)
                    )
                return RevisionCounts(
                    RevisionEvidence(
                        judged=judged,
                        breached=breached,
                        safety_breached=safety,
                        failed=failed,
                        pending=pending,
                        last_error=last_error,
                    ),
                    dict(sorted(dimensions.items())),
                    not_sampled=not_sampled,
                )

        return self._guard(go)  # type: ignore[no-any-return]

    def breached_runs(
        self, monitor: str, *, revision: str | None = None, limit: int = 100
    ) -> list[BreachedRun]:
        """Judged runs of ``monitor`` (of ``revision``, when given) with a breached score, newest
        first (at most ``limit``), with those scores."""

        def go() -> list[BreachedRun]:
            with Session(self.engine) as session:
                stmt = (
                    select(Run)
                    .where(Run.monitor == monitor, Run.state.in_(_JUDGED), Run.breached.is_(True))
                    .order_by(Run.last_event_at.desc(), Run.id.desc())
                    .limit(limit)
                )
                if revision is not None:
                    stmt = stmt.where(revision_filter(revision, self.dialect))
                rows = list(session.scalars(stmt))
                by_eval = {r.evaluation_id: r for r in rows if r.evaluation_id is not None}
                scores: dict[str, list[BreachedScore]] = {r.id: [] for r in rows}
                if by_eval:
                    for s in session.scalars(
                        select(Score)
                        .where(
                            Score.evaluation_id.in_(list(by_eval)),
                            Score.score.is_not(None),
                            Score.score < Score.threshold,
                        )
                        .order_by(Score.evaluation_id, Score.dimension)
                    ):
                        assert s.score is not None
                        scores[s.run_id].append(
                            BreachedScore(s.dimension, float(s.score), s.threshold, s.source, s.rationale)
                        )
                return [
                    BreachedRun(r.id, r.monitor, r.agent, r.revision, r.last_event_at, tuple(scores[r.id]))
                    for r in rows
                    if scores[r.id]
                ]

        return self._guard(go)  # type: ignore[no-any-return]
