"""The detector-state room: each live score series' detector state, stepped once per evaluation.

A series is one metric (a judged dimension or a trajectory signal) of one monitor, for one agent
revision, and for one session when the monitor's detectors run ``by: session``. Its row holds what
:func:`proctor.protocol.detect` carries from score to score (the count, both EWMAs, the recent
window for the percentile corroborator) plus the latest score and the signatures it fired, so a
step is O(1) in the number of stored scores and the state survives a restart.

A step reads the evaluation's own stored scores and signals (the same rows the API serves), so
:meth:`DetectorState.recompute` replays exactly what the live steps saw. Each evaluation is
stepped at most once: its row in ``detector_steps`` is written in the same transaction as the
series it moved, and a second collector (or a retry after a crash) finds it and gets the same
detections back instead of stepping the series again. On PostgreSQL the series rows are locked
(``FOR UPDATE``, in key order) for the step; SQLite's write transactions are serial.

Scores here are on the protocol's scale, 0.0-1.0 (stored scores are 0-100 and divided on the way
in); :class:`SeriesView` gives them back on 0-100, as status and metrics show them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from sqlalchemy import Double, Index, Integer, String, Text, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import Detection, DetectorConfig, DetectorKind, SeriesState, detect
from proctor.store._room import Room, dumps
from proctor.store._schema import Base, Evaluation, Run, Score

#: The trajectory signals that are series of their own, as 0-100 scores (higher is better), from an
#: evaluation's stored signals: the share of tool calls that succeeded, and whether the run was free
#: of a suspected loop. A run without tool calls has no tool score (pending, never a breach).
TRAJECTORY_METRICS: Final = ("trajectory_tool_success", "trajectory_loop_free")
#: The breach threshold (0-100) of a trajectory signal, and of a dimension whose score carries none.
DEFAULT_THRESHOLD: Final = 50.0


class DetectorSeries(Base):
    """One series' detector state (protocol scale, 0.0-1.0)."""

    __tablename__ = "detector_series"
    __table_args__ = (Index("ix_detector_series_monitor", "monitor"),)

    monitor: Mapped[str] = mapped_column(String(320), primary_key=True)
    metric: Mapped[str] = mapped_column(String(63), primary_key=True)
    revision: Mapped[str] = mapped_column(String(255), primary_key=True)  # "" when the agent has none
    session: Mapped[str] = mapped_column(String(255), primary_key=True)  # "" unless by: session
    samples: Mapped[int] = mapped_column(Integer, default=0)
    fast: Mapped[float | None] = mapped_column(Double)
    slow: Mapped[float | None] = mapped_column(Double)
    latest: Mapped[float | None] = mapped_column(Double)
    threshold: Mapped[float | None] = mapped_column(Double)
    recent: Mapped[str] = mapped_column(Text, default="[]")
    signatures: Mapped[str] = mapped_column(Text, default="[]")
    evaluation_id: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Double)


class DetectorStep(Base):
    """One evaluation's step over its series, and what it fired: the step is taken once."""

    __tablename__ = "detector_steps"
    __table_args__ = (Index("ix_detector_steps_monitor", "monitor"),)

    evaluation_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    monitor: Mapped[str] = mapped_column(String(320))
    run_id: Mapped[str] = mapped_column(String(40))
    revision: Mapped[str] = mapped_column(String(255))
    session: Mapped[str] = mapped_column(String(255))
    detections: Mapped[str] = mapped_column(Text, default="[]")
    stepped_at: Mapped[float] = mapped_column(Double)


@dataclass(frozen=True, slots=True)
class SeriesView:
    """One series as status and metrics show it: scores on 0-100."""

    monitor: str
    metric: str
    revision: str
    session: str
    samples: int
    latest: float | None
    fast_ewma: float | None
    slow_ewma: float | None
    threshold: float | None
    signatures: tuple[str, ...]
    updated_at: float


def trajectory_scores(signals: Mapping[str, Any]) -> dict[str, float | None]:
    """The trajectory signals of an evaluation (``Signals.as_dict()``) as 0-100 scores."""
    rate = signals.get("toolErrorRate")
    loop = signals.get("loopSuspected")
    return {
        "trajectory_tool_success": None if rate is None else 100.0 * (1.0 - float(rate)),
        "trajectory_loop_free": None if loop is None else (0.0 if loop else 100.0),
    }


def _detection_json(d: Detection) -> dict[str, Any]:
    return {"kind": d.kind.value, "metric": d.metric, "score": d.score, "reference": d.reference}


def _detection(doc: Mapping[str, Any]) -> Detection:
    kind, metric = DetectorKind(doc["kind"]), str(doc["metric"])
    return Detection(kind, metric, float(doc["score"]), float(doc["reference"]))


def _scaled(value: float | None) -> float | None:
    return None if value is None else round(value * 100.0, 6)


def _view(row: DetectorSeries) -> SeriesView:
    return SeriesView(
        monitor=row.monitor,
        metric=row.metric,
        revision=row.revision,
        session=row.session,
        samples=row.samples,
        latest=_scaled(row.latest),
        fast_ewma=_scaled(row.fast),
        slow_ewma=_scaled(row.slow),
        threshold=_scaled(row.threshold),
        signatures=tuple(json.loads(row.signatures)),
        updated_at=row.updated_at,
    )


class DetectorState(Room):
    """The detector state of every series (see the module's docstring)."""

    def step(
        self,
        evaluation_id: int,
        config: DetectorConfig,
        now: float,
        *,
        session: str | None = None,
    ) -> tuple[Detection, ...]:
        """Feed evaluation ``evaluation_id``'s stored scores and signals to their series; return what
        fired. Idempotent: an evaluation already stepped returns its recorded detections and moves
        nothing. ``config.thresholds`` (protocol scale) override the thresholds stored with the
        scores; ``session`` names the session series (None: the revision's series)."""

        def go() -> tuple[Detection, ...]:
            with Session(self._writes) as s, s.begin():
                return self._step(s, evaluation_id, config, now, session or "")

        return self._guard(go)

    def _step(
        self, s: Session, evaluation_id: int, config: DetectorConfig, now: float, session: str
    ) -> tuple[Detection, ...]:
        found = s.execute(
            select(Evaluation.monitor, Evaluation.run_id, Evaluation.signals, Run.revision)
            .join(Run, Run.id == Evaluation.run_id)
            .where(Evaluation.id == evaluation_id)
        ).one_or_none()
        if found is None:
            return ()
        monitor, run, signals, revision = found
        revision = revision or ""
        claimed = s.scalar(  # the id back: the row is new, this step is ours
            self._insert(DetectorStep)
            .values(
                evaluation_id=evaluation_id,
                monitor=monitor,
                run_id=run,
                revision=revision,
                session=session,
                detections="[]",
                stepped_at=now,
            )
            .on_conflict_do_nothing()
            .returning(DetectorStep.evaluation_id)
        )
        if claimed is None:  # stepped already (another collector, or before a restart)
            done = s.get(DetectorStep, evaluation_id)
            return tuple(_detection(d) for d in json.loads(done.detections)) if done else ()
        inputs = self._inputs(s, evaluation_id, signals)
        detections = self._apply(s, monitor, revision, session, inputs, config, now, evaluation_id)
        s.execute(
            DetectorStep.__table__.update()  # type: ignore[attr-defined]
            .where(DetectorStep.evaluation_id == evaluation_id)
            .values(detections=dumps([_detection_json(d) for d in detections]))
        )
        return detections

    @staticmethod
    def _inputs(s: Session, evaluation_id: int, signals: str) -> dict[str, tuple[float | None, float]]:
        """metric -> (score, threshold), both 0-100: the evaluation's dimensions, then its signals."""
        out: dict[str, tuple[float | None, float]] = {
            dim: (score, threshold)
            for dim, score, threshold in s.execute(
                select(Score.dimension, Score.score, Score.threshold)
                .where(Score.evaluation_id == evaluation_id)
                .order_by(Score.dimension)
            )
        }
        if out:  # signals ride along with a judged run only
            for metric, value in trajectory_scores(json.loads(signals or "{}")).items():
                out.setdefault(metric, (value, DEFAULT_THRESHOLD))
        return out

    def _apply(
        self,
        s: Session,
        monitor: str,
        revision: str,
        session: str,
        inputs: Mapping[str, tuple[float | None, float]],
        config: DetectorConfig,
        now: float,
        evaluation_id: int,
    ) -> tuple[Detection, ...]:
        measured = {m: v for m, v in sorted(inputs.items()) if v[0] is not None}
        if not measured:
            return ()
        metrics = list(measured)
        s.execute(
            self._insert(DetectorSeries)
            .values(
                [
                    {
                        "monitor": monitor,
                        "metric": m,
                        "revision": revision,
                        "session": session,
                        "samples": 0,
                        "recent": "[]",
                        "signatures": "[]",
                        "updated_at": now,
                    }
                    for m in metrics
                ]
            )
            .on_conflict_do_nothing()
        )
        rows = {
            r.metric: r
            for r in s.scalars(
                self._locked(
                    select(DetectorSeries)
                    .where(
                        DetectorSeries.monitor == monitor,
                        DetectorSeries.revision == revision,
                        DetectorSeries.session == session,
                        DetectorSeries.metric.in_(metrics),
                    )
                    .order_by(DetectorSeries.metric),
                    skip=False,
                )
            )
        }
        thresholds = {m: t / 100.0 for m, (_, t) in measured.items()}
        thresholds.update(config.thresholds)
        config = replace(config, thresholds=thresholds)
        fired: list[Detection] = []
        for metric, (score, _) in measured.items():
            row = rows[metric]
            assert score is not None
            state = SeriesState(
                samples=row.samples, fast=row.fast, slow=row.slow, recent=tuple(json.loads(row.recent))
            )
            state, found = detect(state, metric, score / 100.0, config)
            row.samples, row.fast, row.slow = state.samples, state.fast, state.slow
            row.recent = dumps(list(state.recent))
            row.latest = score / 100.0
            row.threshold = config.threshold_for(metric)
            row.signatures = dumps([d.signature for d in found])
            row.evaluation_id = evaluation_id
            row.updated_at = now
            fired.extend(found)
        return tuple(fired)

    def series(self, monitor: str, *, revision: str | None = None) -> list[SeriesView]:
        """Every series of ``monitor`` (of one revision, when given), by metric, revision, session."""

        def go() -> list[SeriesView]:
            with Session(self.engine) as s:
                stmt = select(DetectorSeries).where(DetectorSeries.monitor == monitor)
                if revision is not None:
                    stmt = stmt.where(DetectorSeries.revision == revision)
                order = (DetectorSeries.metric, DetectorSeries.revision, DetectorSeries.session)
                return [_view(r) for r in s.scalars(stmt.order_by(*order))]

        return self._guard(go)

    def detections(self, evaluation_id: int) -> tuple[Detection, ...] | None:
        """What the step of ``evaluation_id`` fired (None: not stepped yet)."""

        def go() -> tuple[Detection, ...] | None:
            with Session(self.engine) as s:
                done = s.get(DetectorStep, evaluation_id)
                return None if done is None else tuple(_detection(d) for d in json.loads(done.detections))

        return self._guard(go)

    def recompute(self, monitor: str, config: DetectorConfig, now: float) -> int:
        """Forget ``monitor``'s detector state and replay every stored evaluation with scores, oldest
        first (by finish time), as the live steps took them; the session of each comes from its
        earlier step (none when it was never stepped). Returns the evaluations replayed. For a
        detector setting that changed, or state lost: the result equals stepping the scores live."""

        def go() -> int:
            with Session(self._writes) as s, s.begin():
                sessions = dict(
                    s.execute(
                        select(DetectorStep.evaluation_id, DetectorStep.session).where(
                            DetectorStep.monitor == monitor
                        )
                    ).all()
                )
                s.execute(delete(DetectorSeries).where(DetectorSeries.monitor == monitor))
                s.execute(delete(DetectorStep).where(DetectorStep.monitor == monitor))
                scored = select(Score.evaluation_id).where(Score.monitor == monitor).distinct()
                ids: Sequence[int] = list(
                    s.scalars(
                        select(Evaluation.id)
                        .where(Evaluation.monitor == monitor, Evaluation.id.in_(scored))
                        .order_by(Evaluation.finished_at, Evaluation.id)
                    )
                )
                for evaluation_id in ids:
                    self._step(s, evaluation_id, config, now, str(sessions.get(evaluation_id, "")))
                return len(ids)

        return self._guard(go)
