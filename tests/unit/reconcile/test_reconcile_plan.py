"""The shard planner: what each shard needs next, from plain data and an injected clock."""

from __future__ import annotations

import datetime as dt

import pytest

from proctor.reconcile.plan import (
    DEFAULT_BACKOFF,
    DEFAULT_MAX_ATTEMPTS,
    REPORT_GRACE,
    Action,
    JobPhase,
    JobView,
    ShardView,
    plan_run,
    plan_shard,
)
from proctor.reconcile.pods import StartProblem

T0 = dt.datetime(2025, 1, 1, 12, 0, 0, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def job(attempt: int, phase: JobPhase, finished: float | None = None, message: str = "") -> JobView:
    return JobView(
        f"run-judge-0-of-1-a{attempt}",
        attempt,
        phase,
        None if finished is None else at(finished),
        message,
        owner_uid="uid-1",
    )


def shard(*jobs: JobView, index: int = 0, count: int = 1, **kw: object) -> ShardView:
    return ShardView(index=index, count=count, jobs=jobs, **kw)  # type: ignore[arg-type]


def test_defaults_are_the_documented_backoff() -> None:
    assert DEFAULT_BACKOFF == (60.0, 300.0, 900.0, 3600.0)
    assert DEFAULT_MAX_ATTEMPTS == 5
    assert shard().name == "0/1"
    assert shard(index=2, count=4).name == "2/4"


def test_first_attempt_is_created() -> None:
    p = plan_shard(shard(), T0)
    assert (p.action, p.attempt, p.job_phase) == (Action.CREATE, 1, JobPhase.MISSING)
    assert p.retry_at is None


def test_active_job_is_running() -> None:
    p = plan_shard(shard(job(1, JobPhase.ACTIVE), attempts=1), T0)
    assert (p.action, p.attempt, p.job_phase) == (Action.RUNNING, 1, JobPhase.ACTIVE)


def test_reported_shard_is_done_whatever_its_job() -> None:
    s = shard(job(2, JobPhase.ACTIVE), attempts=2, runner_phase="Succeeded", results=("cm-0",))
    p = plan_shard(s, at(10_000))
    assert (p.action, p.attempt, p.job_phase) == (Action.DONE, 2, JobPhase.SUCCEEDED)


def test_succeeded_without_results_is_not_done() -> None:
    s = shard(job(1, JobPhase.SUCCEEDED, finished=0), attempts=1, runner_phase="Succeeded")
    assert plan_shard(s, at(1)).action is Action.RUNNING


def test_completed_job_gets_a_grace_period_for_the_report() -> None:
    s = shard(job(1, JobPhase.SUCCEEDED, finished=0), attempts=1)
    grace = REPORT_GRACE.total_seconds()
    p = plan_shard(s, at(grace))
    assert (p.action, p.job_phase) == (Action.RUNNING, JobPhase.SUCCEEDED)


def test_completed_job_without_report_after_grace_counts_as_failed() -> None:
    s = shard(job(1, JobPhase.SUCCEEDED, finished=0), attempts=1)
    now = at(REPORT_GRACE.total_seconds() + 1)
    p = plan_shard(s, now)
    assert (p.action, p.attempt, p.job_phase) == (Action.WAIT, 1, JobPhase.FAILED)
    assert p.retry_at == at(DEFAULT_BACKOFF[0])  # from the Job's finish, not from now
    assert "without reporting" in p.message


def test_completed_job_without_report_on_last_attempt_gives_up() -> None:
    s = shard(job(3, JobPhase.SUCCEEDED, finished=0), attempts=3)
    p = plan_shard(s, at(REPORT_GRACE.total_seconds() + 1), max_attempts=3)
    assert p.action is Action.GIVE_UP
    assert p.message == "3 attempts failed; last: the judge exited without reporting its results"


def test_failed_job_waits_for_backoff_from_the_failure_time() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=100, message="DeadlineExceeded: too slow"), attempts=1)
    p = plan_shard(s, at(130))
    assert (p.action, p.attempt, p.job_phase) == (Action.WAIT, 1, JobPhase.FAILED)
    assert p.retry_at == at(100 + DEFAULT_BACKOFF[0])
    assert p.message == "DeadlineExceeded: too slow"


@pytest.mark.parametrize("attempt", [1, 2, 3, 4])
def test_backoff_grows_with_the_attempt(attempt: int) -> None:
    s = shard(job(attempt, JobPhase.FAILED, finished=0), attempts=attempt)
    p = plan_shard(s, T0)
    assert p.action is Action.WAIT
    assert p.retry_at == at(DEFAULT_BACKOFF[attempt - 1])


def test_backoff_past_its_end_reuses_the_last_delay() -> None:
    s = shard(job(3, JobPhase.FAILED, finished=0), attempts=3)
    p = plan_shard(s, T0, backoff=(1.0, 2.0), max_attempts=10)
    assert p.retry_at == at(2.0)


def test_empty_backoff_retries_at_once() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=0), attempts=1)
    p = plan_shard(s, at(0), backoff=())
    assert (p.action, p.attempt) == (Action.CREATE, 2)


def test_failed_job_without_finish_time_waits_from_now() -> None:
    s = shard(job(1, JobPhase.FAILED), attempts=1)
    p = plan_shard(s, at(500))
    assert p.retry_at == at(500 + DEFAULT_BACKOFF[0])


def test_recorded_retry_time_is_kept() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=0), attempts=1, retry_at=at(90))
    p = plan_shard(s, at(80))
    assert (p.action, p.retry_at) == (Action.WAIT, at(90))


def test_a_retry_time_left_from_an_earlier_attempt_does_not_cut_the_backoff() -> None:
    # attempt 1 failed at 0 (retryAt 60 recorded); attempt 2 was created at 60, but the status
    # write that clears retryAt was lost, and attempt 2 failed at 100
    s = shard(
        job(1, JobPhase.FAILED, finished=0),
        job(2, JobPhase.FAILED, finished=100),
        attempts=1,
        retry_at=at(60),
    )
    p = plan_shard(s, at(101))
    assert (p.action, p.attempt, p.retry_at) == (Action.WAIT, 2, at(100 + DEFAULT_BACKOFF[1]))


def test_wait_until_retry_at_then_create_the_next_attempt() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=0, message="OOMKilled"), attempts=1, retry_at=at(60))
    before = plan_shard(s, at(59))
    assert (before.action, before.attempt, before.retry_at) == (Action.WAIT, 1, at(60))
    exactly = plan_shard(s, at(60))
    assert (exactly.action, exactly.attempt, exactly.job_phase) == (Action.CREATE, 2, JobPhase.FAILED)
    assert exactly.message == "OOMKilled"
    later = plan_shard(s, at(600))
    assert (later.action, later.attempt) == (Action.CREATE, 2)


def test_failed_job_deleted_while_waiting_is_retried_at_retry_at() -> None:
    # the TTL removed the failed Job; the recorded retry time still stands
    s = shard(attempts=2, retry_at=at(300), runner_message="judge unreachable")
    waiting = plan_shard(s, at(299))
    assert (waiting.action, waiting.attempt, waiting.retry_at) == (Action.WAIT, 2, at(300))
    assert waiting.message == "judge unreachable"
    due = plan_shard(s, at(300))
    assert (due.action, due.attempt) == (Action.CREATE, 3)


def test_deleted_job_is_recreated_with_the_same_attempt() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=0), attempts=2)  # attempt 2's Job is gone
    p = plan_shard(s, at(10_000))
    assert (p.action, p.attempt, p.job_phase) == (Action.CREATE, 2, JobPhase.MISSING)
    assert "deleted" in p.message


def test_deleted_first_job_is_recreated_as_attempt_one() -> None:
    p = plan_shard(shard(attempts=1), T0)
    assert (p.action, p.attempt) == (Action.CREATE, 1)


def test_attempts_come_from_jobs_when_status_lags() -> None:
    # the status write after a create was lost: the Job itself says which attempt runs
    s = shard(job(1, JobPhase.FAILED, finished=0), job(2, JobPhase.ACTIVE), attempts=1, retry_at=at(60))
    p = plan_shard(s, at(120))
    assert (p.action, p.attempt, p.job_phase) == (Action.RUNNING, 2, JobPhase.ACTIVE)


def test_gives_up_after_max_attempts_naming_them_and_the_last_failure() -> None:
    s = shard(job(5, JobPhase.FAILED, finished=0, message="BackoffLimitExceeded: exit 1"), attempts=5)
    p = plan_shard(s, at(1))
    assert (p.action, p.attempt, p.job_phase) == (Action.GIVE_UP, 5, JobPhase.FAILED)
    assert p.message == "5 attempts failed; last: BackoffLimitExceeded: exit 1"


def test_give_up_respects_a_custom_max() -> None:
    s = shard(job(2, JobPhase.FAILED, finished=0, message="x"), attempts=2)
    assert plan_shard(s, T0, max_attempts=2).action is Action.GIVE_UP
    assert plan_shard(s, T0, max_attempts=3).action is Action.WAIT


def test_runner_message_is_preferred_over_the_jobs() -> None:
    s = shard(
        job(5, JobPhase.FAILED, finished=0, message="BackoffLimitExceeded"),
        attempts=5,
        runner_message="cannot reach the candidate on port 8080",
    )
    p = plan_shard(s, at(1))
    assert p.message == "5 attempts failed; last: cannot reach the candidate on port 8080"
    waiting = plan_shard(
        shard(
            job(1, JobPhase.FAILED, finished=0, message="BackoffLimitExceeded"),
            attempts=1,
            runner_message="r",
        ),
        at(1),
    )
    assert waiting.message == "r"


def test_failure_without_any_message_names_the_job() -> None:
    s = shard(job(1, JobPhase.FAILED, finished=0), attempts=1)
    assert plan_shard(s, at(1)).message == "Job run-judge-0-of-1-a1 failed"


def test_plan_run_wakes_at_the_earliest_retry_and_lists_creates() -> None:
    shards = [
        shard(job(1, JobPhase.FAILED, finished=0), index=0, count=4, attempts=1, retry_at=at(300)),
        shard(job(2, JobPhase.FAILED, finished=0), index=1, count=4, attempts=2, retry_at=at(120)),
        shard(index=2, count=4),
        shard(job(1, JobPhase.ACTIVE), index=3, count=4, attempts=1),
    ]
    run = plan_run(shards, at(10))
    assert [p.action for p in run.shards] == [Action.WAIT, Action.WAIT, Action.CREATE, Action.RUNNING]
    assert run.next_wake == at(120)
    assert [p.shard.index for p in run.creates] == [2]
    assert not run.all_done
    assert run.gave_up == ()


def test_plan_run_without_waits_has_no_wake() -> None:
    run = plan_run([shard(job(1, JobPhase.ACTIVE), attempts=1)], T0)
    assert run.next_wake is None
    assert run.creates == ()


def test_all_done_only_when_every_shard_reported_results() -> None:
    done = shard(index=0, count=2, attempts=1, runner_phase="Succeeded", results=("a",))
    assert plan_run(
        [done, shard(index=1, count=2, attempts=1, runner_phase="Succeeded", results=("b",))], T0
    ).all_done
    not_yet = shard(
        job(1, JobPhase.SUCCEEDED, finished=0), index=1, count=2, attempts=1, runner_phase="Running"
    )
    assert not plan_run([done, not_yet], at(1)).all_done
    empty = shard(
        job(1, JobPhase.SUCCEEDED, finished=0), index=1, count=2, attempts=1, runner_phase="Succeeded"
    )
    assert not plan_run([done, empty], at(1)).all_done


def test_plan_run_reports_the_shards_that_gave_up() -> None:
    failed = shard(job(2, JobPhase.FAILED, finished=0, message="m"), index=1, count=2, attempts=2)
    run = plan_run([shard(index=0, count=2), failed], at(1), max_attempts=2)
    assert [p.shard.index for p in run.gave_up] == [1]
    assert not run.all_done


def _run_obj(name: str, phase: str | None, completed: str | None = None) -> dict[str, object]:
    status = {"phase": phase, "completionTime": completed} if phase else {}
    return {"metadata": {"name": name}, "status": status}


def test_history_keeps_the_newest_finished_runs_and_never_unfinished_or_baseline_runs() -> None:
    from proctor.reconcile.plan import runs_to_prune

    runs = [
        _run_obj("a", "Evaluated", "2026-01-01T00:00:00Z"),
        _run_obj("b", "Failed", "2026-01-02T00:00:00Z"),
        _run_obj("c", "PartiallyEvaluated", "2026-01-03T00:00:00Z"),
        _run_obj("d", "Evaluated", "2026-01-04T00:00:00Z"),
        _run_obj("running", "Running"),
        _run_obj("new", None),
    ]
    assert runs_to_prune(runs, 2) == ["b", "a"]
    assert runs_to_prune(runs, 2, protected={"a"}) == ["b"]
    assert runs_to_prune(runs, 10) == []
    assert runs_to_prune(runs, 0) == ["d", "c", "b", "a"]


def test_history_keeps_the_runs_a_gate_policy_decides_from() -> None:
    """A canary pruned would drop the policy to Observe (and release the rollout it holds); an exam
    pruned would be run again: retention keeps both while a policy's status names them."""
    from proctor.api import GatePolicyStatus
    from proctor.reconcile.plan import gate_evidence, runs_to_prune

    policies = [
        GatePolicyStatus.model_validate(
            {
                "canary": {"required": 2, "runs": ["p-canary-g1-abc-1", "p-canary-g1-abc-2"]},
                "workloads": [{"name": "agent", "run": "agent-def-123456"}, {"name": "idle"}],
            }
        ),
        GatePolicyStatus(),
    ]
    kept = gate_evidence(policies)
    assert kept == {"p-canary-g1-abc-1", "p-canary-g1-abc-2", "agent-def-123456"}
    runs = [
        _run_obj("p-canary-g1-abc-1", "Evaluated", "2026-01-01T00:00:00Z"),
        _run_obj("old-exam", "Evaluated", "2026-01-02T00:00:00Z"),
        _run_obj("agent-def-123456", "Evaluated", "2026-01-03T00:00:00Z"),
        _run_obj("manual", "Evaluated", "2026-01-04T00:00:00Z"),
    ]
    assert runs_to_prune(runs, 1, protected=kept) == ["old-exam"]


# --- permanent failures: never retried --------------------------------------------------------------


def test_a_permanent_failure_the_runner_reported_gives_up_at_once_with_its_reason() -> None:
    s = shard(
        job(1, JobPhase.FAILED, finished=0),
        attempts=1,
        runner_phase="Failed",
        runner_reason="ConfigMapNotFound",
        runner_message="spec.target.responses.configMapRef: ConfigMap answers not found",
    )
    p = plan_shard(s, at(1))
    assert (p.action, p.reason, p.attempt) == (Action.GIVE_UP, "ConfigMapNotFound", 1)
    assert p.message == "spec.target.responses.configMapRef: ConfigMap answers not found"
    assert plan_run([s], at(1)).permanent == p
    # a reason no table calls permanent is a harness failure like any other: retried
    other = shard(
        job(1, JobPhase.FAILED, finished=0), attempts=1, runner_phase="Failed", runner_reason="Flaky"
    )
    assert plan_shard(other, at(1)).action is Action.WAIT


def test_a_start_problem_is_reported_until_its_grace_ends_then_gives_up() -> None:
    problem = StartProblem("SecretNotFound", 'secret "k" not found', fatal_at=at(30))
    s = shard(job(1, JobPhase.ACTIVE), attempts=1, problem=problem)
    waiting = plan_shard(s, at(10))
    assert (waiting.action, waiting.message, waiting.wake_at) == (
        Action.RUNNING,
        'secret "k" not found',
        at(30),
    )
    assert plan_run([s], at(10)).next_wake == at(30)  # looked at again when the grace ends
    over = plan_shard(s, at(30))
    assert (over.action, over.reason, over.message) == (
        Action.GIVE_UP,
        "SecretNotFound",
        'secret "k" not found',
    )
    reported = StartProblem("CrashLoopBackOff", "candidate crash-looping")  # never fatal
    p = plan_shard(shard(job(1, JobPhase.ACTIVE), attempts=1, problem=reported), at(10_000))
    assert (p.action, p.message, p.wake_at) == (Action.RUNNING, "candidate crash-looping", None)


def test_a_failed_attempt_says_how_its_judge_ended() -> None:
    s = shard(
        job(
            1,
            JobPhase.FAILED,
            finished=0,
            message="BackoffLimitExceeded: Job has reached the specified backoff limit",
        ),
        attempts=1,
        exit_detail="container judge exited 2 (Error): proctor judge: error: 403 Forbidden",
    )
    p = plan_shard(s, at(1))
    assert p.action is Action.WAIT
    assert p.message == (
        "BackoffLimitExceeded: Job has reached the specified backoff limit; "
        "container judge exited 2 (Error): proctor judge: error: 403 Forbidden"
    )


def test_a_failed_attempt_names_the_candidates_crash() -> None:
    crash = "candidate container agent exited 1 (Error): OSError: [Errno 98] Address already in use"
    s = shard(
        job(1, JobPhase.FAILED, finished=0, message="BackoffLimitExceeded"),
        attempts=1,
        runner_phase="Failed",
        runner_message="the candidate did not become ready on port 8080",
        candidate_detail=crash,
    )
    p = plan_shard(s, at(1))
    assert p.message == f"the candidate did not become ready on port 8080; {crash}"


def test_a_done_shard_counts_the_attempts_its_jobs_show_when_status_lost_them() -> None:
    # a kill between creating the Job and writing status: status says 0 attempts, the Job says 1
    s = shard(job(1, JobPhase.SUCCEEDED, finished=0), runner_phase="Succeeded", results=("cm",))
    p = plan_shard(s, at(1))
    assert (p.action, p.attempt) == (Action.DONE, 1)
