"""The feedback room (arm C): people's reviews of judged scores, and the cases they route to the case set.

A review is append-only: a second review of the same score by the same reviewer supersedes the
first in every figure (:meth:`Reviews.latest`), and both stay in the record (:meth:`Reviews.history`).
Each row carries what the figures need (the profile, the judge's score and its threshold at the
time), so judge quality is read from this table alone, never re-joined with runs.

A target is a live run's id, or ``NS/EVALRUN:CASE`` for a case of an exam. Validation of what
a person sent is :func:`check`: the collector answers 4xx with its message and stores nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import (
    Boolean,
    Double,
    Engine,
    Index,
    Integer,
    String,
    Text,
    and_,
    case,
    func,
    literal,
    null,
    select,
    true,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import BAND_WIDTH, ROUTES, InvalidFeedback, Review, ReviewCell, Route, valid_minutes
from proctor.store import _engine
from proctor.store._room import guard
from proctor.store._schema import Base, Run, Score

#: The longest reason kept, characters (a reason is a sentence, not a document).
MAX_REASON: Final = 4000
#: Reviews listed per page at most.
MAX_LIST: Final = 1000


class FeedbackRow(Base):
    """One review of one judged score (never updated, never deleted)."""

    __tablename__ = "feedback"
    __table_args__ = (
        # the figures read the current reviews only: a scan of these, never a grouping of all reviews
        # covering: a profile's judge quality is counted from it alone (Reviews.cells)
        Index(
            "ix_feedback_profile_counted",
            "profile",
            "current",
            "dimension",
            "judge_score",
            "threshold",
            "agree",
            "score",
        ),
        Index("ix_feedback_monitor_current", "monitor", "current"),
        Index("ix_feedback_target", "target", "dimension", "reviewer"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: A run id, or ``NS/EVALRUN:CASE``.
    target: Mapped[str] = mapped_column(String(600))
    kind: Mapped[str] = mapped_column(String(8))  # "run" | "case"
    #: The EvalProfile that judged it, ``NS/NAME``.
    profile: Mapped[str] = mapped_column(String(320))
    #: The AgentMonitor of a live run (None for an exam case).
    monitor: Mapped[str | None] = mapped_column(String(320))
    dimension: Mapped[str] = mapped_column(String(63))
    judge_score: Mapped[float] = mapped_column(Double)
    threshold: Mapped[float] = mapped_column(Double)
    agree: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[float | None] = mapped_column(Double)
    minutes: Mapped[float | None] = mapped_column(Double)
    route: Mapped[str | None] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text, default="")
    #: The authenticated identity that gave it (never a field of the request).
    reviewer: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[float] = mapped_column(Double)
    #: False once a later review by the same reviewer of the same score superseded it (the only
    #: thing ever changed on a row: the review itself is kept as given).
    current: Mapped[bool] = mapped_column(Boolean, default=True)


class FeedbackCaseRow(Base):
    """A candidate case from a ``case-set``-routed correction (the fields of a captured case)."""

    __tablename__ = "feedback_cases"
    __table_args__ = (Index("ix_feedback_cases_profile", "profile"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    feedback_id: Mapped[int] = mapped_column(Integer, unique=True)
    target: Mapped[str] = mapped_column(String(600))
    profile: Mapped[str] = mapped_column(String(320))
    monitor: Mapped[str | None] = mapped_column(String(320))
    dimension: Mapped[str] = mapped_column(String(63))
    tier: Mapped[str] = mapped_column(String(16))
    input: Mapped[str] = mapped_column(Text)
    context: Mapped[str] = mapped_column(Text, default="[]")  # JSON list of texts
    answer: Mapped[str] = mapped_column(Text)
    #: The reviewer's score, if given: what the case should expect.
    expected_score: Mapped[float | None] = mapped_column(Double)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[float] = mapped_column(Double)


@dataclass(frozen=True, slots=True)
class NewFeedback:
    """A review as the collector resolved it: the target exists and its judged score was read."""

    target: str
    kind: str
    profile: str
    monitor: str | None
    dimension: str
    judge_score: float
    threshold: float
    agree: bool
    reviewer: str
    score: float | None = None
    minutes: float | None = None
    route: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class CandidateCase:
    """The fields of a case a reviewer routed to the case set."""

    tier: str
    input: str
    answer: str
    context: str = "[]"


@dataclass(frozen=True, slots=True)
class FeedbackView:
    id: int
    target: str
    kind: str
    profile: str
    monitor: str | None
    dimension: str
    judge_score: float
    threshold: float
    agree: bool
    score: float | None
    minutes: float | None
    route: str | None
    reason: str
    reviewer: str
    created_at: float
    #: False when a later review by the same reviewer of the same score replaced it in the figures.
    current: bool = True

    def as_review(self) -> Review:
        return Review(self.judge_score, self.threshold, agree=self.agree, score=self.score)


def check(
    *, agree: object, score: object = None, minutes: object = None, route: object = None, reason: object = ""
) -> tuple[bool, float | None, float | None, str | None, str]:
    """The reviewer's fields, checked: ``(agree, score, minutes, route, reason)``.

    Raises :class:`InvalidFeedback` naming the field: a score outside 0-100, minutes negative or
    over a day, a route not in :data:`~proctor.protocol.ROUTES`, a reason that is not text."""
    if not isinstance(agree, bool):
        raise InvalidFeedback("agree must be true or false")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise InvalidFeedback("score must be a number from 0 to 100")
        if not 0 <= score <= 100:
            raise InvalidFeedback(f"score {score:g} is outside 0-100")
    if minutes is not None:
        if isinstance(minutes, bool) or not isinstance(minutes, int | float):
            raise InvalidFeedback("minutes must be a number")
        if not valid_minutes(float(minutes)):
            raise InvalidFeedback(f"minutes {minutes:g} is not within 0 and a day (1440)")
    if route is not None and route not in ROUTES:
        raise InvalidFeedback(f"route {route!r} is not one of {', '.join(ROUTES)}")
    if not isinstance(reason, str):
        raise InvalidFeedback("reason must be text")
    if len(reason) > MAX_REASON:
        raise InvalidFeedback(f"reason is over {MAX_REASON} characters")
    return (
        agree,
        float(score) if isinstance(score, int | float) else None,
        float(minutes) if isinstance(minutes, int | float) else None,
        str(route) if route is not None else None,
        reason,
    )


def _view(row: FeedbackRow) -> FeedbackView:
    return FeedbackView(
        id=row.id,
        target=row.target,
        kind=row.kind,
        profile=row.profile,
        monitor=row.monitor,
        dimension=row.dimension,
        judge_score=row.judge_score,
        threshold=row.threshold,
        agree=row.agree,
        score=row.score,
        minutes=row.minutes,
        route=row.route,
        reason=row.reason,
        reviewer=row.reviewer,
        created_at=row.created_at,
        current=row.current,
    )


@dataclass(frozen=True, slots=True)
class Observed:
    """A dimension's judged scores (the current evaluation of each run) and how many were breaches."""

    scored: int
    breaches: int


class Reviews:
    """The feedback room's repository (methods are transactions; call them from threads)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writes = engine.execution_options(**{_engine.WRITE_OPTION: True})

    def record(self, feedback: NewFeedback, now: float, *, case: CandidateCase | None = None) -> FeedbackView:
        """Append one review (and its candidate case when routed to the case set), in one transaction."""
        check(
            agree=feedback.agree,
            score=feedback.score,
            minutes=feedback.minutes,
            route=feedback.route,
            reason=feedback.reason,
        )
        if feedback.kind not in ("run", "case"):
            raise InvalidFeedback(f"unknown target kind {feedback.kind!r}")
        if not feedback.reviewer:
            raise InvalidFeedback("a review needs the reviewer's identity")

        def go() -> FeedbackView:
            with Session(self._writes) as session, session.begin():
                same = and_(
                    FeedbackRow.target == feedback.target,
                    FeedbackRow.dimension == feedback.dimension,
                    FeedbackRow.reviewer == feedback.reviewer,
                )
                if session.get_bind().dialect.name == "postgresql":
                    # two reviews of one score by one person at once: one after the other, so exactly
                    # one stays current (SQLite's write transactions are serial already)
                    key = json.dumps(["feedback", feedback.target, feedback.dimension, feedback.reviewer])
                    session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))
                session.execute(
                    update(FeedbackRow).where(same, FeedbackRow.current == true()).values(current=False)
                )
                row = FeedbackRow(
                    target=feedback.target,
                    kind=feedback.kind,
                    profile=feedback.profile,
                    monitor=feedback.monitor,
                    dimension=feedback.dimension,
                    judge_score=feedback.judge_score,
                    threshold=feedback.threshold,
                    agree=feedback.agree,
                    score=feedback.score,
                    minutes=feedback.minutes,
                    route=feedback.route,
                    reason=feedback.reason,
                    reviewer=feedback.reviewer,
                    created_at=now,
                    current=True,
                )
                session.add(row)
                session.flush()
                if case is not None and feedback.route == Route.CASE_SET:
                    session.add(
                        FeedbackCaseRow(
                            feedback_id=row.id,
                            target=feedback.target,
                            profile=feedback.profile,
                            monitor=feedback.monitor,
                            dimension=feedback.dimension,
                            tier=case.tier,
                            input=case.input,
                            context=case.context,
                            answer=case.answer,
                            expected_score=feedback.score,
                            reason=feedback.reason,
                            created_at=now,
                        )
                    )
                return _view(row)

        return guard(go)

    def latest(
        self, *, profile: str | None = None, monitors: Sequence[str] | None = None
    ) -> dict[str, list[Review]]:
        """Per dimension, the current reviews (one per reviewer and score) of ``profile``'s scores,
        or of the runs of ``monitors``."""

        def go() -> dict[str, list[Review]]:
            stmt = select(
                FeedbackRow.dimension,
                FeedbackRow.judge_score,
                FeedbackRow.threshold,
                FeedbackRow.agree,
                FeedbackRow.score,
            ).where(FeedbackRow.current == true())
            if profile is not None:
                stmt = stmt.where(FeedbackRow.profile == profile)
            if monitors is not None:
                stmt = stmt.where(FeedbackRow.monitor.in_(list(monitors)))
            out: dict[str, list[Review]] = {}
            with self.engine.connect() as conn:
                for dim, judge, threshold, agree, score in conn.execute(stmt):
                    out.setdefault(dim, []).append(Review(judge, threshold, agree=bool(agree), score=score))
            return out

        return guard(go)

    def cells(
        self, *, profile: str | None = None, monitors: Sequence[str] | None = None
    ) -> dict[str, list[ReviewCell]]:
        """Per dimension, the current reviews of ``profile``'s scores (or of ``monitors``' runs)
        counted by score band and both readings in the database (GROUP BY): judge quality without
        reading every review (:func:`~proctor.protocol.quality_of_cells`). The same readings as
        :class:`~proctor.protocol.Review`: a breach is a score under the threshold; the reviewer's
        is their score, else the judge's side on agree and the other side on disagree."""

        def go() -> dict[str, list[ReviewCell]]:
            f = FeedbackRow
            judge_breach = f.judge_score < f.threshold
            human_breach = case(
                (f.score.is_not(None), f.score < f.threshold),
                (f.agree == true(), f.judge_score < f.threshold),
                else_=f.judge_score >= f.threshold,
            )
            # Review.human_score: the reviewer's score, the judge's on a bare agree, none on a bare disagree
            diff = case(
                (f.score.is_not(None), f.judge_score - f.score),
                (f.agree == true(), literal(0.0)),
                else_=null(),
            )
            # band_of: [0, 10), [10, 20), ... [90, 100]; portable (no floor() on every SQLite)
            band = case(
                *((f.judge_score < low + BAND_WIDTH, low) for low in range(0, 90, BAND_WIDTH)), else_=90
            )
            stmt = (
                select(
                    f.dimension,
                    band,
                    judge_breach,
                    human_breach,
                    func.count(),
                    func.coalesce(func.sum(diff), 0.0),
                    func.count(diff),
                )
                .where(f.current == true())
                .group_by(f.dimension, band, judge_breach, human_breach)
            )
            if profile is not None:
                stmt = stmt.where(f.profile == profile)
            if monitors is not None:
                stmt = stmt.where(f.monitor.in_(list(monitors)))
            out: dict[str, list[ReviewCell]] = {}
            with self.engine.connect() as conn:
                for dim, low, j, h, n, total, scored in conn.execute(stmt):
                    out.setdefault(dim, []).append(
                        ReviewCell(int(low), bool(j), bool(h), int(n), float(total), int(scored))
                    )
            return out

        return guard(go)

    def history(
        self,
        *,
        target: str | None = None,
        profile: str | None = None,
        monitors: Iterable[str] | None = None,
        limit: int = 100,
    ) -> list[FeedbackView]:
        """Every review (superseded ones marked ``current=False``), newest first."""
        limit = max(1, min(limit, MAX_LIST))

        def go() -> list[FeedbackView]:
            stmt = select(FeedbackRow).order_by(FeedbackRow.id.desc()).limit(limit)
            if target is not None:
                stmt = stmt.where(FeedbackRow.target == target)
            if profile is not None:
                stmt = stmt.where(FeedbackRow.profile == profile)
            if monitors is not None:
                stmt = stmt.where(FeedbackRow.monitor.in_(list(monitors)))
            with Session(self.engine) as session:
                return [_view(r) for r in session.scalars(stmt)]

        return guard(go)

    def candidate_cases(self, *, profile: str | None = None, limit: int = 100) -> list[dict[str, object]]:
        """The candidate cases reviewers routed to the case set, newest first."""

        def go() -> list[dict[str, object]]:
            stmt = select(FeedbackCaseRow).order_by(FeedbackCaseRow.id.desc()).limit(max(1, limit))
            if profile is not None:
                stmt = stmt.where(FeedbackCaseRow.profile == profile)
            with Session(self.engine) as session:
                return [
                    {
                        "id": c.id,
                        "feedback": c.feedback_id,
                        "target": c.target,
                        "profile": c.profile,
                        "monitor": c.monitor,
                        "dimension": c.dimension,
                        "tier": c.tier,
                        "input": c.input,
                        "context": c.context,
                        "answer": c.answer,
                        "expectedScore": c.expected_score,
                        "reason": c.reason,
                    }
                    for c in session.scalars(stmt)
                ]

        return guard(go)

    def observed(self, monitors: Sequence[str]) -> dict[str, Observed]:
        """Per dimension, the runs of ``monitors`` whose current evaluation scored it, and the
        breaches among them (score below its threshold): the observed breach rate."""
        if not monitors:
            return {}

        def go() -> dict[str, Observed]:
            breach = func.sum(func.cast(Score.score < Score.threshold, Integer))
            # an evaluation belongs to one run: its id alone says whether it is that run's current one
            # (both sides indexed: the count never reads a row)
            stmt = (
                select(Score.dimension, func.count(), breach)
                .join(Run, Run.evaluation_id == Score.evaluation_id)
                .where(Score.monitor.in_(list(monitors)), Score.score.is_not(None))
                .group_by(Score.dimension)
            )
            with self.engine.connect() as conn:
                return {d: Observed(int(n), int(b or 0)) for d, n, b in conn.execute(stmt)}

        return guard(go)

    def labelled(self, monitors: Sequence[str]) -> dict[str, list[tuple[float, bool, float]]]:
        """Per dimension, ``(judge score, reviewer saw a breach, threshold)`` of the current reviews
        of ``monitors``' runs: the evidence shadow-mode calibration replays."""
        out: dict[str, list[tuple[float, bool, float]]] = {}
        for dim, reviews in self.latest(monitors=monitors).items():
            out[dim] = [(r.judge, r.human_breach, r.threshold) for r in reviews]
        return out
