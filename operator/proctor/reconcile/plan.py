"""What a run needs next, decided from plain data (no Kubernetes, ``now`` passed in).

For each shard: done (the runner reported its results), running, create a Job (first attempt,
a deleted Job recreated, or a retry after backoff), wait for a retry, or give up. A harness failure
(a Job that failed or timed out) is retried with backoff 1, 5, 15, 60 minutes, at most five
attempts; after that the run ends Failed with verdict ERROR, never FAIL: the agent was not measured.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from proctor.api import TERMINAL_PHASES

#: Minutes between attempts after a failed one (seed 001's 1/5/15/60 backoff).
DEFAULT_BACKOFF = (60.0, 300.0, 900.0, 3600.0)
DEFAULT_MAX_ATTEMPTS = 5
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


def _failure(shard: ShardView, job: JobView) -> str:
    return shard.runner_message or job.message or f"Job {job.name} failed"


def plan_shard(
    shard: ShardView,
    now: dt.datetime,
    *,
    backoff: Sequence[float] = DEFAULT_BACKOFF,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> ShardPlan:
    if shard.runner_phase == "Succeeded" and shard.results:
        return ShardPlan(shard, Action.DONE, shard.attempts, JobPhase.SUCCEEDED)
    attempts = max([shard.attempts, *(j.attempt for j in shard.jobs)])
    if attempts == 0:
        return ShardPlan(shard, Action.CREATE, 1, JobPhase.MISSING)
    current = next((j for j in shard.jobs if j.attempt == attempts), None)
    if current is None:
        if shard.retry_at is None:
            # the Job of this attempt is gone but never failed: it was deleted, so recreate it
            return ShardPlan(shard, Action.CREATE, attempts, JobPhase.MISSING, message="the Job was deleted")
        return _retry(shard, attempts, shard.retry_at, now, max_attempts, shard.runner_message or "")
    if current.phase is JobPhase.ACTIVE:
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
