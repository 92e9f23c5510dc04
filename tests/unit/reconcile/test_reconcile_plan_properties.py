"""Properties of the shard planner, over arbitrary inputs and over simulated Job lifecycles."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.reconcile.plan import (
    Action,
    JobPhase,
    JobView,
    ShardView,
    plan_run,
    plan_shard,
)

T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
MAX = 4
BACKOFF = (60.0, 300.0, 900.0)

offsets = st.integers(0, 5000).map(lambda s: T0 + dt.timedelta(seconds=s))
phases = st.sampled_from(list(JobPhase))


@st.composite
def shards(draw: st.DrawFn, max_attempts: int = MAX) -> ShardView:
    attempts = draw(st.integers(0, max_attempts))
    job_attempts = draw(st.lists(st.integers(1, max_attempts), unique=True, max_size=max_attempts))
    jobs = tuple(
        JobView(
            f"j-a{a}",
            a,
            draw(phases),
            draw(st.none() | offsets),
            draw(st.sampled_from(["", "BackoffLimitExceeded", "DeadlineExceeded"])),
        )
        for a in sorted(job_attempts)
    )
    return ShardView(
        index=0,
        count=1,
        runner_phase=draw(st.sampled_from([None, "Running", "Succeeded", "Failed"])),
        runner_message=draw(st.sampled_from([None, "", "candidate unreachable"])),
        results=draw(st.sampled_from([(), ("cm-0",)])),
        attempts=attempts,
        retry_at=draw(st.none() | offsets),
        jobs=jobs,
    )


@given(shards(), offsets, st.integers(1, MAX))
def test_attempts_never_exceed_max(s: ShardView, now: dt.datetime, max_attempts: int) -> None:
    highest = max([s.attempts, *(j.attempt for j in s.jobs)])
    p = plan_shard(s, now, backoff=BACKOFF, max_attempts=max_attempts)
    if highest <= max_attempts:
        assert p.attempt <= max_attempts
    if p.action is Action.CREATE:
        # a new attempt only after the current one; never skipping one
        assert p.attempt in (highest, highest + 1)
        assert p.attempt <= max(max_attempts, highest)


@given(shards(), offsets)
def test_never_create_while_the_current_job_is_active(s: ShardView, now: dt.datetime) -> None:
    highest = max([s.attempts, *(j.attempt for j in s.jobs)])
    current = [j for j in s.jobs if j.attempt == highest]
    p = plan_shard(s, now, backoff=BACKOFF, max_attempts=MAX)
    if current and current[0].phase is JobPhase.ACTIVE:
        assert p.action is not Action.CREATE
        assert p.action in (Action.RUNNING, Action.DONE)


@given(shards(), offsets)
def test_give_up_only_on_the_last_attempt(s: ShardView, now: dt.datetime) -> None:
    p = plan_shard(s, now, backoff=BACKOFF, max_attempts=MAX)
    if p.action is Action.GIVE_UP:
        assert p.attempt >= MAX
        assert p.message.startswith(f"{p.attempt} attempts failed; last: ")
    if p.action is Action.WAIT:
        assert p.retry_at is not None and p.retry_at > now


@given(st.lists(shards(), max_size=4), offsets)
def test_the_planner_is_a_pure_function(views: list[ShardView], now: dt.datetime) -> None:
    views = [replace(v, index=i, count=len(views)) for i, v in enumerate(views)]
    first = plan_run(views, now, backoff=BACKOFF, max_attempts=MAX)
    again = plan_run(list(views), now, backoff=BACKOFF, max_attempts=MAX)
    assert first == again
    assert first.all_done == again.all_done
    waits = [p.retry_at for p in first.shards if p.action is Action.WAIT and p.retry_at is not None]
    assert first.next_wake == (min(waits) if waits else None)
    assert first.creates == tuple(p for p in first.shards if p.action is Action.CREATE)


# --- a simulated world: Jobs come and go, the operator applies each plan as runs.py does ----------


@dataclass
class World:
    now: dt.datetime = T0
    jobs: dict[int, JobView] = field(default_factory=dict)
    attempts: int = 0
    retry_at: dt.datetime | None = None
    runner_phase: str | None = None
    results: tuple[str, ...] = ()
    created: list[tuple[int, dt.datetime]] = field(default_factory=list)
    failed_at: dict[int, dt.datetime] = field(default_factory=dict)

    def view(self) -> ShardView:
        return ShardView(
            0,
            1,
            self.runner_phase,
            None,
            self.results,
            self.attempts,
            self.retry_at,
            tuple(self.jobs[a] for a in sorted(self.jobs)),
        )


EVENTS = st.sampled_from(["tick", "fail", "succeed-report", "succeed-silent", "delete"])


@settings(max_examples=500)
@given(st.lists(st.tuples(EVENTS, st.integers(1, 4000), st.booleans()), min_size=1, max_size=40))
def test_simulated_lifecycles_keep_the_invariants(steps: list[tuple[str, int, bool]]) -> None:
    w = World()
    finished = False
    for event, seconds, write_lost in steps:
        view = w.view()
        p = plan_run([view], w.now, backoff=BACKOFF, max_attempts=MAX).shards[0]
        current = w.jobs.get(max([view.attempts, *w.jobs], default=0))
        assert p.attempt <= MAX
        if p.action is Action.CREATE:
            assert current is None or current.phase is not JobPhase.ACTIVE
            assert p.attempt not in w.jobs  # only a missing Job is created
            if p.attempt > 1 and p.attempt - 1 in w.failed_at:
                # never before the backoff after the previous attempt failed
                delay = BACKOFF[min(p.attempt - 2, len(BACKOFF) - 1)]
                assert w.now >= w.failed_at[p.attempt - 1] + dt.timedelta(seconds=delay)
            w.jobs[p.attempt] = JobView(f"j-a{p.attempt}", p.attempt, JobPhase.ACTIVE)
            w.created.append((p.attempt, w.now))
        if p.action is Action.GIVE_UP:
            assert p.attempt == MAX
            assert MAX in w.failed_at
            finished = True
        if p.action is Action.DONE:
            assert w.results
            finished = True
        if finished:
            break
        if not write_lost:  # the status write, as runs.py records it (a write may fail)
            w.attempts, w.retry_at = p.attempt, p.retry_at
        w.now += dt.timedelta(seconds=seconds)
        active = [a for a, j in w.jobs.items() if j.phase is JobPhase.ACTIVE]
        if event == "fail" and active:
            a = active[-1]
            w.jobs[a] = JobView(f"j-a{a}", a, JobPhase.FAILED, w.now, "DeadlineExceeded")
            w.failed_at[a] = w.now
        elif event.startswith("succeed") and active:
            a = active[-1]
            w.jobs[a] = JobView(f"j-a{a}", a, JobPhase.SUCCEEDED, w.now)
            if event == "succeed-report":
                w.runner_phase, w.results = "Succeeded", ("cm-0",)
            else:
                w.failed_at[a] = w.now  # after REPORT_GRACE it counts as failed from its finish
        elif event == "delete" and w.jobs:
            w.jobs.pop(max(w.jobs))
    # attempts are created in order, and none twice unless its Job was deleted
    numbers = [a for a, _ in w.created]
    assert numbers == sorted(numbers)
    assert all(a <= MAX for a in numbers)
