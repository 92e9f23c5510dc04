"""The life of a live run (seed 001): quiescence, retries, evaluate now, stale runs, sampling."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.protocol import (
    MAX_ATTEMPTS,
    RETRY_BACKOFF_SECONDS,
    AttemptOutcome,
    LifecycleError,
    LifecyclePolicy,
    RunLifecycle,
    RunState,
    advance,
    claim,
    claimable,
    due_at,
    evaluate_now,
    finish,
    is_sampled,
    new_run,
    on_event,
)

POLICY = LifecyclePolicy(quiescence_seconds=90)


def evaluated(now: float = 100.0) -> RunLifecycle:
    run = advance(new_run("r", 0.0, POLICY), now, POLICY)
    run = claim(run, now)
    return finish(run, AttemptOutcome.EVALUATED, now + 1, POLICY)


def test_a_run_waits_its_quiescence_before_it_is_ready() -> None:
    run = new_run("r", 0.0, POLICY)
    assert run.state is RunState.RECEIVING
    assert advance(run, 4.9, POLICY).state is RunState.RECEIVING
    assert advance(run, 5.0, POLICY).state is RunState.QUIESCING
    assert advance(run, 89.9, POLICY).state is RunState.QUIESCING
    assert advance(run, 90.0, POLICY).state is RunState.READY


def test_a_late_event_sends_a_quiescing_run_back_to_receiving_and_restarts_the_wait() -> None:
    run = advance(new_run("r", 0.0, POLICY), 60.0, POLICY)
    assert run.state is RunState.QUIESCING
    run = on_event(run, 80.0, POLICY)
    assert run.state is RunState.RECEIVING
    assert advance(run, 169.0, POLICY).state is RunState.QUIESCING
    assert advance(run, 170.0, POLICY).state is RunState.READY


def test_a_final_event_starts_quiescing_at_once_but_still_waits_for_late_events() -> None:
    run = new_run("r", 0.0, POLICY, final=True)
    assert run.state is RunState.QUIESCING
    assert advance(run, 89.0, POLICY).state is RunState.QUIESCING


def test_failed_attempts_retry_after_1_5_15_60_minutes_then_stop() -> None:
    assert RETRY_BACKOFF_SECONDS == (60.0, 300.0, 900.0, 3600.0) and MAX_ATTEMPTS == 5
    run = advance(new_run("r", 0.0, POLICY), 90.0, POLICY)
    now = 90.0
    waits = []
    for attempt in range(1, 6):
        run = finish(claim(run, now), AttemptOutcome.FAILED, now, POLICY, reason="judge down")
        assert run.state is RunState.EVALUATION_FAILED and run.attempts == attempt
        if run.next_attempt_at is None:
            break
        waits.append(run.next_attempt_at - now)
        assert advance(run, run.next_attempt_at - 0.1, POLICY).state is RunState.EVALUATION_FAILED
        now = run.next_attempt_at
        run = advance(run, now, POLICY)
        assert run.state is RunState.READY
    assert waits == [60.0, 300.0, 900.0, 3600.0]
    assert run.attempts == 5 and not run.retries_left
    assert advance(run, now + 10**6, POLICY).state is RunState.EVALUATION_FAILED


def test_a_permanent_failure_is_not_retried_but_can_be_asked_for() -> None:
    run = claim(advance(new_run("r", 0.0, POLICY), 90.0, POLICY), 90.0)
    run = finish(run, AttemptOutcome.FAILED, 91.0, POLICY, reason="no judge", permanent=True)
    assert run.state is RunState.EVALUATION_FAILED and not run.retries_left and run.attempts == 1
    assert advance(run, 10**6, POLICY).state is RunState.EVALUATION_FAILED
    assert evaluate_now(run, 100.0).state is RunState.READY


def test_a_late_event_revives_a_run_left_failed_once() -> None:
    """A run failed for "nothing to judge" whose output then arrives is judged (issue 24)."""
    run = claim(advance(new_run("r", 0.0, POLICY), 90.0, POLICY), 90.0)
    run = finish(run, AttemptOutcome.FAILED, 91.0, POLICY, reason="nothing to judge", permanent=True)
    run = on_event(run, 100.0, POLICY, final=True)
    assert run.state is RunState.QUIESCING and run.stale and run.attempts == 0
    run = claim(advance(run, 190.0, POLICY), 190.0)
    run = finish(run, AttemptOutcome.FAILED, 191.0, POLICY, reason="nothing to judge", permanent=True)
    assert on_event(run, 200.0, POLICY).state is RunState.EVALUATION_FAILED  # once only
    exhausted = claim(advance(new_run("s", 0.0, POLICY), 90.0, POLICY), 90.0)
    exhausted = finish(exhausted, AttemptOutcome.FAILED, 91.0, POLICY, permanent=True)
    during = on_event(claim(evaluate_now(exhausted, 92.0), 92.0), 93.0, POLICY)  # output while judged
    after = finish(during, AttemptOutcome.FAILED, 94.0, POLICY, reason="nothing to judge", permanent=True)
    assert after.state is RunState.RECEIVING and after.reevaluated is False and after.stale


def test_an_interrupted_attempt_uses_no_attempt_up() -> None:
    run = claim(advance(new_run("r", 0.0, POLICY), 90.0, POLICY), 90.0)
    run = finish(run, AttemptOutcome.INTERRUPTED, 91.0, POLICY, retry_after=30)
    assert run.state is RunState.READY and run.attempts == 0
    assert not claimable(run, 120.0) and claimable(run, 121.0)


def test_a_vanished_worker_uses_an_attempt_when_its_lease_expires() -> None:
    run = claim(advance(new_run("r", 0.0, POLICY), 90.0, POLICY), 90.0, lease_seconds=60)
    assert advance(run, 149.0, POLICY).state is RunState.EVALUATING
    run = advance(run, 150.0, POLICY)
    assert run.state is RunState.EVALUATION_FAILED and run.attempts == 1
    assert run.last_error is not None and "lease" in run.last_error


def test_evaluate_now_brings_a_receiving_run_forward() -> None:
    run = evaluate_now(new_run("r", 0.0, POLICY), 1.0)
    assert run.state is RunState.READY and claimable(run, 1.0)
    # a late event does not push an explicitly requested run back into quiescence
    assert on_event(run, 2.0, POLICY).state is RunState.READY


def test_evaluate_now_gives_a_run_left_failed_a_fresh_round() -> None:
    run = advance(new_run("r", 0.0, POLICY), 90.0, POLICY)
    run = replace(run, attempts=MAX_ATTEMPTS - 1)
    run = finish(claim(run, 90.0), AttemptOutcome.FAILED, 90.0, POLICY)
    assert not run.retries_left
    run = evaluate_now(run, 100.0)
    assert run.state is RunState.READY and run.attempts == 0


def test_an_event_after_evaluated_marks_it_stale_and_re_evaluates_it_once() -> None:
    run = evaluated()
    assert run.state is RunState.EVALUATED
    run = on_event(run, 200.0, POLICY)
    assert run.stale and run.state is RunState.RECEIVING
    run = advance(run, 290.0, POLICY)
    assert run.state is RunState.READY
    run = finish(claim(run, 290.0), AttemptOutcome.EVALUATED, 291.0, POLICY)
    assert run.state is RunState.EVALUATED and not run.stale and run.reevaluated
    run = on_event(run, 400.0, POLICY)
    assert run.state is RunState.EVALUATED and run.stale  # marked, not evaluated again
    assert due_at(run, POLICY) is None


def test_an_event_during_evaluation_re_evaluates_once_afterwards() -> None:
    run = claim(advance(new_run("r", 0.0, POLICY), 90.0, POLICY), 90.0)
    run = on_event(run, 95.0, POLICY)
    assert run.state is RunState.EVALUATING and run.stale
    run = finish(run, AttemptOutcome.PARTIAL, 96.0, POLICY)
    assert run.state is RunState.RECEIVING
    assert advance(run, 185.0, POLICY).state is RunState.READY


def test_a_run_not_sampled_is_kept_but_never_judged_unless_asked() -> None:
    policy = LifecyclePolicy(quiescence_seconds=0, sampling=0.0)
    run = new_run("r", 0.0, policy)
    assert run.state is RunState.NOT_SAMPLED
    assert advance(on_event(run, 10.0, policy), 1000.0, policy).state is RunState.NOT_SAMPLED
    assert evaluate_now(run, 11.0).state is RunState.READY


def test_claiming_a_run_that_is_not_ready_is_refused() -> None:
    with pytest.raises(LifecycleError):
        claim(new_run("r", 0.0, POLICY), 1.0)
    with pytest.raises(LifecycleError):
        finish(new_run("r", 0.0, POLICY), AttemptOutcome.EVALUATED, 1.0, POLICY)


def test_sampling_is_deterministic_monotone_and_near_its_rate() -> None:
    ids = [f"exec-{i}" for i in range(4000)]
    at_10 = {i for i in ids if is_sampled(i, 0.1)}
    assert at_10 == {i for i in ids if is_sampled(i, 0.1)}
    assert at_10 <= {i for i in ids if is_sampled(i, 0.3)}
    assert 320 <= len(at_10) <= 480
    assert all(is_sampled(i, 1.0) for i in ids) and not any(is_sampled(i, 0.0) for i in ids)


# --- properties over any sequence of what can happen to a run ---------------------------------

Step = tuple[str, float, AttemptOutcome | None]
steps = st.lists(
    st.tuples(
        st.sampled_from(["event", "final", "tick", "claim", "finish", "now"]),
        st.floats(min_value=0, max_value=4000, allow_nan=False),
        st.sampled_from(list(AttemptOutcome)) | st.none(),
    ),
    max_size=40,
)


def play(policy: LifecyclePolicy, script: list[Step]) -> list[tuple[str, RunLifecycle, RunLifecycle, float]]:
    """Apply the script in time order; return (operation, before, after, now) for every step."""
    now = 0.0
    run = new_run("run-x", now, policy)
    trace = []
    for op, dt, outcome in script:
        now += dt
        before = run
        if op in ("event", "final"):
            run = on_event(run, now, policy, final=op == "final")
        elif op == "tick":
            run = advance(run, now, policy)
        elif op == "claim" and claimable(advance(run, now, policy), now):
            run = claim(advance(run, now, policy), now)
        elif op == "finish" and run.state is RunState.EVALUATING and outcome is not None:
            run = finish(run, outcome, now, policy, retry_after=dt)
        elif op == "now":
            run = evaluate_now(run, now)
        trace.append((op, before, run, now))
    return trace


policies = st.builds(
    LifecyclePolicy,
    quiescence_seconds=st.sampled_from([0.0, 1.0, 90.0, 600.0]),
    sampling=st.sampled_from([0.0, 0.5, 1.0]),
)


@settings(max_examples=300, deadline=None)
@given(policies, steps)
def test_attempts_never_exceed_the_maximum(policy: LifecyclePolicy, script: list[Step]) -> None:
    for _, _, after, _ in play(policy, script):
        assert 0 <= after.attempts <= policy.max_attempts


@settings(max_examples=300, deadline=None)
@given(policies, steps)
def test_advance_is_idempotent_and_due_at_is_when_it_acts(
    policy: LifecyclePolicy, script: list[Step]
) -> None:
    for _, _, after, now in play(policy, script):
        once = advance(after, now, policy)
        assert advance(once, now, policy) == once
        due = due_at(once, policy)
        if due is not None and due > now:
            assert advance(once, (now + due) / 2, policy) == once


@settings(max_examples=300, deadline=None)
@given(policies, steps)
def test_nothing_is_judged_before_its_quiescence_unless_asked(
    policy: LifecyclePolicy, script: list[Step]
) -> None:
    for _op, before, after, now in play(policy, script):
        if after.state is RunState.EVALUATING and before.state is not RunState.EVALUATING:
            asked = before.requested or any(o == "now" for o, *_ in script)
            assert asked or now - after.last_event_at >= policy.quiescence_seconds


@settings(max_examples=300, deadline=None)
@given(policies, steps)
def test_without_evaluate_now_a_run_is_re_evaluated_at_most_once(
    policy: LifecyclePolicy, script: list[Step]
) -> None:
    script = [s for s in script if s[0] != "now"]
    rounds = 0
    for _, before, after, _ in play(policy, script):
        if (
            before.state in (RunState.EVALUATED, RunState.PARTIALLY_EVALUATED, RunState.EVALUATION_FAILED)
            and after.state is RunState.RECEIVING
        ):
            rounds += 1
        if before.state is RunState.EVALUATING and after.state is RunState.RECEIVING:
            rounds += 1
    assert rounds <= 1


@settings(max_examples=300, deadline=None)
@given(policies, steps)
def test_an_interrupted_attempt_keeps_the_attempt_count(policy: LifecyclePolicy, script: list[Step]) -> None:
    for op, before, after, _ in play(policy, script):
        if op == "finish" and before.state is RunState.EVALUATING and after.state is RunState.READY:
            assert after.attempts == before.attempts
