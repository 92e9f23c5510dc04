"""The edges of a live run's life: the policy's limits, the default lease, a re-evaluation's round."""

from __future__ import annotations

import pytest

from proctor.protocol import (
    MAX_ATTEMPTS,
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
    new_run,
    on_event,
    renew,
)

POLICY = LifecyclePolicy(quiescence_seconds=90)


def ready(now: float = 90.0, policy: LifecyclePolicy = POLICY) -> RunLifecycle:
    run = advance(new_run("r", 0.0, policy), now, policy)
    assert run.state is RunState.READY
    return run


def fail_until_left(
    run: RunLifecycle, now: float, policy: LifecyclePolicy = POLICY
) -> tuple[RunLifecycle, int]:
    """Fail every attempt, waiting out each backoff, until no retry is left; return the run and
    how many attempts it was given."""
    given = 0
    while True:
        run = finish(claim(run, now), AttemptOutcome.FAILED, now, policy, reason="judge down")
        given += 1
        if run.next_attempt_at is None:
            return run, given
        now = run.next_attempt_at
        run = advance(run, now, policy)


@pytest.mark.parametrize("bad", [0, -1])
def test_a_policy_without_an_attempt_is_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        LifecyclePolicy(max_attempts=bad)


def test_a_policy_of_one_attempt_tries_once_and_never_retries() -> None:
    policy = LifecyclePolicy(quiescence_seconds=90, max_attempts=1)
    run, given = fail_until_left(ready(policy=policy), 90.0, policy)
    assert given == 1 and run.state is RunState.EVALUATION_FAILED and not run.retries_left


def test_a_negative_backoff_is_refused_and_a_zero_one_retries_at_once() -> None:
    with pytest.raises(ValueError, match="retry_backoff"):
        LifecyclePolicy(retry_backoff=(60.0, -1.0))
    with pytest.raises(ValueError, match="retry_backoff"):
        LifecyclePolicy(retry_backoff=())
    policy = LifecyclePolicy(quiescence_seconds=0, retry_backoff=(0.0,))
    run = finish(claim(ready(0.0, policy), 0.0), AttemptOutcome.FAILED, 10.0, policy)
    assert run.next_attempt_at == 10.0
    assert advance(run, 10.0, policy).state is RunState.READY


def test_a_claim_lasts_five_minutes_unless_renewed() -> None:
    # README, collector flags: `--lease S`, default 300 ("how long a claim on a run lasts unless renewed")
    run = claim(ready(), 90.0)
    assert due_at(run, POLICY) == 390.0
    assert advance(run, 389.9, POLICY).state is RunState.EVALUATING
    assert advance(run, 390.0, POLICY).state is RunState.EVALUATION_FAILED
    renewed = renew(run, 300.0)
    assert due_at(renewed, POLICY) == 600.0
    assert advance(renewed, 599.0, POLICY).state is RunState.EVALUATING


def test_a_run_being_evaluated_is_due_when_its_lease_expires() -> None:
    # the worker's poll wakes for it then: a vanished worker's run must not wait for an event
    run = claim(ready(), 90.0, lease_seconds=60)
    assert due_at(run, POLICY) == 150.0


def test_an_interrupted_attempt_without_a_wait_is_claimable_at_once() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.INTERRUPTED, 95.0, POLICY)
    assert run.state is RunState.READY and claimable(run, 95.0)


def test_a_run_of_many_events_still_gets_its_one_re_evaluation() -> None:
    run = new_run("r", 0.0, POLICY)
    run = on_event(run, 1.0, POLICY)
    run = on_event(run, 2.0, POLICY)  # events while it is still receiving: nothing evaluated is stale
    assert not run.stale
    run = advance(run, 92.0, POLICY)
    run = finish(claim(run, 92.0), AttemptOutcome.EVALUATED, 93.0, POLICY)
    run = on_event(run, 200.0, POLICY)
    assert run.state is RunState.RECEIVING and run.stale


def test_a_run_not_sampled_stays_so_however_many_events_it_receives() -> None:
    policy = LifecyclePolicy(quiescence_seconds=90, sampling=0.0)
    run = new_run("r", 0.0, policy)
    for t in (1.0, 2.0, 3.0):
        run = on_event(run, t, policy)
    assert advance(run, 93.0, policy).state is RunState.NOT_SAMPLED


def test_the_re_evaluation_after_a_late_event_gets_a_full_round_of_attempts() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.EVALUATED, 91.0, POLICY)
    run = advance(on_event(run, 200.0, POLICY), 290.0, POLICY)
    assert run.state is RunState.READY and run.attempts == 0
    _, given = fail_until_left(run, 290.0)
    assert given == MAX_ATTEMPTS


def test_the_re_evaluation_after_an_event_during_evaluation_gets_a_full_round_of_attempts() -> None:
    run = on_event(claim(ready(), 90.0), 95.0, POLICY)
    run = finish(run, AttemptOutcome.EVALUATED, 96.0, POLICY)
    assert run.state is RunState.RECEIVING and run.attempts == 0
    run = advance(run, 185.0, POLICY)
    _, given = fail_until_left(run, 185.0)
    assert given == MAX_ATTEMPTS


def test_a_negative_wait_is_refused_and_a_zero_receiving_gap_quiesces_at_the_first_silence() -> None:
    for bad in ({"receiving_gap": -0.5}, {"quiescence_seconds": -1.0}):
        with pytest.raises(ValueError, match="must be >= 0"):
            LifecyclePolicy(**bad)  # type: ignore[arg-type]
    for gap in (0.0, 0.5):
        policy = LifecyclePolicy(quiescence_seconds=90, receiving_gap=gap)
        run = new_run("r", 0.0, policy)
        assert advance(run, gap, policy).state is RunState.QUIESCING


def test_a_policy_cannot_be_changed_past_its_checks() -> None:
    with pytest.raises(AttributeError):
        POLICY.max_attempts = 0  # type: ignore[misc]
    assert POLICY.max_attempts == MAX_ATTEMPTS


def test_a_run_not_sampled_but_asked_for_is_re_evaluated_after_a_late_event() -> None:
    policy = LifecyclePolicy(quiescence_seconds=90, sampling=0.0)
    run = advance(new_run("r", 0.0, policy), 90.0, policy)
    assert run.state is RunState.NOT_SAMPLED
    run = finish(claim(evaluate_now(run, 100.0), 100.0), AttemptOutcome.EVALUATED, 101.0, policy)
    run = on_event(run, 200.0, policy)
    assert advance(run, 290.0, policy).state is RunState.READY  # its one re-evaluation, not NotSampled


def test_a_run_is_due_exactly_when_time_alone_next_moves_it() -> None:
    # the collector's worker sleeps until due_at: earlier wastes polls, later delays a verdict
    run = new_run("r", 10.0, POLICY)
    assert run.state is RunState.RECEIVING and due_at(run, POLICY) == 15.0
    run = advance(run, 15.0, POLICY)
    assert run.state is RunState.QUIESCING and due_at(run, POLICY) == 100.0
    run = advance(run, 100.0, POLICY)
    assert run.state is RunState.READY and due_at(run, POLICY) == 100.0
    run = finish(claim(run, 100.0), AttemptOutcome.FAILED, 110.0, POLICY)
    assert due_at(run, POLICY) == 170.0  # the first retry, a minute on
    late = on_event(run, 150.0, POLICY)  # and a late event: the quiescence wait comes first
    assert due_at(late, POLICY) == 240.0
    assert advance(late, 239.0, POLICY).state is RunState.EVALUATION_FAILED
    assert advance(late, 240.0, POLICY).state is RunState.READY


def test_only_a_failed_run_waiting_for_its_next_attempt_has_retries_left() -> None:
    failed = finish(claim(ready(), 90.0), AttemptOutcome.FAILED, 91.0, POLICY)
    assert failed.retries_left
    interrupted = finish(claim(ready(), 90.0), AttemptOutcome.INTERRUPTED, 91.0, POLICY, retry_after=30)
    assert interrupted.next_attempt_at is not None and not interrupted.retries_left


def test_a_failed_run_advanced_after_its_retry_time_is_ready() -> None:
    # the worker polls: it is seldom there at the exact second
    run = finish(claim(ready(), 90.0), AttemptOutcome.FAILED, 91.0, POLICY)
    assert run.next_attempt_at == 151.0
    assert advance(run, 170.0, POLICY).state is RunState.READY


def test_a_late_event_after_the_final_one_restarts_the_wait_but_not_receiving() -> None:
    run = new_run("r", 0.0, POLICY, final=True)
    run = on_event(run, 10.0, POLICY)  # the agent said it was done: a straggler, not a new turn
    assert run.state is RunState.QUIESCING
    assert advance(run, 99.0, POLICY).state is RunState.QUIESCING
    assert advance(run, 100.0, POLICY).state is RunState.READY


def test_a_negative_wait_after_an_interruption_is_no_wait() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.INTERRUPTED, 95.0, POLICY, retry_after=-5)
    assert claimable(run, 95.0) and due_at(run, POLICY) == 95.0


def test_evaluate_now_on_a_retrying_run_brings_it_forward_in_the_same_round() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.FAILED, 91.0, POLICY)
    run = evaluate_now(run, 92.0)
    assert run.state is RunState.READY and run.attempts == 1 and claimable(run, 92.0)
    _, given = fail_until_left(run, 92.0)
    assert given == MAX_ATTEMPTS - 1  # a person's request is not a fresh round while one is running


def test_by_default_a_run_is_judged_after_90_silent_seconds() -> None:
    # seed 001 ("about 90 seconds"); README's AgentMonitor example: quiescenceSeconds: 90
    policy = LifecyclePolicy()
    run = new_run("r", 0.0, policy)
    assert advance(run, 89.9, policy).state is RunState.QUIESCING
    assert advance(run, 90.0, policy).state is RunState.READY


@pytest.mark.parametrize("bad", [-0.1, 1.1, -1.0, 2.0])
def test_a_sampling_rate_outside_0_1_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="sampling"):
        LifecyclePolicy(sampling=bad)


@pytest.mark.parametrize("rate", [0.0, 0.25, 0.5, 1.0])
def test_every_sampling_rate_within_0_1_is_accepted(rate: float) -> None:
    assert LifecyclePolicy(sampling=rate).sampling == rate


def test_a_run_cannot_be_changed_in_place() -> None:
    run = new_run("r", 0.0, POLICY)
    with pytest.raises(AttributeError):
        run.attempts = 99  # type: ignore[misc]
    assert advance(run, 1000.0, POLICY) is not run and run.state is RunState.RECEIVING


def test_a_late_event_while_a_failed_run_waits_to_retry_is_read_by_the_retry() -> None:
    # the retry reads every event stored so far: the late one is not stale, and the run keeps
    # its one automatic re-evaluation for events after it is evaluated
    run = finish(claim(ready(), 90.0), AttemptOutcome.FAILED, 91.0, POLICY)
    run = on_event(run, 100.0, POLICY)
    assert run.state is RunState.EVALUATION_FAILED and not run.stale
    run = advance(run, 190.0, POLICY)
    run = finish(claim(run, 190.0), AttemptOutcome.EVALUATED, 191.0, POLICY)
    assert on_event(run, 300.0, POLICY).state is RunState.RECEIVING


def test_an_event_for_a_run_left_failed_starts_its_one_new_round() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.FAILED, 91.0, POLICY, permanent=True)
    run = on_event(run, 100.0, POLICY)
    assert run.state is RunState.RECEIVING and run.stale and run.attempts == 0


def test_a_run_whose_wait_is_over_stays_claimable() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.INTERRUPTED, 91.0, POLICY, retry_after=30)
    assert not claimable(run, 120.9)
    assert claimable(run, 121.0) and claimable(run, 500.0)


def test_a_request_is_used_up_by_the_evaluation_it_asked_for() -> None:
    run = evaluate_now(new_run("r", 0.0, POLICY), 1.0)
    run = finish(claim(run, 1.0), AttemptOutcome.EVALUATED, 2.0, POLICY)
    run = advance(on_event(run, 10.0, POLICY), 100.0, POLICY)  # its re-evaluation, after the wait
    assert run.state is RunState.READY and not run.requested
    # a later event sends it back to wait, as for any run no one asked for
    assert on_event(run, 101.0, POLICY).state is RunState.RECEIVING


def test_only_a_run_being_evaluated_can_have_its_lease_renewed() -> None:
    with pytest.raises(LifecycleError):
        renew(ready(), 100.0)
    assert renew(claim(ready(), 90.0), 100.0).state is RunState.EVALUATING


def test_a_run_left_failed_is_due_never() -> None:
    run, _ = fail_until_left(ready(), 90.0)
    assert due_at(run, POLICY) is None  # only an event or a person moves it now


def test_a_lease_found_expired_late_still_fails_the_attempt() -> None:
    run = claim(ready(), 90.0, lease_seconds=60)
    assert advance(run, 1000.0, POLICY).state is RunState.EVALUATION_FAILED


def test_a_late_event_does_not_send_an_interrupted_run_back_to_wait() -> None:
    run = finish(claim(ready(), 90.0), AttemptOutcome.INTERRUPTED, 91.0, POLICY, retry_after=30)
    run = on_event(run, 100.0, POLICY)
    assert run.state is RunState.READY and claimable(run, 121.0)
