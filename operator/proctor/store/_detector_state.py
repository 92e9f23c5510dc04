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
from typing import Any, Final, cast

from sqlalchemy import (
    BindParameter,
    Connection,
    Double,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    delete,
    select,
    tuple_,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import (
    DEFAULT_DIMENSION_THRESHOLD,
    Detection,
    DetectorConfig,
    DetectorKind,
    SeriesState,
    detect,
    run_metrics,
)
from proctor.store._room import Room, dumps
from proctor.store._schema import Base, Evaluation, Run, Score

#: The breach threshold (0-100) of a trajectory signal, and of a dimension whose score carries none.
DEFAULT_THRESHOLD: Final = DEFAULT_DIMENSION_THRESHOLD


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


_SERIES: Final = cast(Table, DetectorSeries.__table__)
_STEPS: Final = cast(Table, DetectorStep.__table__)
#: Keys (or evaluations) per statement: well inside every database's limit on parameters.
_CHUNK: Final = 500
_IDS: Final[BindParameter[Any]] = bindparam("ids", expanding=True)
_FIND: Final = (
    select(Evaluation.id, Evaluation.monitor, Evaluation.run_id, Evaluation.signals, Run.revision)
    .join(Run, Run.id == Evaluation.run_id)
    .where(Evaluation.id.in_(_IDS))
)
_RECORDED: Final = select(_STEPS.c.evaluation_id, _STEPS.c.detections).where(_STEPS.c.evaluation_id.in_(_IDS))
_SCORES: Final = (
    select(Score.evaluation_id, Score.dimension, Score.score, Score.threshold, Score.source)
    .where(Score.evaluation_id.in_(_IDS))
    .order_by(Score.evaluation_id, Score.dimension)
)
_UPDATE_SERIES: Final = (
    update(_SERIES)
    .where(
        _SERIES.c.monitor == bindparam("k_monitor"),
        _SERIES.c.metric == bindparam("k_metric"),
        _SERIES.c.revision == bindparam("k_revision"),
        _SERIES.c.session == bindparam("k_session"),
    )
    .values(
        samples=bindparam("samples"),
        fast=bindparam("fast"),
        slow=bindparam("slow"),
        recent=bindparam("recent"),
        latest=bindparam("latest"),
        threshold=bindparam("threshold"),
        signatures=bindparam("signatures"),
        evaluation_id=bindparam("evaluation_id"),
        updated_at=bindparam("updated_at"),
    )
)
_RECORD: Final = (
    update(_STEPS)
    .where(_STEPS.c.evaluation_id == bindparam("k_evaluation"))
    .values(detections=bindparam("detections"))
)


@dataclass(frozen=True, slots=True)
class StepRequest:
    """One evaluation to step: under which settings, and in which session's series (None: the
    revision's)."""

    evaluation_id: int
    config: DetectorConfig
    session: str | None = None


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
        return self.step_batch([StepRequest(evaluation_id, config, session)], now)[0]

    def step_many(
        self, evaluations: Sequence[tuple[int, str | None]], config: DetectorConfig, now: float
    ) -> dict[int, tuple[Detection, ...]]:
        """:meth:`step` for several ``(evaluation_id, session)`` under one config (see
        :meth:`step_batch`)."""
        found = self.step_batch([StepRequest(e, config, session) for e, session in evaluations], now)
        return {e: d for (e, _), d in zip(evaluations, found, strict=True)}

    def step_batch(self, requests: Sequence[StepRequest], now: float) -> list[tuple[Detection, ...]]:
        """:meth:`step` for each request, in that order, in one transaction: the same result as one
        call each (a series stepped twice in the batch sees its first step), with a handful of
        statements for the whole batch instead of several per evaluation and one commit."""
        if not requests:
            return []

        def go() -> list[tuple[Detection, ...]]:
            with self._writes.begin() as conn:
                return self._step_batch(conn, requests, now)

        return self._guard(go)

    def _step_batch(
        self, conn: Connection, requests: Sequence[StepRequest], now: float
    ) -> list[tuple[Detection, ...]]:
        ids = sorted({r.evaluation_id for r in requests})
        found = {
            int(e): (str(m), str(run), signals, revision or "")
            for e, m, run, signals, revision in conn.execute(_FIND, {"ids": ids})
        }
        first: dict[int, StepRequest] = {}  # an evaluation asked twice is stepped by its first request
        for r in requests:
            if r.evaluation_id in found:
                first.setdefault(r.evaluation_id, r)
        claimed: set[int] = set()
        if first:  # claim the steps, in id order (two collectors never wait on each other in a cycle)
            rows = [
                {
                    "evaluation_id": e,
                    "monitor": found[e][0],
                    "run_id": found[e][1],
                    "revision": found[e][3],
                    "session": first[e].session or "",
                    "detections": "[]",
                    "stepped_at": now,
                }
                for e in sorted(first)
            ]
            claim = self._insert(_STEPS).on_conflict_do_nothing().returning(_STEPS.c.evaluation_id)
            claimed = {int(e) for (e,) in conn.execute(claim, rows)}  # one statement, cached
        recorded: dict[int, tuple[Detection, ...]] = {}
        done = [e for e in first if e not in claimed]
        if done:  # stepped already (another collector, or before a restart): the recorded answer
            for e, doc in conn.execute(_RECORDED, {"ids": done}):
                recorded[int(e)] = tuple(_detection(d) for d in json.loads(doc))
        if claimed:
            inputs = self._inputs(conn, claimed, {e: found[e][2] for e in claimed})
            recorded.update(self._apply(conn, [first[e] for e in first if e in claimed], found, inputs, now))
        return [recorded.get(r.evaluation_id, ()) for r in requests]

    @staticmethod
    def _inputs(
        conn: Connection, claimed: set[int], signals: Mapping[int, str | None]
    ) -> dict[int, dict[str, tuple[float | None, float]]]:
        """Per evaluation, metric -> (score, threshold), both 0-100: its dimensions, then its signals
        (:func:`proctor.protocol.run_metrics`: the metrics every reader of a run decides on; the
        config's thresholds are applied by the step)."""
        scored: dict[int, list[tuple[str, float | None, float, str]]] = {}
        for e, dim, score, threshold, source in conn.execute(_SCORES, {"ids": sorted(claimed)}):
            scored.setdefault(int(e), []).append((dim, score, threshold, source))
        return {  # signals ride along with a judged run only
            e: {
                m.name: (m.score, m.threshold)
                for m in run_metrics(rows, json.loads(signals[e] or "{}")).values()
            }
            for e, rows in scored.items()
        }

    def _apply(
        self,
        conn: Connection,
        requests: Sequence[StepRequest],
        found: Mapping[int, tuple[str, str, str | None, str]],
        inputs: Mapping[int, Mapping[str, tuple[float | None, float]]],
        now: float,
    ) -> dict[int, tuple[Detection, ...]]:
        """Step the claimed evaluations' series in request order; write each series once."""
        measured: dict[int, list[tuple[str, float, float]]] = {}
        keys: set[tuple[str, str, str, str]] = set()
        for r in requests:
            monitor, _, _, revision = found[r.evaluation_id]
            got = inputs.get(r.evaluation_id, {})
            m = [(metric, score, t) for metric, (score, t) in sorted(got.items()) if score is not None]
            measured[r.evaluation_id] = m
            keys.update((monitor, metric, revision, r.session or "") for metric, _, _ in m)
        out: dict[int, tuple[Detection, ...]] = {r.evaluation_id: () for r in requests}
        if not keys:
            return out
        states = self._lock_series(conn, sorted(keys), now)
        written: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        for r in requests:
            m = measured[r.evaluation_id]
            if not m:
                continue
            monitor, _, _, revision = found[r.evaluation_id]
            session = r.session or ""
            thresholds = {metric: t / 100.0 for metric, _, t in m}
            thresholds.update(r.config.thresholds)
            config = replace(r.config, thresholds=thresholds)
            fired: list[Detection] = []
            for metric, score, _ in m:
                key = (monitor, metric, revision, session)
                state, found_now = detect(states[key], metric, score / 100.0, config)
                states[key] = state
                written[key] = {
                    "k_monitor": monitor,
                    "k_metric": metric,
                    "k_revision": revision,
                    "k_session": session,
                    "samples": state.samples,
                    "fast": state.fast,
                    "slow": state.slow,
                    "state": state,
                    "latest": score / 100.0,
                    "threshold": config.threshold_for(metric),
                    "signatures": dumps([d.signature for d in found_now]) if found_now else "[]",
                    "evaluation_id": r.evaluation_id,
                    "updated_at": now,
                }
                fired.extend(found_now)
            out[r.evaluation_id] = tuple(fired)
        for change in written.values():  # the window, encoded once per series however often stepped
            change["recent"] = dumps(list(change.pop("state").recent))
        conn.execute(_UPDATE_SERIES, list(written.values()))
        fired_rows = [
            {"k_evaluation": e, "detections": dumps([_detection_json(d) for d in d_])}
            for e, d_ in out.items()
            if d_
        ]
        if fired_rows:
            conn.execute(_RECORD, fired_rows)
        return out

    def _lock_series(
        self, conn: Connection, keys: Sequence[tuple[str, str, str, str]], now: float
    ) -> dict[tuple[str, str, str, str], SeriesState]:
        """The series' states, their rows locked (made first for a series' first score), in key order."""
        table = _SERIES
        columns = (table.c.monitor, table.c.metric, table.c.revision, table.c.session)  # the key's order
        states: dict[tuple[str, str, str, str], SeriesState] = {}

        def read(wanted: Sequence[tuple[str, str, str, str]]) -> None:
            for start in range(0, len(wanted), _CHUNK):
                stmt = self._locked(
                    select(*columns, table.c.samples, table.c.fast, table.c.slow, table.c.recent)
                    .where(tuple_(*columns).in_(wanted[start : start + _CHUNK]))
                    .order_by(*columns),
                    skip=False,
                )
                for mon, metric, rev, ses, samples, fast, slow, recent in conn.execute(stmt):
                    window = tuple(json.loads(recent)) if recent and recent != "[]" else ()
                    states[(mon, metric, rev, ses)] = SeriesState(samples, fast, slow, window)

        read(keys)
        missing = [k for k in keys if k not in states]
        if missing:  # a series' first score: its row, then lock it (another step may race)
            conn.execute(
                self._insert(table).on_conflict_do_nothing(),
                [
                    {
                        "monitor": mon,
                        "revision": rev,
                        "session": ses,
                        "metric": metric,
                        "samples": 0,
                        "recent": "[]",
                        "signatures": "[]",
                        "updated_at": now,
                    }
                    for mon, metric, rev, ses in missing
                ],
            )
            read(missing)
        return states

    def unstepped(self, since: float, *, limit: int = 500) -> list[tuple[int, str, str]]:
        """Evaluations finished at or after ``since`` with stored scores that no step took yet,
        oldest first: ``(evaluation_id, monitor, run_id)``. A collector stopped between storing a
        run's scores and stepping its series leaves one; the worker steps them when it starts.
        (Older ones, such as those stored before the detectors existed, are :meth:`recompute`'s.)"""

        def go() -> list[tuple[int, str, str]]:
            with Session(self.engine) as s:
                scored = select(Score.evaluation_id).distinct()
                stepped = select(DetectorStep.evaluation_id)
                stmt = (
                    select(Evaluation.id, Evaluation.monitor, Evaluation.run_id)
                    .where(Evaluation.finished_at >= since, Evaluation.id.in_(scored))
                    .where(Evaluation.id.not_in(stepped))
                    .order_by(Evaluation.finished_at, Evaluation.id)
                    .limit(limit)
                )
                return [(int(e), str(m), str(r)) for e, m, r in s.execute(stmt)]

        return self._guard(go)

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
                conn = s.connection()
                for start in range(0, len(ids), _CHUNK):
                    requests = [
                        StepRequest(e, config, str(sessions.get(e, "")) or None)
                        for e in ids[start : start + _CHUNK]
                    ]
                    self._step_batch(conn, requests, now)
                return len(ids)

        return self._guard(go)
