"""The evaluation worker: drives the run lifecycle and judges each run that is ready.

Every ``poll`` seconds (or at once when woken by "evaluate now"), it applies the transitions time
has made (quiescence ends, retries come due, leases expire), claims as many ready runs as it has
free slots, and judges them concurrently. A claim is a lease in the database, renewed while the
judge works, so on PostgreSQL several collector replicas share the queue and a run is never
judged twice; a replica that dies loses its leases and its runs are retried by the others. On
shutdown, runs still being judged are handed back without using an attempt up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import socket
import time
from collections.abc import Callable, Sequence
from typing import Final

import structlog

from proctor.api import SeriesScope
from proctor.collector.detectors import (
    LIVE_SERIES_SECONDS,
    detector_config,
    observe,
    series_session,
    session_of,
)
from proctor.collector.evaluate import Evaluation, Evaluator
from proctor.collector.export import EvaluatedRun, EvaluationExporter, evaluated_span, evaluation_records
from proctor.collector.incidents import IncidentEngine, JudgedRun
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import Monitor, Registry
from proctor.protocol import DEFAULT_LEASE_SECONDS, AttemptOutcome, Detection
from proctor.store import TRAJECTORY_METRICS, Claim, RunNotFound, Store, StoreUnavailable, Trajectory

log = structlog.get_logger("proctor.collector.worker")

DEFAULT_CONCURRENCY: Final = 8
DEFAULT_POLL_SECONDS: Final = 1.0


def _unless_stopping() -> None:
    """Raise CancelledError when this task is being cancelled (the collector is stopping): what an
    evaluation returned or raised meanwhile may be the shutdown's doing, never the run's result;
    :meth:`Worker._shutdown` hands the run back untouched instead."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def worker_id() -> str:
    """This process's name in leases: host and pid (unique among replicas)."""
    return f"{socket.gethostname()}:{os.getpid()}"[:128]


class Worker:
    """Claims and judges runs until :meth:`run`'s ``stop`` is set."""

    def __init__(
        self,
        store: Store,
        registry: Callable[[], Registry],
        evaluator: Evaluator,
        metrics: Metrics,
        *,
        name: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        poll: float = DEFAULT_POLL_SECONDS,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        exporter: EvaluationExporter | None = None,
        incidents: IncidentEngine | None = None,
    ) -> None:
        self.store = store
        self.incidents = incidents
        self.exporter = exporter
        self.registry = registry
        self.evaluator = evaluator
        self.metrics = metrics
        self.name = name or worker_id()
        self.concurrency = concurrency
        self.poll = poll
        self.lease_seconds = lease_seconds
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._claims: dict[str, Claim] = {}
        self._wake = asyncio.Event()
        self.evaluated = 0

    def wake(self) -> None:
        """Look for work now (a run was brought forward)."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        last_renew = time.monotonic()
        caught_up = False
        while not stop.is_set():
            if not caught_up:
                caught_up = await self._catch_up()
            now = time.time()
            try:
                await asyncio.to_thread(self.store.queue.advance_due, now)
                free = self.concurrency - len(self._tasks)
                claims = (
                    await asyncio.to_thread(
                        self.store.queue.claim, self.name, now, limit=free, lease_seconds=self.lease_seconds
                    )
                    if free > 0
                    else []
                )
                if self._claims and time.monotonic() - last_renew > self.lease_seconds / 3:
                    lost = await asyncio.to_thread(
                        self.store.queue.renew,
                        list(self._claims.values()),
                        time.time(),
                        lease_seconds=self.lease_seconds,
                    )
                    for run in lost:
                        log.warning("lost the lease on a run: another worker took it over", run=run)
                    last_renew = time.monotonic()
            except StoreUnavailable as e:
                self.metrics.database_errors.inc()
                log.warning("database unavailable; the worker waits", error=str(e))
                claims = []
            for c in claims:
                self._claims[c.run_id] = c
                task = asyncio.create_task(self._evaluate(c), name=f"evaluate-{c.run_id}")
                self._tasks[c.run_id] = task
                task.add_done_callback(functools.partial(self._done, c.run_id))
            if claims and len(self._tasks) < self.concurrency:
                continue  # there may be more ready runs: claim again at once
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.poll)
        await self._shutdown()

    def _done(self, run: str, _task: object = None) -> None:
        self._tasks.pop(run, None)
        self._claims.pop(run, None)
        self._wake.set()

    async def _shutdown(self) -> None:
        held = dict(self._claims)
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        for c in held.values():
            with contextlib.suppress(Exception):
                await asyncio.to_thread(
                    self.store.queue.complete,
                    c,
                    AttemptOutcome.INTERRUPTED,
                    time.time(),
                    reason="the collector stopped during the evaluation; it is judged again",
                )

    async def _evaluate(self, c: Claim) -> None:
        started = time.monotonic()
        monitor = self.registry().get(c.monitor)
        trajectory: Trajectory | None = None
        if monitor is None:
            ev = Evaluation(
                AttemptOutcome.FAILED, reason=f"AgentMonitor {c.monitor} is no longer served", permanent=True
            )
        else:
            try:
                trajectory = await asyncio.to_thread(self.store.runs.trajectory, c.run_id)
                ev = await self.evaluator.evaluate(monitor, trajectory)
                _unless_stopping()
            except StoreUnavailable as e:
                ev = Evaluation(AttemptOutcome.INTERRUPTED, reason=str(e))
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a bug must not kill the worker: the attempt fails, with the cause
                _unless_stopping()  # an error the shutdown caused is no verdict on the run
                log.exception("evaluation failed", run=c.run_id)
                ev = Evaluation(
                    AttemptOutcome.FAILED, reason=f"evaluation error: {type(e).__name__}: {e}"[:1000]
                )
        stored = await self._record(c, ev)
        if stored is None:
            return
        if not stored:
            log.warning("the run's lease was lost before its evaluation was recorded", run=c.run_id)
            return
        self.evaluated += 1
        self._observe(c, ev, time.monotonic() - started)
        if monitor is not None and ev.scores:
            detections = await self._detect(c, monitor, trajectory)
            if detections is not None and self.incidents is not None:
                await self._notice(c, monitor, ev, trajectory, detections)
        if self.exporter is not None and ev.scores:
            run = EvaluatedRun(
                c.run_id, c.monitor, c.agent, c.revision, provenance=str(ev.provenance.get("digest", ""))
            )
            span = evaluated_span(trajectory.spans) if trajectory is not None else None
            self.exporter.submit(evaluation_records(run, ev.scores, span, time.time()))

    async def _catch_up(self) -> bool:
        """Step the series of the last hour's evaluations stored but never stepped (a collector
        stopped in between), oldest first, at most 500; False while the database is away."""
        try:
            since = time.time() - LIVE_SERIES_SECONDS
            pending = await asyncio.to_thread(self.store.detectors.unstepped, since)
            monitors = self.registry()
            for evaluation, name, run_id in pending:
                monitor = monitors.get(name)
                if monitor is None:
                    continue
                resource = monitor.resource
                try:
                    run = await asyncio.to_thread(self.store.runs.get_run, run_id)
                except RunNotFound:
                    continue
                session = None
                if resource.spec.detectors.by is SeriesScope.SESSION:
                    session = session_of(await asyncio.to_thread(self.store.runs.trajectory, run_id))
                kept = series_session(resource, run, session)
                step = functools.partial(self.store.detectors.step, session=kept)
                await asyncio.to_thread(step, evaluation, detector_config(resource), time.time())
            if pending:
                log.info("stepped the detectors of evaluations left unstepped", evaluations=len(pending))
        except StoreUnavailable as e:
            self.metrics.database_errors.inc()
            log.warning("cannot catch the detectors up yet: the database is away", error=str(e))
            return False
        return True

    async def _detect(
        self, c: Claim, monitor: Monitor, trajectory: Trajectory | None
    ) -> Sequence[Detection] | None:
        """Step the run's detector series with its stored evaluation (see :mod:`.detectors`). A
        database that is away skips the step (the scores are stored: a recompute replays them);
        None then, which is no verdict on the run (never "clean")."""
        try:
            run = await asyncio.to_thread(self.store.runs.get_run, c.run_id)
            session = session_of(trajectory) if trajectory is not None else None
            detections = await observe(self.store, monitor, run, time.time(), session=session)
        except StoreUnavailable as e:
            self.metrics.database_errors.inc()
            log.warning("cannot step the detectors: the database is away", run=c.run_id, error=str(e))
            return None
        stepped = [*(s.dimension for s in run.scores if s.score is not None), *TRAJECTORY_METRICS]
        fired = [(d.metric, d.signature) for d in detections]
        self.metrics.detected(c.monitor, c.agent, c.revision or "", stepped, fired)
        if detections:
            log.info("detectors fired", run=c.run_id, signatures=sorted({d.signature for d in detections}))
        return detections

    async def _notice(
        self,
        c: Claim,
        monitor: Monitor,
        ev: Evaluation,
        trajectory: Trajectory | None,
        detections: Sequence[Detection],
    ) -> None:
        """Incidents and notices from the run's detections (recorded here; sent by the Sender)."""
        assert self.incidents is not None
        run = JudgedRun(c.run_id, f"{c.run_id}:{c.evaluation_id}", c.agent, c.revision, ev.scores, trajectory)
        try:
            await self.incidents.handle(monitor, run, detections, time.time())
        except StoreUnavailable as e:
            self.metrics.database_errors.inc()
            log.warning("cannot record the run's incidents and notices", run=c.run_id, error=str(e))
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug here must not fail the run's evaluation, which is stored
            log.exception("incidents and notices failed", run=c.run_id)

    async def _record(self, c: Claim, ev: Evaluation) -> bool | None:
        """Write the attempt's result; while the database is away, try again (1, 2, 4... 15 s
        apart) for as long as the lease lasts, so a database that restarts costs no attempt and
        leaves no run Evaluating. None: it never came back in time (the lease then expires)."""
        deadline = time.monotonic() + self.lease_seconds
        delay = 1.0
        while True:
            try:
                return await asyncio.to_thread(
                    self.store.queue.complete,
                    c,
                    ev.outcome,
                    time.time(),
                    scores=ev.scores,
                    provenance=ev.provenance,
                    signals=ev.signals,
                    reason=ev.reason,
                    retry_after=5.0 if ev.outcome is AttemptOutcome.INTERRUPTED else 0.0,
                    judge_calls=ev.judge_calls,
                    judgments=ev.judgments,
                    breaches=ev.breaches,
                    permanent=ev.permanent,
                )
            except StoreUnavailable as e:
                self.metrics.database_errors.inc()
                if time.monotonic() + delay > deadline:
                    log.warning(
                        "cannot record an evaluation: the database stayed away; the lease expires",
                        run=c.run_id,
                        error=str(e),
                    )
                    return None
                log.warning(
                    "cannot record an evaluation yet: retrying while the database is away",
                    run=c.run_id,
                    error=str(e),
                    retry_in=delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 15.0)

    def _observe(self, c: Claim, ev: Evaluation, seconds: float) -> None:
        m = self.metrics
        revision = c.revision or ""
        m.by_revision(m.evaluations, c.monitor, c.agent, revision, ev.outcome.value).inc()
        m.evaluation_seconds.labels(c.monitor).observe(seconds)
        m.judge_calls.labels(c.monitor).inc(ev.judge_calls)
        m.judgments.labels(c.monitor).inc(ev.judgments)
        for s in ev.scores:
            labels = (c.monitor, c.agent, revision, s.dimension)
            if s.score is None:
                m.by_revision(m.skipped, *labels).inc()
            else:
                m.by_revision(m.score, *labels).observe(s.score)
                if s.score < s.threshold:
                    m.by_revision(m.breaches, *labels).inc()
