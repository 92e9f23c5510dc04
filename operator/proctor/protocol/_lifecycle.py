"""The life of a live run (seed 001 "A run's life"), as pure functions of plain data.

A run is everything that shares one execution id. It moves through these states::

    Receiving --(silent for the receiving gap, or a final event)--> Quiescing
    Quiescing --(no event for quiescenceSeconds)--> ReadyForEvaluation   (or NotSampled)
    Quiescing --(a late event)--> Receiving
    ReadyForEvaluation --(a worker claims it)--> Evaluating
    Evaluating --> Evaluated | PartiallyEvaluated | EvaluationFailed
    EvaluationFailed --(after 1, 5, 15, 60 minutes; at most five attempts)--> ReadyForEvaluation

- An attempt that scored nothing is ``EvaluationFailed`` and is retried on the backoff schedule;
  after the fifth it is left failed, so a dead judge provider cannot spin forever. A judge call
  that was rate-limited or timed out is retried by the judge client *inside* the attempt; an
  attempt the worker could not carry out at all (it shut down, the judge asked it to wait before
  starting) is ``INTERRUPTED``: the run goes back to the queue without using an attempt up. A worker
  that vanished (its lease expired) did use one: a run that kills its workers must stop too.
- "Evaluate now" brings a run forward from any state but Evaluating (a person asked, so a run left
  failed gets a fresh round of attempts).
- An event after the run finished (evaluated, or left failed: a run failed for "nothing to judge"
  may be receiving its output late) marks it stale and starts one new round (again after the
  quiescence wait); later events only mark it stale.
- Sampling is decided per run, deterministically from its id (:func:`is_sampled`), when its
  quiescence ends: a run that is not sampled is ``NotSampled`` (stored, counted, never judged)
  unless someone asks for it.

Time is seconds since the epoch, passed in (``now``); events count from when they arrived, not
from the agent's clock. Every function returns a new :class:`RunLifecycle`; nothing here does I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

#: Seconds without an event before a run ends (seed 001: "about 90 seconds").
DEFAULT_QUIESCENCE_SECONDS: Final = 90.0
#: Seconds before attempts 2, 3, 4 and 5 of a failed evaluation (1, 5, 15, 60 minutes).
RETRY_BACKOFF_SECONDS: Final[tuple[float, ...]] = (60.0, 300.0, 900.0, 3600.0)
#: Attempts of one evaluation round before the run is left failed.
MAX_ATTEMPTS: Final = 5
#: A run silent this long (or for its whole quiescence, when that is shorter) is Quiescing:
#: events have stopped and the quiescence wait is running.
RECEIVING_GAP_SECONDS: Final = 5.0
#: Why a run whose lease expired failed: the worker vanished, or lost the database for longer than
#: the lease (a worker that can reach it records its result, retrying while the database restarts).
LEASE_EXPIRED_REASON: Final = (
    "the evaluation's lease expired before a result was recorded: the worker stopped, or could not "
    "reach the database for the whole lease"
)
#: How long a worker's claim on a run lasts unless renewed.
DEFAULT_LEASE_SECONDS: Final = 300.0


class RunState(StrEnum):
    """Where a live run is in its life (the names are the seed's, written as status writes them)."""

    RECEIVING = "Receiving"
    QUIESCING = "Quiescing"
    READY = "ReadyForEvaluation"
    EVALUATING = "Evaluating"
    EVALUATED = "Evaluated"
    PARTIALLY_EVALUATED = "PartiallyEvaluated"
    EVALUATION_FAILED = "EvaluationFailed"
    NOT_SAMPLED = "NotSampled"


#: Every state, in the order of a run's life (status counts runs in this order).
RUN_STATES: Final[tuple[RunState, ...]] = tuple(RunState)
#: States in which the run carries a finished evaluation.
EVALUATED_STATES: Final = frozenset({RunState.EVALUATED, RunState.PARTIALLY_EVALUATED})


class AttemptOutcome(StrEnum):
    """How one evaluation attempt ended."""

    EVALUATED = "evaluated"  # every dimension scored
    PARTIAL = "partial"  # some dimensions skipped with a reason; the scores that came are real
    FAILED = "failed"  # no dimension could be scored: uses an attempt, retried with backoff
    INTERRUPTED = "interrupted"  # the attempt could not be carried out: back to the queue, no attempt used


class LifecycleError(ValueError):
    """An operation that the run's state does not allow (claiming a run that is not ready...)."""


@dataclass(frozen=True, slots=True)
class LifecyclePolicy:
    """The knobs of the lifecycle (an AgentMonitor's quiescence and sampling, the retry schedule)."""

    quiescence_seconds: float = DEFAULT_QUIESCENCE_SECONDS
    sampling: float = 1.0
    retry_backoff: tuple[float, ...] = RETRY_BACKOFF_SECONDS
    max_attempts: int = MAX_ATTEMPTS
    receiving_gap: float = RECEIVING_GAP_SECONDS

    def __post_init__(self) -> None:
        if self.quiescence_seconds < 0 or self.receiving_gap < 0:
            raise ValueError("quiescence_seconds and receiving_gap must be >= 0")
        if not 0.0 <= self.sampling <= 1.0:
            raise ValueError(f"sampling must be within 0-1, got {self.sampling}")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if not self.retry_backoff or any(b < 0 for b in self.retry_backoff):
            raise ValueError("retry_backoff needs at least one delay, none negative")

    @property
    def gap(self) -> float:
        """Silence after which a run counts as Quiescing (never longer than the quiescence)."""
        return min(self.receiving_gap, self.quiescence_seconds)

    def backoff(self, attempts: int) -> float:
        """Seconds before the attempt after ``attempts`` failed ones (the last delay repeats)."""
        return self.retry_backoff[min(attempts, len(self.retry_backoff)) - 1]


@dataclass(frozen=True, slots=True)
class RunLifecycle:
    """The lifecycle state of one run.

    ``attempts`` counts the attempts of the current evaluation round; ``stale`` says events arrived
    after the stored evaluation (or during it) began; ``reevaluated`` that the one automatic
    re-evaluation was used; ``requested`` that someone asked to evaluate it now; ``finished`` that
    the agent said it was done (a final event).
    """

    run_id: str
    state: RunState
    first_event_at: float
    last_event_at: float
    since: float
    sampled: bool = True
    attempts: int = 0
    next_attempt_at: float | None = None
    lease_expires_at: float | None = None
    stale: bool = False
    reevaluated: bool = False
    requested: bool = False
    finished: bool = False
    last_error: str | None = None

    @property
    def retries_left(self) -> bool:
        """Whether a failed run will be tried again on its own."""
        return self.state is RunState.EVALUATION_FAILED and self.next_attempt_at is not None


def is_sampled(run_id: str, rate: float) -> bool:
    """Whether a run is judged under sampling ``rate`` (0-1): the same answer for the same id every
    time, on every replica; a run sampled at a rate is sampled at every higher rate."""
    if rate >= 1.0:
        return True
    if rate <= 0.0:
        return False
    digest = hashlib.sha256(run_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64 < rate


def new_run(run_id: str, now: float, policy: LifecyclePolicy, *, final: bool = False) -> RunLifecycle:
    """A run whose first event just arrived."""
    run = RunLifecycle(
        run_id=run_id,
        state=RunState.RECEIVING,
        first_event_at=now,
        last_event_at=now,
        since=now,
        sampled=is_sampled(run_id, policy.sampling),
        finished=final,
    )
    return advance(run, now, policy)


def on_event(run: RunLifecycle, now: float, policy: LifecyclePolicy, *, final: bool = False) -> RunLifecycle:
    """A new event of ``run`` arrived at ``now`` (a resent one is not new: do not call this)."""
    run = replace(run, last_event_at=max(run.last_event_at, now), finished=run.finished or final)
    state = run.state
    if state is RunState.QUIESCING or (state is RunState.READY and not run.requested):
        run = replace(run, state=RunState.RECEIVING, since=now)
    elif state is RunState.EVALUATING:
        run = replace(run, stale=True)
    elif state in EVALUATED_STATES or (state is RunState.EVALUATION_FAILED and run.next_attempt_at is None):
        # finished, whatever its end: a run failed for "nothing to judge" may now have its output
        if run.reevaluated:
            run = replace(run, stale=True)
        else:  # the one automatic re-evaluation: a new round, after the quiescence wait
            run = replace(run, state=RunState.RECEIVING, since=now, stale=True, attempts=0, finished=final)
    # Receiving stays; a retrying EvaluationFailed waits for its quiescence too (see advance);
    # NotSampled stays not sampled: the decision is per run, not per event.
    return advance(run, now, policy)


def advance(run: RunLifecycle, now: float, policy: LifecyclePolicy) -> RunLifecycle:
    """Every transition that time alone makes by ``now``. Idempotent: advancing twice to the same
    ``now`` changes nothing more."""
    if run.state is RunState.RECEIVING and (run.finished or now - run.last_event_at >= policy.gap):
        run = replace(run, state=RunState.QUIESCING, since=now)
    if run.state is RunState.QUIESCING and now - run.last_event_at >= policy.quiescence_seconds:
        if run.sampled or run.requested or run.stale:
            run = replace(run, state=RunState.READY, since=now, next_attempt_at=None)
        else:
            run = replace(run, state=RunState.NOT_SAMPLED, since=now)
    if run.state is RunState.EVALUATING and run.lease_expires_at is not None and now >= run.lease_expires_at:
        run = finish(
            run,
            AttemptOutcome.FAILED,
            now,
            policy,
            reason=LEASE_EXPIRED_REASON,
        )
    if (
        run.state is RunState.EVALUATION_FAILED
        and run.next_attempt_at is not None
        and now >= run.next_attempt_at
        and now - run.last_event_at >= policy.quiescence_seconds
    ):
        run = replace(run, state=RunState.READY, since=now, next_attempt_at=None)
    return run


def due_at(run: RunLifecycle, policy: LifecyclePolicy) -> float | None:
    """When :func:`advance` will next change ``run`` on its own (None: only an event or a person can).

    A ready run is due when it may be claimed.
    """
    state = run.state
    if state is RunState.RECEIVING:
        return run.last_event_at + policy.gap
    if state is RunState.QUIESCING:
        return run.last_event_at + policy.quiescence_seconds
    if state is RunState.READY:
        return run.next_attempt_at if run.next_attempt_at is not None else run.since
    if state is RunState.EVALUATING:
        return run.lease_expires_at
    if state is RunState.EVALUATION_FAILED and run.next_attempt_at is not None:
        return max(run.next_attempt_at, run.last_event_at + policy.quiescence_seconds)
    return None


def claimable(run: RunLifecycle, now: float) -> bool:
    """Whether a worker may claim ``run`` at ``now``."""
    return run.state is RunState.READY and (run.next_attempt_at is None or run.next_attempt_at <= now)


def claim(run: RunLifecycle, now: float, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> RunLifecycle:
    """A worker starts an attempt: Evaluating, with a lease until ``now + lease_seconds``.

    The evaluation reads every event stored so far, so the run stops being stale; if it was stale
    this is its one automatic re-evaluation.
    """
    if not claimable(run, now):
        raise LifecycleError(f"run {run.run_id} is {run.state}, not ready for evaluation")
    return replace(
        run,
        state=RunState.EVALUATING,
        since=now,
        lease_expires_at=now + lease_seconds,
        next_attempt_at=None,
        reevaluated=run.reevaluated or run.stale,
        stale=False,
        requested=False,
    )


def renew(run: RunLifecycle, now: float, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> RunLifecycle:
    """The worker is still at it: extend the lease."""
    if run.state is not RunState.EVALUATING:
        raise LifecycleError(f"run {run.run_id} is {run.state}, not being evaluated")
    return replace(run, lease_expires_at=now + lease_seconds)


def finish(
    run: RunLifecycle,
    outcome: AttemptOutcome,
    now: float,
    policy: LifecyclePolicy,
    *,
    reason: str | None = None,
    retry_after: float = 0.0,
    permanent: bool = False,
) -> RunLifecycle:
    """The attempt ended with ``outcome`` (``reason`` says why it was partial, failed or interrupted).

    INTERRUPTED puts the run back in the queue, claimable after ``retry_after`` seconds, with its
    attempts unchanged. A ``permanent`` failure (a profile without a judge, a run with nothing to
    judge: a retry cannot fix it) is left failed at once; "evaluate now" can still try again. A
    stale run that finished (evaluated, or left failed) goes round once more (see :func:`on_event`).
    """
    if run.state is not RunState.EVALUATING:
        raise LifecycleError(f"run {run.run_id} is {run.state}, not being evaluated")
    done = replace(run, lease_expires_at=None, since=now, last_error=reason)
    if outcome is AttemptOutcome.INTERRUPTED:
        return replace(
            done,
            state=RunState.READY,
            next_attempt_at=now + max(0.0, retry_after),
            requested=True,  # it was ready: a late event must not send it back to quiescence
        )
    attempts = run.attempts + 1
    if outcome is AttemptOutcome.FAILED:
        retry = now + policy.backoff(attempts) if attempts < policy.max_attempts and not permanent else None
        done = replace(done, state=RunState.EVALUATION_FAILED, attempts=attempts, next_attempt_at=retry)
    else:
        state = RunState.EVALUATED if outcome is AttemptOutcome.EVALUATED else RunState.PARTIALLY_EVALUATED
        done = replace(done, state=state, attempts=attempts, next_attempt_at=None)
    if run.stale and not run.reevaluated and done.next_attempt_at is None:
        # events arrived while the first evaluation ran: it goes round once more
        done = replace(done, state=RunState.RECEIVING, attempts=0)
        return advance(done, now, policy)
    return done


def evaluate_now(run: RunLifecycle, now: float) -> RunLifecycle:
    """Someone asked to evaluate the run now: it is ready at once (a finished run starts a new
    round of attempts). A run being evaluated is left alone."""
    if run.state is RunState.EVALUATING:
        return run
    new_round = run.state in EVALUATED_STATES or (
        run.state is RunState.EVALUATION_FAILED and run.next_attempt_at is None
    )
    return replace(
        run,
        state=RunState.READY,
        since=now,
        next_attempt_at=None,
        requested=True,
        attempts=0 if new_round else run.attempts,
    )
