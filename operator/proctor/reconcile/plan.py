"""What a run needs next, decided from plain data (no Kubernetes, ``now`` passed in).

For each shard: done (the runner reported its results), running, create a Job (first attempt,
a deleted Job recreated, or a retry after backoff), wait for a retry, or give up. A harness failure
(a Job that failed or timed out) is retried with backoff 1, 5, 15, 60 minutes, at most five
attempts; after that the run ends Failed with verdict ERROR, never FAIL: the agent was not measured.

A permanent failure is never retried: the runner reported one of
:data:`~proctor.api.PERMANENT_REASONS` (a ConfigMap, key or profile that is not there, answers that
cannot be read), or the judge pod cannot start for a reason no retry fixes (:mod:`.pods`: a missing
Secret, an image that cannot run, a pod the API server refuses). The shard gives up at once, and the
run ends in ERROR with that reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from proctor.api import PERMANENT_REASONS, TERMINAL_PHASES, GatePolicyStatus
from proctor.protocol import MAX_ATTEMPTS, RETRY_BACKOFF_SECONDS
from proctor.reconcile.pods import StartProblem

# Seconds between attempts after a failed one, and how many there are: the run lifecycle's (seed
# 001's 1/5/15/60 minutes, five attempts), one schedule for live runs and exams alike.
DEFAULT_BACKOFF = RETRY_BACKOFF_SECONDS
DEFAULT_MAX_ATTEMPTS = MAX_ATTEMPTS
#: How long a Job may be Complete without its runner's report before it counts as failed.
REPORT_GRACE = dt.timedelta(seconds=30)


class JobPhase(StrEnum):
    ACTIVE = "Active"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    MISSING = "Missing"


@dataclass(frozen=True, slots=True)
class JobView:
    """One judge Job as seen in the API."""

    name: str
    attempt: int
    phase: JobPhase
    finished_at: dt.datetime | None = None
    message: str = ""
    owner_uid: str | None = None
    #: Its shard's label value (``0-of-2``).
    shard: str | None = None


@dataclass(frozen=True, slots=True)
class ShardView:
    """One shard: what the runner reported and what the operator recorded."""

    index: int
    count: int
    runner_phase: str | None = None
    runner_message: str | None = None
    results: tuple[str, ...] = ()
    attempts: int = 0
    retry_at: dt.datetime | None = None
    jobs: tuple[JobView, ...] = ()
    #: The runner's reason for a failure (CamelCase; permanent ones end the run at once).
    runner_reason: str | None = None
    #: The Job name the operator recorded for the shard (its Job may be gone: TTL).
    job: str | None = None
    #: Why the current attempt's pod is not running, if it is not (:func:`.pods.start_problem`).
    problem: StartProblem | None = None
    #: How the current attempt's judge container ended, when its Job failed (:func:`.pods.exit_detail`).
    exit_detail: str = ""
    #: How the candidate beside the judge crashed, when it did (:func:`.pods.candidate_detail`).
    candidate_detail: str = ""

    @property
    def permanent_failure(self) -> bool:
        """The runner reported a failure no retry can fix."""
        return self.runner_phase == "Failed" and self.runner_reason in PERMANENT_REASONS

    @property
    def name(self) -> str:
        return f"{self.index}/{self.count}"


class Action(StrEnum):
    DONE = "Done"
    RUNNING = "Running"
    CREATE = "Create"
    WAIT = "Wait"
    GIVE_UP = "GiveUp"


@dataclass(frozen=True, slots=True)
class ShardPlan:
    shard: ShardView
    action: Action
    attempt: int
    job_phase: JobPhase
    retry_at: dt.datetime | None = None
    message: str = ""
    #: A permanent reason when the shard gave up at once (None: it gave up after its attempts).
    reason: str | None = None
    #: When to look again sooner than the interval (a start problem's grace period ends).
    wake_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class RunPlan:
    shards: tuple[ShardPlan, ...]
    next_wake: dt.datetime | None = None
    creates: tuple[ShardPlan, ...] = field(default=())

    @property
    def all_done(self) -> bool:
        return all(p.action is Action.DONE for p in self.shards)

    @property
    def gave_up(self) -> tuple[ShardPlan, ...]:
        return tuple(p for p in self.shards if p.action is Action.GIVE_UP)

    @property
    def permanent(self) -> ShardPlan | None:
        """The first shard that gave up for a permanent reason (the run ends with its reason)."""
        return next((p for p in self.gave_up if p.reason is not None), None)


def _failure(shard: ShardView, job: JobView) -> str:
    """Why an attempt failed: the runner's own words, else how its container ended and the Job's."""
    if shard.runner_message:
        why = shard.runner_message
    else:
        why = job.message or f"Job {job.name} failed"
        why = f"{why}; {shard.exit_detail}" if shard.exit_detail else why
    return _with_candidate(shard, why)


def _with_candidate(shard: ShardView, why: str) -> str:
    """A failure's message with the candidate's crash, when it crashed (the cause the runner cannot see)."""
    return f"{why}; {shard.candidate_detail}" if shard.candidate_detail else why


def _give_up_now(shard: ShardView, attempts: int, reason: str, message: str) -> ShardPlan:
    return ShardPlan(shard, Action.GIVE_UP, attempts, JobPhase.FAILED, message=message, reason=reason)


def plan_shard(
    shard: ShardView,
    now: dt.datetime,
    *,
    backoff: Sequence[float] = DEFAULT_BACKOFF,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> ShardPlan:
    # the attempts are what the Jobs say as much as what status says: a kill between creating a Job
    # and writing status loses the count, never the Job (its attempt is in its name and labels)
    attempts = max([shard.attempts, *(j.attempt for j in shard.jobs)])
    if shard.runner_phase == "Succeeded" and shard.results:
        return ShardPlan(shard, Action.DONE, attempts, JobPhase.SUCCEEDED)
    if shard.permanent_failure:
        assert shard.runner_reason is not None
        why = _with_candidate(shard, shard.runner_message or shard.runner_reason)
        return _give_up_now(shard, attempts, shard.runner_reason, why)
    if attempts == 0:
        return ShardPlan(shard, Action.CREATE, 1, JobPhase.MISSING)
    current = next((j for j in shard.jobs if j.attempt == attempts), None)
    if current is None:
        if shard.retry_at is None:
            # the Job of this attempt is gone but never failed: it was deleted, so recreate it
            return ShardPlan(shard, Action.CREATE, attempts, JobPhase.MISSING, message="the Job was deleted")
        return _retry(shard, attempts, shard.retry_at, now, max_attempts, shard.runner_message or "")
    if current.phase is JobPhase.ACTIVE:
        problem = shard.problem
        if problem is not None and problem.fatal(now):
            return _give_up_now(shard, attempts, problem.reason, problem.message)
        if problem is not None:
            return ShardPlan(
                shard,
                Action.RUNNING,
                attempts,
                JobPhase.ACTIVE,
                message=problem.message,
                wake_at=problem.fatal_at,
            )
        return ShardPlan(shard, Action.RUNNING, attempts, JobPhase.ACTIVE)
    if current.phase is JobPhase.SUCCEEDED:
        if current.finished_at is not None and now - current.finished_at > REPORT_GRACE:
            failed = JobView(
                current.name,
                current.attempt,
                JobPhase.FAILED,
                current.finished_at,
                "the judge exited without reporting its results",
            )
            return _after_failure(shard, failed, attempts, now, backoff, max_attempts)
        return ShardPlan(shard, Action.RUNNING, attempts, JobPhase.SUCCEEDED)
    return _after_failure(shard, current, attempts, now, backoff, max_attempts)


def _after_failure(
    shard: ShardView,
    job: JobView,
    attempts: int,
    now: dt.datetime,
    backoff: Sequence[float],
    max_attempts: int,
) -> ShardPlan:
    message = _failure(shard, job)
    if attempts >= max_attempts:
        return ShardPlan(
            shard,
            Action.GIVE_UP,
            attempts,
            JobPhase.FAILED,
            message=f"{attempts} attempts failed; last: {message}",
        )
    finished = job.finished_at or now
    delay = backoff[min(attempts - 1, len(backoff) - 1)] if backoff else 0.0
    retry_at = finished + dt.timedelta(seconds=delay)
    # the recorded retryAt stands only if it was set after this failure: one left over from an
    # earlier attempt (the status write that cleared it was lost) must not cut the backoff short
    if shard.retry_at is not None and (job.finished_at is None or shard.retry_at > job.finished_at):
        retry_at = shard.retry_at
    return _retry(shard, attempts, retry_at, now, max_attempts, message, JobPhase.FAILED)


def _retry(
    shard: ShardView,
    attempts: int,
    retry_at: dt.datetime,
    now: dt.datetime,
    max_attempts: int,
    message: str,
    phase: JobPhase = JobPhase.MISSING,
) -> ShardPlan:
    if attempts >= max_attempts:
        return ShardPlan(
            shard, Action.GIVE_UP, attempts, phase, message=f"{attempts} attempts failed; last: {message}"
        )
    if now >= retry_at:
        return ShardPlan(shard, Action.CREATE, attempts + 1, phase, message=message)
    return ShardPlan(shard, Action.WAIT, attempts, phase, retry_at=retry_at, message=message)


def plan_run(
    shards: Sequence[ShardView],
    now: dt.datetime,
    *,
    backoff: Sequence[float] = DEFAULT_BACKOFF,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> RunPlan:
    plans = tuple(plan_shard(s, now, backoff=backoff, max_attempts=max_attempts) for s in shards)
    waits = [p.retry_at for p in plans if p.action is Action.WAIT and p.retry_at is not None]
    waits += [p.wake_at for p in plans if p.wake_at is not None]
    return RunPlan(plans, min(waits) if waits else None, tuple(p for p in plans if p.action is Action.CREATE))


def runs_to_prune(runs: Sequence[Mapping[str, Any]], keep: int, protected: Collection[str] = ()) -> list[str]:
    """Names of finished runs of one case set beyond the newest ``keep`` (run history retention).

    Unfinished runs are never pruned, nor runs a baseline was frozen from (``protected``).
    """
    done = [r for r in runs if (r.get("status") or {}).get("phase") in TERMINAL_PHASES]
    done.sort(
        key=lambda r: ((r.get("status") or {}).get("completionTime") or "", r["metadata"]["name"]),
        reverse=True,
    )
    return [r["metadata"]["name"] for r in done[max(keep, 0) :] if r["metadata"]["name"] not in protected]


def gate_evidence(policies: Sequence[GatePolicyStatus]) -> set[str]:
    """Names of the runs GatePolicies decide from now: their canary runs (what makes a policy
    enforce) and each gated Deployment's exam (what holds or approves it). History retention keeps
    them: a pruned canary would drop the policy back to Observe, a pruned exam would be run again."""
    names = {run for p in policies if p.canary is not None for run in p.canary.runs}
    return names | {w.run for p in policies for w in p.workloads if w.run}
