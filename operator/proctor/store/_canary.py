"""The canary's room: a revision's evidence for its live verdict, and the breached runs that become
candidate cases (reads only; the runs, scores and rollups are the lifecycle's).

A verdict is asked every few seconds by a rollout controller, so it must stay cheap however many
runs a revision has: the judged, breached and safety-breached runs and the per-metric breaches are
summed from the revision's rows of ``revision_rollups`` (:mod:`proctor.store._rollup`, moved with
every run), and the few runs not judged (pending, failed, not sampled) are counted per state on
the index ``(monitor, state, revision)``, never touching the judged ones. Nothing is written here.

Revisions are matched as stored (``service.version``, plus ``@<pod-template-hash>`` when known):
``R`` selects runs of revision ``R`` and of ``R@<any hash>``; ``@H`` selects every version whose
pods have template hash ``H`` (this one scans the monitor's index entries: slower).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import ColumnElement, Engine, Index, and_, func, or_, select
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from proctor.protocol import EVALUATED_STATES, RUN_STATES, RevisionEvidence, RunState
from proctor.store._rollup import ROLLUPS, TOTALS, decode_breaches
from proctor.store._room import StoreUnavailable
from proctor.store._schema import Run, Score

#: The index a revision's runs are found on (migration 0005); declared on the same metadata as the
#: tables. On SQLite a revision is asked as one range of it (never an OR of ranges), so that its planner,
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
#: The states counted live (few runs at any time): every state but the judged ones.
_LIVE: Final = tuple(s.value for s in RUN_STATES if s.value not in _JUDGED)


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


def revision_filter(
    revision: str, dialect: str = "sqlite", column: Any = Run.revision
) -> ColumnElement[bool]:
    """The rows of ``revision`` (see the module docstring) on ``dialect``'s index of ``column`` (the
    runs' revision, or the rollups')."""
    col = column
    if revision.startswith("@"):
        return or_(col == revision, col.endswith(revision, autoescape=True))
    if "@" in revision:
        return col == revision  # type: ignore[no-any-return]
    hashed = col.startswith(revision + "@", autoescape=True)
    if dialect != "sqlite":
        return or_(col == revision, hashed)
    # R or R@anything: within the byte range [R, R + "A") ("@" sorts just before "A"), then exact
    return and_(col >= revision, col < revision + "A", or_(col == revision, hashed))


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
                judged = breached = safety = 0
                dimensions: dict[str, int] = {}
                for metric, j, b, sb in conn.execute(
                    select(
                        ROLLUPS.c.metric,
                        func.sum(ROLLUPS.c.judged),
                        func.sum(ROLLUPS.c.breached),
                        func.sum(ROLLUPS.c.safety_breached),
                    )
                    .where(
                        ROLLUPS.c.monitor == monitor,
                        revision_filter(revision, self.dialect, ROLLUPS.c.revision),
                    )
                    .group_by(ROLLUPS.c.metric)
                ):
                    if metric == TOTALS:
                        judged, breached, safety = int(j), int(b), int(sb)
                    elif b:
                        dimensions[metric] = int(b)
                failed = pending = not_sampled = 0
                for state, n in conn.execute(
                    select(Run.state, func.count()).where(mine, Run.state.in_(_LIVE)).group_by(Run.state)
                ):
                    if state == _FAILED:
                        failed += int(n)
                    elif state in _NOT_JUDGED:
                        not_sampled += int(n)
                    else:
                        pending += int(n)
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
        """Judged runs of ``monitor`` (of ``revision``, when given) that breached, newest first (at
        most ``limit``), with the metrics they breached as they were decided when judged."""

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
                found = {r.id: decode_breaches(r.breaches) for r in rows}
                ids = [r.evaluation_id for r in rows if r.evaluation_id is not None and found[r.id]]
                rationale: dict[tuple[int, str], str] = {}
                if ids:  # the judge's (or the scan's) reasons; a trajectory signal has none stored
                    for e, dim, text in session.execute(
                        select(Score.evaluation_id, Score.dimension, Score.rationale).where(
                            Score.evaluation_id.in_(ids)
                        )
                    ):
                        rationale[(e, dim)] = text
                return [
                    BreachedRun(
                        r.id,
                        r.monitor,
                        r.agent,
                        r.revision,
                        r.last_event_at,
                        tuple(
                            BreachedScore(
                                m.name,
                                float(m.score or 0.0),
                                m.threshold,
                                m.source,
                                rationale.get((r.evaluation_id or 0, m.name))
                                or f"{m.name} scored {m.score:g}, under its threshold {m.threshold:g}",
                            )
                            for m in found[r.id]
                        ),
                    )
                    for r in rows
                    if found[r.id]
                ]

        return self._guard(go)  # type: ignore[no-any-return]
