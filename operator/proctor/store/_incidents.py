"""The incidents room: incidents, the notices' memory (de-duplication and breaker state), the
notice outbox with its deliveries, and the alerts kept firing in Alertmanager.

Everything one judged run changes is written in ONE transaction (:meth:`Incidents.step`): the
series' alert state, the monitor's breaker, the incident opened or joined or resolved, the notices
and one delivery row per sink. A sender then claims deliveries, sends, and marks them delivered
(:meth:`Incidents.claim_deliveries`, :meth:`Incidents.finish_delivery`), so a collector killed
mid-incident resumes from the database: what was decided is not decided again (the run's
evaluation is remembered) and what was delivered is not sent again.

The decisions are not made here: :meth:`Incidents.step` hands the loaded state to the caller's
pure ``decide`` and writes the :class:`Plan` it returns.

Errors are :class:`proctor.store.StoreUnavailable` (the database cannot be reached: nothing of the
call was stored) and :class:`IncidentNotFound`.

Concurrency: the breaker row of a monitor, then the series' row, are locked (``FOR UPDATE`` on
PostgreSQL; SQLite has one writer), so two workers judging runs of one series decide in turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from sqlalchemy import (
    Boolean,
    Connection,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from proctor.protocol import Severity
from proctor.store._room import Room, StoreError
from proctor.store._schema import Base

#: An incident's states, in the order it moves through them.
OPEN: Final = "open"
ACKNOWLEDGED: Final = "acknowledged"
RESOLVED: Final = "resolved"
INCIDENT_STATES: Final = (OPEN, ACKNOWLEDGED, RESOLVED)
#: A delivery's states.
PENDING: Final = "pending"
DELIVERED: Final = "delivered"
FAILED: Final = "failed"
#: The alert of a tripped circuit breaker: per monitor, ended by the window, not by a recovery.
NEEDS_HUMAN_ALERT: Final = "ProctorNeedsHuman"
#: Runs listed on an incident at most (its run count covers all of them).
MAX_LISTED_RUNS: Final = 50
#: A recommendation's states: ``proposed`` -> ``approved`` (a person, or the agent where the policy
#: lets it) or ``dismissed``; an approved one (or a proposed one the monitor's actions policy Allows)
#: -> ``performing`` (the operator claimed it) -> ``performed`` or ``refused`` (the operator could not).
PROPOSED: Final = "proposed"
APPROVED: Final = "approved"
DISMISSED: Final = "dismissed"
PERFORMING: Final = "performing"
PERFORMED: Final = "performed"
REFUSED: Final = "refused"
#: Who decided a recommendation the monitor's actions policy Allows.
BY_POLICY: Final = "policy:Allow"
#: Incidents of one monitor looked through for actions to perform, newest first.
MAX_ACTION_INCIDENTS: Final = 200


class IncidentNotFound(StoreError, KeyError):
    """No incident has that id."""


class IncidentRow(Base):
    """One incident: what broke, how badly, why, and what may be done about it."""

    __tablename__ = "incidents"
    __table_args__ = (
        Index("ix_incidents_monitor_state", "monitor", "state"),
        Index("ix_incidents_series_state", "series", "state"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    monitor: Mapped[str] = mapped_column(String(320))
    agent: Mapped[str] = mapped_column(String(255))
    revision: Mapped[str | None] = mapped_column(String(255))
    series: Mapped[str] = mapped_column(String(700))
    signatures: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))
    severity: Mapped[str] = mapped_column(String(16))
    probable_cause: Mapped[str] = mapped_column(Text, default="")
    cause: Mapped[str] = mapped_column(Text, default="{}")
    recommendations: Mapped[str] = mapped_column(Text, default="[]")
    run_count: Mapped[int] = mapped_column(Integer, default=0)
    opened_at: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[float] = mapped_column(Double)
    acknowledged_at: Mapped[float | None] = mapped_column(Double)
    acknowledged_by: Mapped[str | None] = mapped_column(String(320))
    resolved_at: Mapped[float | None] = mapped_column(Double)


class IncidentRunRow(Base):
    """A run that opened or joined an incident."""

    __tablename__ = "incident_runs"

    incident_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("incidents.id", ondelete="CASCADE"), primary_key=True
    )
    run_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    added_at: Mapped[float] = mapped_column(Double)


class NoticeStateRow(Base):
    """The memory of notices: a series' alert state, or a monitor's breaker (a JSON document)."""

    __tablename__ = "notice_state"

    key: Mapped[str] = mapped_column(String(800), primary_key=True)
    document: Mapped[str] = mapped_column(Text, default="{}")
    updated_at: Mapped[float] = mapped_column(Double)


class NoticeSeenRow(Base):
    """An evaluation whose detections were handled already (a replay decides nothing again)."""

    __tablename__ = "notice_seen"

    evaluation: Mapped[str] = mapped_column(String(80), primary_key=True)
    monitor: Mapped[str] = mapped_column(String(320))
    at: Mapped[float] = mapped_column(Double)


class NoticeRow(Base):
    """A notice: decided once, recorded whether sent or not (shadow mode, the breaker)."""

    __tablename__ = "notices"
    __table_args__ = (Index("ix_notices_monitor", "monitor", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    monitor: Mapped[str] = mapped_column(String(320))
    series: Mapped[str] = mapped_column(String(700))
    kind: Mapped[str] = mapped_column(String(16))
    severity: Mapped[str] = mapped_column(String(16))
    signatures: Mapped[str] = mapped_column(Text)
    incident_id: Mapped[str | None] = mapped_column(String(40))
    sent: Mapped[bool] = mapped_column(Boolean)
    why_not: Mapped[str | None] = mapped_column(Text)
    document: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Double)


class DeliveryRow(Base):
    """One notice to one sink: the outbox's unit of work."""

    __tablename__ = "notice_deliveries"
    __table_args__ = (Index("ix_notice_deliveries_due", "state", "next_at"),)

    notice_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("notices.id", ondelete="CASCADE"), primary_key=True
    )
    sink: Mapped[str] = mapped_column(String(63), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[float] = mapped_column(Double)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_until: Mapped[float | None] = mapped_column(Double)
    error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[float | None] = mapped_column(Double)


class AlertRow(Base):
    """An alert as Alertmanager should see it; re-sent while firing (``ends_at`` unset)."""

    __tablename__ = "notice_alerts"
    __table_args__ = (Index("ix_notice_alerts_monitor", "monitor", "ends_at"),)

    key: Mapped[str] = mapped_column(String(800), primary_key=True)
    monitor: Mapped[str] = mapped_column(String(320))
    series: Mapped[str] = mapped_column(String(700))
    alertname: Mapped[str] = mapped_column(String(63))
    labels: Mapped[str] = mapped_column(Text)
    annotations: Mapped[str] = mapped_column(Text)
    starts_at: Mapped[float] = mapped_column(Double)
    ends_at: Mapped[float | None] = mapped_column(Double)
    last_sent_at: Mapped[float | None] = mapped_column(Double)


# --- what is read ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IncidentView:
    """An incident as the API shows it."""

    id: str
    monitor: str
    agent: str
    revision: str | None
    series: str
    state: str
    severity: str
    signatures: tuple[str, ...]
    probable_cause: str
    cause: Mapping[str, Any]
    recommendations: tuple[Mapping[str, Any], ...]
    runs: int
    run_ids: tuple[str, ...]
    opened_at: float
    updated_at: float
    acknowledged_at: float | None
    acknowledged_by: str | None
    resolved_at: float | None


@dataclass(frozen=True, slots=True)
class IncidentsSummary:
    """Open incidents of a monitor: how many, the worst, the oldest few."""

    open: int
    worst: str | None
    first: tuple[IncidentView, ...]


@dataclass(frozen=True, slots=True)
class NoticeView:
    id: int
    monitor: str
    series: str
    kind: str
    severity: str
    signatures: tuple[str, ...]
    incident_id: str | None
    sent: bool
    why_not: str | None
    document: Mapping[str, Any]
    created_at: float
    deliveries: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class DeliveryClaim:
    """A delivery a sender took: send it, then :meth:`Incidents.finish_delivery`."""

    notice_id: int
    sink: str
    monitor: str
    attempts: int
    document: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class DeliveryOutcome:
    """How a claimed delivery went: delivered (no ``error``), due again at ``retry_at``, or failed
    for good (an ``error`` without ``retry_at``)."""

    claim: DeliveryClaim
    error: str | None = None
    retry_at: float | None = None


@dataclass(frozen=True, slots=True)
class AlertView:
    key: str
    monitor: str
    series: str
    alertname: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    starts_at: float
    ends_at: float | None


# --- what a step decides (the caller's pure decision; written here) ----------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the decision needs: the series' alert state, the monitor's breaker, the series' live
    incidents (open or acknowledged), and whether this evaluation was handled already."""

    alert: Mapping[str, Any] | None
    breaker: Mapping[str, Any] | None
    live: tuple[IncidentView, ...]
    seen: bool


@dataclass(frozen=True, slots=True)
class NewIncident:
    id: str
    agent: str
    revision: str | None
    signatures: tuple[str, ...]
    severity: str
    probable_cause: str
    cause: Mapping[str, Any]
    recommendations: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class NewNotice:
    kind: str
    severity: str
    signatures: tuple[str, ...]
    incident_id: str | None
    document: Mapping[str, Any]
    sinks: tuple[str, ...]
    why_not: str | None = None  # why nothing is sent (shadow mode, the breaker): recorded only


@dataclass(frozen=True, slots=True)
class AlertChange:
    """Fire (or refresh) an alert, or end it (``ends_at``)."""

    key: str
    alertname: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    ends_at: float | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one run's detections change, written in one transaction."""

    alert: Mapping[str, Any]
    breaker: Mapping[str, Any]
    open: NewIncident | None = None
    join: Mapping[str, str] = field(default_factory=dict)  # incident id -> its (new) severity
    resolve: tuple[str, ...] = ()
    notices: tuple[NewNotice, ...] = ()
    alerts: tuple[AlertChange, ...] = ()
    end_series_alerts: bool = False  # the series recovered: end its alerts (needs_human excepted)


@dataclass(frozen=True, slots=True)
class StepItem:
    """One judged run's detections to decide (:meth:`Incidents.step`)."""

    monitor: str
    series: str
    evaluation: str
    run_id: str
    now: float
    decide: Callable[[Snapshot], Plan]


@dataclass(frozen=True, slots=True)
class StepResult:
    plan: Plan | None  # None: this evaluation was handled already
    notices: tuple[int, ...] = ()


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _view(row: IncidentRow, run_ids: Sequence[str] = ()) -> IncidentView:
    return IncidentView(
        id=row.id,
        monitor=row.monitor,
        agent=row.agent,
        revision=row.revision,
        series=row.series,
        state=row.state,
        severity=row.severity,
        signatures=tuple(json.loads(row.signatures)),
        probable_cause=row.probable_cause,
        cause=json.loads(row.cause),
        recommendations=tuple(json.loads(row.recommendations)),
        runs=row.run_count,
        run_ids=tuple(run_ids),
        opened_at=row.opened_at,
        updated_at=row.updated_at,
        acknowledged_at=row.acknowledged_at,
        acknowledged_by=row.acknowledged_by,
        resolved_at=row.resolved_at,
    )


_STATE: Final = cast(Table, NoticeStateRow.__table__)
_SEEN: Final = cast(Table, NoticeSeenRow.__table__)
_INCIDENTS: Final = cast(Table, IncidentRow.__table__)


def _due(
    r: Mapping[str, Any], incident: IncidentView, allowed: frozenset[str], now: float, lease: float
) -> bool:
    """Whether the operator should perform ``r`` now (see :meth:`Incidents.pending_actions`)."""
    state = r.get("state")
    if state == APPROVED:
        return True
    if state == PROPOSED:
        return r.get("id") in allowed and incident.state != RESOLVED
    if state == PERFORMING:
        claimed = r.get("claimedAt")
        return not isinstance(claimed, int | float) or claimed + lease <= now
    return False


def breaker_key(monitor: str) -> str:
    return f"breaker:{monitor}"


def series_key(series: str) -> str:
    return f"series:{series}"


class Incidents(Room):
    """The incidents room's repository. Methods are synchronous transactions (call them with
    ``asyncio.to_thread``) and raise :class:`StoreUnavailable` when the database cannot be reached."""

    # --- the step ----------------------------------------------------------------------------------

    def step(
        self,
        monitor: str,
        series: str,
        evaluation: str,
        run_id: str,
        now: float,
        decide: Callable[[Snapshot], Plan],
    ) -> StepResult:
        """Load the state ``decide`` needs, call it, write its plan: one transaction. An
        ``evaluation`` handled before is decided again with ``seen`` set (and its plan ignored),
        so a replay after a crash changes nothing."""
        return self.step_batch([StepItem(monitor, series, evaluation, run_id, now, decide)])[0]

    def step_batch(self, items: Sequence[StepItem]) -> list[StepResult]:
        """:meth:`step` for each item, in that order, in one transaction: the same results as one
        transaction each (each item sees what the items before it wrote), one commit for all.
        Core statements, compiled once and cached: this is the path of every judged run."""

        def go() -> list[StepResult]:
            with self._writes.begin() as conn:
                return [self._step(conn, i) for i in items]

        return self._guard(go)

    def _lock_states(self, conn: Connection, keys: Sequence[str], now: float) -> dict[str, str]:
        """The notice-state documents of ``keys`` (made empty first), their rows locked in key order."""
        conn.execute(
            self._insert(_STATE).on_conflict_do_nothing(index_elements=["key"]),
            [{"key": k, "document": "{}", "updated_at": now} for k in sorted(keys)],
        )
        stmt = select(_STATE.c.key, _STATE.c.document).where(_STATE.c.key.in_(sorted(keys)))
        stmt = stmt.order_by(_STATE.c.key)
        if self.dialect == "postgresql":
            stmt = stmt.with_for_update()
        return {str(k): str(d) for k, d in conn.execute(stmt)}

    def _step(self, conn: Connection, item: StepItem) -> StepResult:
        monitor, series, evaluation, now = item.monitor, item.series, item.evaluation, item.now
        bkey, skey = breaker_key(monitor), series_key(series)
        docs = self._lock_states(conn, [bkey, skey], now)
        if conn.execute(select(_SEEN.c.evaluation).where(_SEEN.c.evaluation == evaluation)).first():
            return StepResult(None)
        live = {
            r.id: _view(cast(IncidentRow, r))
            for r in conn.execute(
                select(_INCIDENTS)
                .where(_INCIDENTS.c.series == series, _INCIDENTS.c.state != RESOLVED)
                .order_by(_INCIDENTS.c.opened_at)
            )
        }
        snap = Snapshot(
            alert=json.loads(docs[skey]) or None,
            breaker=json.loads(docs[bkey]) or None,
            live=tuple(live.values()),
            seen=False,
        )
        plan = item.decide(snap)
        conn.execute(insert(_SEEN), {"evaluation": evaluation, "monitor": monitor, "at": now})
        conn.execute(
            update(_STATE).where(_STATE.c.key == bindparam("k_key")),
            [
                {"k_key": skey, "document": _dump(plan.alert), "updated_at": now},
                {"k_key": bkey, "document": _dump(plan.breaker), "updated_at": now},
            ],
        )
        self._write_incidents(conn, plan, monitor, series, item.run_id, now, live)
        ids = self._write_notices(conn, plan, monitor, series, now)
        self._write_alerts(conn, plan, monitor, series, now)
        return StepResult(plan, ids)

    def _write_incidents(
        self,
        conn: Connection,
        plan: Plan,
        monitor: str,
        series: str,
        run_id: str,
        now: float,
        live: Mapping[str, IncidentView],
    ) -> None:
        runs = cast(Table, IncidentRunRow.__table__)
        if plan.open is not None:
            new = plan.open
            conn.execute(
                insert(_INCIDENTS),
                {
                    "id": new.id,
                    "monitor": monitor,
                    "agent": new.agent,
                    "revision": new.revision,
                    "series": series,
                    "signatures": _dump(list(new.signatures)),
                    "state": OPEN,
                    "severity": new.severity,
                    "probable_cause": new.probable_cause,
                    "cause": _dump(new.cause),
                    "recommendations": _dump(list(new.recommendations)),
                    "run_count": 1,
                    "opened_at": now,
                    "updated_at": now,
                },
            )
            conn.execute(insert(runs), {"incident_id": new.id, "run_id": run_id, "added_at": now})
        for incident_id, severity in plan.join.items():
            if incident_id not in live:
                continue
            added = conn.execute(
                self._insert(runs)
                .values(incident_id=incident_id, run_id=run_id, added_at=now)
                .on_conflict_do_nothing()
            ).rowcount
            values: dict[str, Any] = {"severity": severity, "updated_at": now}
            if added:
                values["run_count"] = _INCIDENTS.c.run_count + 1
            conn.execute(update(_INCIDENTS).where(_INCIDENTS.c.id == incident_id).values(values))
        for incident_id in plan.resolve:
            if incident_id in live:
                conn.execute(
                    update(_INCIDENTS)
                    .where(_INCIDENTS.c.id == incident_id)
                    .values(state=RESOLVED, resolved_at=now, updated_at=now)
                )

    def _write_notices(
        self, conn: Connection, plan: Plan, monitor: str, series: str, now: float
    ) -> tuple[int, ...]:
        notices, deliveries = cast(Table, NoticeRow.__table__), cast(Table, DeliveryRow.__table__)
        ids = []
        for n in plan.notices:
            notice_id = conn.execute(
                insert(notices).returning(notices.c.id),
                {
                    "monitor": monitor,
                    "series": series,
                    "kind": n.kind,
                    "severity": n.severity,
                    "signatures": _dump(list(n.signatures)),
                    "incident_id": n.incident_id,
                    "sent": n.why_not is None and bool(n.sinks),
                    "why_not": n.why_not,
                    "document": _dump(n.document),
                    "created_at": now,
                },
            ).scalar_one()
            ids.append(int(notice_id))
            if n.why_not is None and n.sinks:
                conn.execute(
                    insert(deliveries),
                    [
                        {
                            "notice_id": notice_id,
                            "sink": sink,
                            "state": PENDING,
                            "attempts": 0,
                            "next_at": now,
                        }
                        for sink in n.sinks
                    ],
                )
        return tuple(ids)

    def _write_alerts(self, conn: Connection, plan: Plan, monitor: str, series: str, now: float) -> None:
        alerts = cast(Table, AlertRow.__table__)
        if plan.end_series_alerts:
            conn.execute(
                update(alerts)
                .where(
                    alerts.c.series == series,
                    alerts.c.ends_at.is_(None),
                    alerts.c.alertname != NEEDS_HUMAN_ALERT,
                )
                .values(ends_at=now, last_sent_at=None)
            )
        for a in plan.alerts:
            labels, annotations = _dump(dict(a.labels)), _dump(dict(a.annotations))
            row = conn.execute(select(alerts.c.ends_at).where(alerts.c.key == a.key)).first()
            if row is None or (row.ends_at is not None and row.ends_at <= now):  # a new alert
                if row is not None:
                    conn.execute(delete(alerts).where(alerts.c.key == a.key))
                conn.execute(
                    insert(alerts),
                    {
                        "key": a.key,
                        "monitor": monitor,
                        "series": series,
                        "alertname": a.alertname,
                        "labels": labels,
                        "annotations": annotations,
                        "starts_at": now,
                        "ends_at": a.ends_at,
                        "last_sent_at": None,
                    },
                )
            else:
                conn.execute(
                    update(alerts)
                    .where(alerts.c.key == a.key)
                    .values(labels=labels, annotations=annotations, ends_at=a.ends_at, last_sent_at=None)
                )

    # --- deliveries ----------------------------------------------------------------------------------

    def claim_deliveries(
        self, owner: str, now: float, *, limit: int = 64, lease_seconds: float = 60.0
    ) -> list[DeliveryClaim]:
        """Take up to ``limit`` deliveries that are due (pending, not leased to a live sender)."""

        def go() -> list[DeliveryClaim]:
            with Session(self._writes) as s, s.begin():
                stmt = (
                    select(DeliveryRow, NoticeRow.monitor, NoticeRow.document)
                    .join(NoticeRow, NoticeRow.id == DeliveryRow.notice_id)
                    .where(
                        DeliveryRow.state == PENDING,
                        DeliveryRow.next_at <= now,
                        or_(DeliveryRow.lease_until.is_(None), DeliveryRow.lease_until < now),
                    )
                    .order_by(DeliveryRow.notice_id, DeliveryRow.sink)
                    .limit(limit)
                )
                if self.dialect == "postgresql":
                    stmt = stmt.with_for_update(of=DeliveryRow, skip_locked=True)
                out = []
                for row, monitor, document in s.execute(stmt).all():
                    row.lease_owner, row.lease_until = owner, now + lease_seconds
                    out.append(
                        DeliveryClaim(row.notice_id, row.sink, monitor, row.attempts, json.loads(document))
                    )
                return out

        return self._guard(go)

    def finish_delivery(
        self,
        claim: DeliveryClaim,
        owner: str,
        now: float,
        *,
        error: str | None = None,
        retry_at: float | None = None,
    ) -> bool:
        """Record a delivery's attempt: delivered (no ``error``), due again at ``retry_at``, or
        failed for good (an ``error`` without ``retry_at``). False: the lease was lost."""
        return self.finish_deliveries([DeliveryOutcome(claim, error, retry_at)], owner, now)[0]

    def finish_deliveries(self, outcomes: Sequence[DeliveryOutcome], owner: str, now: float) -> list[bool]:
        """:meth:`finish_delivery` for each outcome, in one transaction (a sender's pass)."""
        if not outcomes:
            return []
        table = cast(Table, DeliveryRow.__table__)
        mine = (
            table.c.notice_id == bindparam("k_notice"),
            table.c.sink == bindparam("k_sink"),
            table.c.lease_owner == owner,
            table.c.state == PENDING,
        )
        done = {"attempts": table.c.attempts + 1, "lease_owner": None, "lease_until": None}

        def go() -> list[bool]:
            with self._writes.begin() as conn:
                out = []
                for o in outcomes:
                    key = {"k_notice": o.claim.notice_id, "k_sink": o.claim.sink}
                    if o.error is None:
                        values = {**done, "state": DELIVERED, "delivered_at": now, "error": None}
                    elif o.retry_at is None:
                        values = {**done, "state": FAILED, "error": o.error[:2000]}
                    else:
                        values = {**done, "next_at": o.retry_at, "error": o.error[:2000]}
                    out.append(conn.execute(update(table).where(*mine).values(values), key).rowcount == 1)
                return out

        return self._guard(go)

    def next_due(self) -> float | None:
        """When the earliest pending delivery is due (None: nothing pending)."""

        def go() -> float | None:
            with Session(self.engine) as s:
                return s.execute(
                    select(func.min(DeliveryRow.next_at)).where(DeliveryRow.state == PENDING)
                ).scalar_one_or_none()

        return self._guard(go)

    # --- alerts -----------------------------------------------------------------------------------

    def alerts_due(self, now: float, every: float) -> list[AlertView]:
        """Alerts to (re-)send: firing ones not sent within ``every`` seconds, ended ones not yet
        sent since they ended."""

        def go() -> list[AlertView]:
            with Session(self.engine) as s:
                rows = (
                    s.execute(
                        select(AlertRow).where(
                            or_(AlertRow.last_sent_at.is_(None), AlertRow.last_sent_at <= now - every),
                            or_(AlertRow.ends_at.is_(None), AlertRow.last_sent_at.is_(None)),
                        )
                    )
                    .scalars()
                    .all()
                )
                return [
                    AlertView(
                        r.key,
                        r.monitor,
                        r.series,
                        r.alertname,
                        json.loads(r.labels),
                        json.loads(r.annotations),
                        r.starts_at,
                        r.ends_at,
                    )
                    for r in rows
                ]

        return self._guard(go)

    def alerts_sent(self, keys: Iterable[str], now: float) -> None:
        keys = list(keys)
        if not keys:
            return

        def go() -> None:
            with Session(self._writes) as s, s.begin():
                s.execute(update(AlertRow).where(AlertRow.key.in_(keys)).values(last_sent_at=now))

        self._guard(go)

    def alerts(self, monitor: str, *, series: str | Sequence[str] | None = None) -> list[AlertView]:
        """The monitor's alerts (of those series, and the monitor's needs_human, when ``series``)."""
        wanted = [series] if isinstance(series, str) else series

        def go() -> list[AlertView]:
            with Session(self.engine) as s:
                stmt = select(AlertRow).where(AlertRow.monitor == monitor)
                if wanted is not None:
                    stmt = stmt.where(
                        or_(AlertRow.series.in_(wanted), AlertRow.alertname == NEEDS_HUMAN_ALERT)
                    )
                rows = s.execute(stmt).scalars().all()
                return [
                    AlertView(
                        r.key,
                        r.monitor,
                        r.series,
                        r.alertname,
                        json.loads(r.labels),
                        json.loads(r.annotations),
                        r.starts_at,
                        r.ends_at,
                    )
                    for r in rows
                ]

        return self._guard(go)

    # --- queries and people's decisions ---------------------------------------------------------------

    def list_incidents(
        self, *, monitors: Sequence[str] | None = None, state: str | None = None, limit: int = 100
    ) -> list[IncidentView]:
        """Incidents, newest first; ``monitors`` None: every monitor (an empty list: none)."""
        if monitors is not None and not monitors:
            return []

        def go() -> list[IncidentView]:
            with Session(self.engine) as s:
                stmt = select(IncidentRow).order_by(IncidentRow.opened_at.desc(), IncidentRow.id).limit(limit)
                if monitors is not None:
                    stmt = stmt.where(IncidentRow.monitor.in_(list(monitors)))
                if state is not None:
                    stmt = stmt.where(IncidentRow.state == state)
                return [_view(r) for r in s.execute(stmt).scalars().all()]

        return self._guard(go)

    def get(self, incident_id: str) -> IncidentView:
        def go() -> IncidentView:
            with Session(self.engine) as s:
                row = s.get(IncidentRow, incident_id)
                if row is None:
                    raise IncidentNotFound(incident_id)
                runs = (
                    s.execute(
                        select(IncidentRunRow.run_id)
                        .where(IncidentRunRow.incident_id == incident_id)
                        .order_by(IncidentRunRow.added_at, IncidentRunRow.run_id)
                        .limit(MAX_LISTED_RUNS)
                    )
                    .scalars()
                    .all()
                )
                return _view(row, runs)

        return self._guard(go)

    def acknowledge(self, incident_id: str, by: str, now: float) -> IncidentView:
        """Acknowledge an open incident (one already acknowledged or resolved is left as it is)."""

        def go() -> None:
            with Session(self._writes) as s, s.begin():
                row = s.get(IncidentRow, incident_id)
                if row is None:
                    raise IncidentNotFound(incident_id)
                if row.state == OPEN:
                    row.state, row.acknowledged_at, row.acknowledged_by = ACKNOWLEDGED, now, by[:320]
                    row.updated_at = now

        self._guard(go)
        return self.get(incident_id)

    def update_recommendations(
        self,
        incident_id: str,
        change: Callable[[IncidentView], Sequence[Mapping[str, Any]]],
        now: float,
    ) -> IncidentView:
        """Replace an incident's recommendations with ``change(incident)`` (a pure function of the
        incident as locked now), in one transaction."""

        def go() -> None:
            with Session(self._writes) as s, s.begin():
                stmt = select(IncidentRow).where(IncidentRow.id == incident_id)
                if self.dialect == "postgresql":
                    stmt = stmt.with_for_update()
                row = s.execute(stmt).scalar_one_or_none()
                if row is None:
                    raise IncidentNotFound(incident_id)
                row.recommendations = _dump(list(change(_view(row))))
                row.updated_at = now

        self._guard(go)
        return self.get(incident_id)

    def decide(self, incident_id: str, rec: str, decision: str, by: str, now: float) -> IncidentView:
        """Record a person's decision on a proposed recommendation (``approve`` or ``dismiss``):
        ``approved`` (the operator applies it) or ``dismissed``. One that was decided stays."""
        state = {"approve": APPROVED, "dismiss": DISMISSED}[decision]

        def change(incident: IncidentView) -> list[dict[str, Any]]:
            out = []
            for r in incident.recommendations:
                r = dict(r)
                if r.get("id") == rec and r.get("state") == PROPOSED:
                    r.update(state=state, decidedBy=by[:320], decidedAt=now)
                out.append(r)
            return out

        return self.update_recommendations(incident_id, change, now)

    # --- the operator performs what was approved (armb-act) -------------------------------------------

    def pending_actions(
        self, monitor: str, allowed: Iterable[str], now: float, *, lease: float
    ) -> list[tuple[IncidentView, Mapping[str, Any]]]:
        """The recommendations of ``monitor``'s incidents the operator should perform, oldest
        first: approved ones, proposed ones of an open incident whose action is in ``allowed`` (the
        actions policy Allows it), and claimed ones whose claim is older than ``lease`` seconds (an
        operator that stopped mid-way: every action is idempotent, so it may be performed again)."""
        allow = frozenset(allowed)
        out: list[tuple[IncidentView, Mapping[str, Any]]] = []
        for incident in reversed(self.list_incidents(monitors=[monitor], limit=MAX_ACTION_INCIDENTS)):
            for r in incident.recommendations:
                if _due(r, incident, allow, now, lease):
                    out.append((incident, r))
        return out

    def claim_action(
        self, incident_id: str, rec: str, by: str, now: float, *, allowed: bool, lease: float
    ) -> IncidentView | None:
        """Claim ``rec`` for performing it (``performing``, by ``by``), or None when it is not due
        (not approved, already claimed within its lease, performed, dismissed): whoever gets the
        incident back performs it; anyone else performs nothing."""
        claimed = False

        def change(incident: IncidentView) -> list[dict[str, Any]]:
            nonlocal claimed
            out = []
            for r in incident.recommendations:
                r = dict(r)
                if r.get("id") == rec and _due(r, incident, frozenset([rec] if allowed else []), now, lease):
                    if r.get("state") == PROPOSED:
                        r.update(decidedBy=BY_POLICY, decidedAt=now)
                    r.update(state=PERFORMING, claimedBy=by[:320], claimedAt=now)
                    claimed = True
                out.append(r)
            return out

        view = self.update_recommendations(incident_id, change, now)
        return view if claimed else None

    def finish_action(
        self, incident_id: str, rec: str, *, performed: bool, message: str, by: str, now: float
    ) -> IncidentView:
        """Record what became of a claimed recommendation: ``performed`` or ``refused``, with when,
        by whom and what was done (or why not). One not being performed is left as it is."""

        def change(incident: IncidentView) -> list[dict[str, Any]]:
            out = []
            for r in incident.recommendations:
                r = dict(r)
                if r.get("id") == rec and r.get("state") == PERFORMING:
                    r.update(
                        state=PERFORMED if performed else REFUSED,
                        performedBy=by[:320],
                        performedAt=now,
                        result=message[:1024],
                    )
                out.append(r)
            return out

        return self.update_recommendations(incident_id, change, now)

    def summary(self, monitor: str, *, first: int = 5) -> IncidentsSummary:
        """Open (and acknowledged, not yet resolved) incidents of ``monitor``."""

        def go() -> IncidentsSummary:
            with Session(self.engine) as s:
                rows = (
                    s.execute(
                        select(IncidentRow)
                        .where(IncidentRow.monitor == monitor, IncidentRow.state != RESOLVED)
                        .order_by(IncidentRow.opened_at, IncidentRow.id)
                    )
                    .scalars()
                    .all()
                )
                worst = max((Severity(r.severity) for r in rows), default=None)
                return IncidentsSummary(
                    len(rows), worst.value if worst else None, tuple(_view(r) for r in rows[:first])
                )

        return self._guard(go)

    def memory(self, key: str) -> Mapping[str, Any] | None:
        """A stored state document (:func:`breaker_key`, :func:`series_key`)."""

        def go() -> Mapping[str, Any] | None:
            with Session(self.engine) as s:
                row = s.get(NoticeStateRow, key)
                return (json.loads(row.document) or None) if row is not None else None

        return self._guard(go)

    def notices(self, monitor: str, *, limit: int = 200) -> list[NoticeView]:
        """The monitor's notices, oldest first, with each sink's delivery state."""

        def go() -> list[NoticeView]:
            with Session(self.engine) as s:
                rows = (
                    s.execute(
                        select(NoticeRow)
                        .where(NoticeRow.monitor == monitor)
                        .order_by(NoticeRow.id)
                        .limit(limit)
                    )
                    .scalars()
                    .all()
                )
                ids = [r.id for r in rows]
                states: dict[int, dict[str, str]] = {i: {} for i in ids}
                if ids:
                    for d in s.execute(select(DeliveryRow).where(DeliveryRow.notice_id.in_(ids))).scalars():
                        states[d.notice_id][d.sink] = d.state
                return [
                    NoticeView(
                        r.id,
                        r.monitor,
                        r.series,
                        r.kind,
                        r.severity,
                        tuple(json.loads(r.signatures)),
                        r.incident_id,
                        r.sent,
                        r.why_not,
                        json.loads(r.document),
                        r.created_at,
                        states[r.id],
                    )
                    for r in rows
                ]

        return self._guard(go)

    def forget_seen(self, before: float) -> int:
        """Drop the memory of evaluations handled before ``before`` (housekeeping)."""

        def go() -> int:
            with Session(self._writes) as s, s.begin():
                result = s.execute(delete(NoticeSeenRow).where(NoticeSeenRow.at < before))
                return int(getattr(result, "rowcount", 0) or 0)

        return self._guard(go)
