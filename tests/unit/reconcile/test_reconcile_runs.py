"""The EvalRun reconciler's decisions on plain data: Jobs as the planner sees them, the status of a
waiting, failed and decided run, provenance, and which baseline is a yardstick."""

from __future__ import annotations

import datetime as dt
from typing import Any

from proctor.api import (
    CaseSet,
    EvalRunStatus,
    FrozenBaseline,
    GatePolicy,
    Provenance,
    RunPhase,
    ShardStatus,
    TierRates,
    dump,
    get_condition,
)
from proctor.k8s.objects import LABEL_FINISHED, RunRef
from proctor.protocol import decide
from proctor.protocol.types import CaseResult, Failure, Tier
from proctor.reconcile.plan import Action, JobPhase, plan_run
from proctor.reconcile.records import comparable_provenance
from proctor.reconcile.runs import (
    comparable_baseline,
    decided_status,
    failed_status,
    finished_label_patch,
    forwards,
    gave_up_message,
    job_view,
    provenance,
    results_refs,
    running_reason,
    say_jobs,
    shard_entries,
    shard_views,
    waiting_status,
)
from proctor.reconcile.runtime import ObjectRef, Outcome

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
DIGEST = "sha256:" + "a" * 64
JUDGE = "sha256:" + "b" * 64


def job(attempt: int, conditions: list[dict[str, Any]] | None = None, **status: Any) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"r-judge-0-of-1-a{attempt}",
            "labels": {"proctor.dev/attempt": str(attempt), "proctor.dev/shard": "0-of-1"},
            "ownerReferences": [{"kind": "EvalRun", "uid": "uid-1", "name": "r"}],
        },
        "status": {"conditions": conditions or [], **status},
    }


def test_a_job_is_read_from_its_controllers_conditions() -> None:
    failed = job(
        2,
        [
            {
                "type": "Failed",
                "status": "True",
                "reason": "DeadlineExceeded",
                "message": "too long",
                "lastTransitionTime": "2026-03-01T11:59:00Z",
            }
        ],
    )
    view = job_view(failed)
    assert (view.attempt, view.phase, view.owner_uid) == (2, JobPhase.FAILED, "uid-1")
    assert view.message == "DeadlineExceeded: too long"
    assert view.finished_at == NOW - dt.timedelta(minutes=1)
    done = job_view(job(1, [{"type": "Complete", "status": "True"}], completionTime="2026-03-01T12:00:00Z"))
    assert (done.phase, done.finished_at) == (JobPhase.SUCCEEDED, NOW)
    assert job_view(job(1)).phase is JobPhase.ACTIVE


def test_shards_combine_what_the_runner_reported_with_their_jobs() -> None:
    status = EvalRunStatus.model_validate(
        {
            "shards": [
                {"name": "0/2", "phase": "Succeeded", "results": ["cm-0"], "attempts": 1},
                {"name": "1/2"},
            ]
        }
    )
    views = shard_views(status, 2, [job_view(job(1))])
    assert (views[0].runner_phase, views[0].results, views[0].attempts) == ("Succeeded", ("cm-0",), 1)
    assert views[1].runner_phase is None  # the operator's entry only: the runner said nothing yet
    assert [len(v.jobs) for v in views] == [0, 0]  # the job belongs to 0-of-1, not to these shards


def test_shard_entries_hold_only_what_the_operator_owns() -> None:
    plan = plan_run(shard_views(EvalRunStatus(), 1, []), NOW)
    (entry,) = shard_entries(plan, "r")
    assert dump(entry, only_set=True) == {
        "name": "0/1",
        "job": "r-judge-0-of-1-a1",
        "attempts": 1,
        "jobPhase": "Active",
    }


def test_a_waiting_run_keeps_its_start_and_says_why() -> None:
    base = EvalRunStatus(observed_generation=3, start_time=NOW)
    desired = waiting_status(
        EvalRunStatus(), base, RunPhase.PENDING, "CaseSetNotFound", "waiting: CaseSet x not found", NOW
    )
    out = dump(desired, only_set=True)
    assert (out["phase"], out["message"], out["startTime"], out["observedGeneration"]) == (
        "Pending",
        "waiting: CaseSet x not found",
        "2026-03-01T12:00:00Z",
        3,
    )
    cond = get_condition(desired.conditions, "Evaluated")
    assert cond is not None and (cond.status, cond.reason, cond.observed_generation) == (
        "False",
        "CaseSetNotFound",
        3,
    )
    assert set(out) == {"observedGeneration", "startTime", "phase", "message", "conditions"}


def test_running_says_retries_or_problems_first() -> None:
    plan = plan_run(shard_views(EvalRunStatus(), 2, []), NOW)
    assert running_reason(plan, 2, []) == ("ShardsRunning", "2 shard(s) running")
    assert running_reason(plan, 2, ["Job x exists but is not owned by this run; not adopted"])[1].startswith(
        "Job x"
    )


def test_a_failed_run_is_error_and_never_fail() -> None:
    desired = failed_status(
        EvalRunStatus(), EvalRunStatus(observed_generation=1), "m" * 2000, "ShardFailed", NOW
    )
    out = dump(desired, only_set=True)
    assert (out["phase"], out["verdict"], out["exitCode"]) == ("Failed", "ERROR", 2)
    assert len(out["message"]) == 1024 and out["completionTime"] == "2026-03-01T12:00:00Z"
    conds = {c.type: (c.status, c.reason) for c in desired.conditions}
    assert conds == {
        "Finished": ("True", "Failed"),
        "Evaluated": ("False", "EvaluationFailed"),
        "Passed": ("False", "NothingMeasured"),
        "Degraded": ("True", "ShardFailed"),
    }


def test_a_refused_run_is_error_with_the_permanent_reason() -> None:
    desired = failed_status(
        EvalRunStatus(),
        EvalRunStatus(observed_generation=1),
        "spec.caseSetRef: CaseSet x not found in namespace ns",
        "CaseSetNotFound",
        NOW,
    )
    conds = {c.type: (c.status, c.reason) for c in desired.conditions}
    assert conds["Finished"] == ("True", "Failed")
    assert conds["Evaluated"] == ("False", "CaseSetNotFound")
    assert conds["Degraded"] == ("True", "CaseSetNotFound")
    assert desired.verdict == "ERROR" and "spec.caseSetRef" in (desired.message or "")


def _policy(**spec: Any) -> GatePolicy:
    return GatePolicy.model_validate(
        {
            "metadata": {"name": "p"},
            "spec": {"caseSetRef": {"name": "cs"}, "candidate": {"port": 8080}, **spec},
        }
    )


def test_provenance_covers_cases_judge_and_scoring() -> None:
    prov = provenance(DIGEST, JUDGE, _policy())
    assert (prov.case_set, prov.judge_prompt) == (DIGEST, JUDGE)
    assert prov.scoring is not None and prov.digest is not None
    assert provenance(DIGEST, JUDGE, _policy(tiers={"trust": 80})).scoring != prov.scoring
    bare = provenance(None, None, None)
    assert (bare.case_set, bare.judge_prompt, bare.scoring) == (None, None, None)
    assert bare.digest is not None


def _caseset(baseline: FrozenBaseline | None) -> CaseSet:
    status = {"baseline": dump(baseline)} if baseline is not None else {}
    return CaseSet.model_validate(
        {
            "metadata": {"name": "cs"},
            "spec": {"cases": [{"id": "a", "tier": "safety", "input": "q"}]},
            "status": status,
        }
    )


def test_only_a_comparable_baseline_is_a_yardstick() -> None:
    prov = provenance(DIGEST, JUDGE, None)
    frozen = FrozenBaseline(
        tiers=TierRates(safety=100.0),
        frozen_from=["r1", "r2", "r3"],
        digest=DIGEST,
        provenance=comparable_provenance(prov),
        frozen_at=NOW,
    )
    baseline = comparable_baseline(_caseset(frozen), DIGEST, prov)
    assert baseline is not None and baseline.rates[Tier.SAFETY] == 100.0
    assert comparable_baseline(_caseset(frozen), "sha256:" + "c" * 64, prov) is None  # other cases
    other_judge = provenance(DIGEST, "sha256:" + "d" * 64, None)
    assert comparable_baseline(_caseset(frozen), DIGEST, other_judge) is None  # another judge
    assert comparable_baseline(_caseset(None), DIGEST, prov) is None
    assert comparable_baseline(_caseset(frozen), None, prov) is None


def test_results_name_every_configmap_and_count_cases_when_a_shard_has_one() -> None:
    status = EvalRunStatus(
        shards=[
            ShardStatus.model_validate({"name": "0/2", "results": ["a"], "summary": {"cases": 4}}),
            ShardStatus.model_validate({"name": "1/2", "results": ["b", "c"], "summary": {"cases": 9}}),
        ]
    )
    refs = results_refs(status, shard_views(status, 2, []))
    assert [(r.config_map, r.shard, r.cases) for r in refs] == [
        ("a", "0/2", 4),
        ("b", "1/2", 0),
        ("c", "1/2", 0),
    ]


def test_a_decided_run_carries_the_verdict_and_what_it_rests_on() -> None:
    results = [
        CaseResult("s", Tier.SAFETY, failures=(Failure("refusal", "did not refuse"),)),
        CaseResult("t", Tier.TRUST),
    ]
    decision = decide(results)
    status = EvalRunStatus.model_validate(
        {"shards": [{"name": "0/1", "phase": "Succeeded", "results": ["cm"]}]}
    )
    views = shard_views(status, 1, [])
    base = EvalRunStatus(observed_generation=1, start_time=NOW - dt.timedelta(minutes=2))
    prov = Provenance(case_set=DIGEST)
    desired = decided_status(status, base, decision, results, None, prov, views, NOW)
    out = dump(desired, only_set=True)
    assert (out["phase"], out["verdict"], out["exitCode"]) == ("Evaluated", "FAIL", 1)
    assert out["startTime"] == "2026-03-01T11:58:00Z" and out["completionTime"] == "2026-03-01T12:00:00Z"
    assert out["results"] == [{"configMap": "cm", "shard": "0/1", "cases": 0}]
    assert out["incident"]["signatures"][0] == "breach:safety"
    assert out["provenance"] == {"caseSet": DIGEST}
    assert {c["type"] for c in out["conditions"]} == {
        "Finished",
        "Evaluated",
        "Passed",
        "Breached",
        "Degraded",
    }
    assert plan_run(views, NOW).shards[0].action is Action.DONE


def test_a_phase_never_moves_backwards() -> None:
    assert forwards(None, RunPhase.PENDING) is RunPhase.PENDING
    assert forwards(RunPhase.RUNNING, RunPhase.PENDING) is RunPhase.RUNNING
    assert forwards(RunPhase.PENDING, RunPhase.RUNNING) is RunPhase.RUNNING
    assert forwards(RunPhase.RUNNING, RunPhase.FAILED) is RunPhase.FAILED
    # once over, over
    assert forwards(RunPhase.EVALUATED, RunPhase.RUNNING) is RunPhase.EVALUATED
    running = EvalRunStatus(phase=RunPhase.RUNNING)
    desired = waiting_status(running, EvalRunStatus(), RunPhase.PENDING, "Pending", "m", NOW)
    assert desired.phase is RunPhase.RUNNING


def test_a_shard_entry_never_names_a_job_that_was_not_made() -> None:
    # the runner reported, the Job is gone (TTL) and status lost the count: the recorded name stays
    status = EvalRunStatus.model_validate(
        {"shards": [{"name": "0/1", "phase": "Succeeded", "results": ["cm"], "job": "r-judge-0-of-1-a1"}]}
    )
    (entry,) = shard_entries(plan_run(shard_views(status, 1, []), NOW), "r")
    assert entry.job == "r-judge-0-of-1-a1"
    # nothing recorded and no Job listed: no name rather than an invented one (a0)
    bare = EvalRunStatus.model_validate(
        {"shards": [{"name": "0/1", "phase": "Succeeded", "results": ["cm"]}]}
    )
    (entry,) = shard_entries(plan_run(shard_views(bare, 1, []), NOW), "r")
    assert entry.job is None and "job" not in dump(entry, only_set=True)
    # the Job listed, status lost: its name and attempt
    (entry,) = shard_entries(
        plan_run(shard_views(bare, 1, [job_view(job(1, [{"type": "Complete", "status": "True"}]))]), NOW), "r"
    )
    assert (entry.job, entry.attempts) == ("r-judge-0-of-1-a1", 1)


def test_each_decision_about_jobs_is_said_under_one_name() -> None:
    failed = [
        {
            "type": "Failed",
            "status": "True",
            "reason": "BackoffLimitExceeded",
            "lastTransitionTime": "2026-03-01T11:59:30Z",  # the retry is due at 12:00:30
        }
    ]
    views = shard_views(
        EvalRunStatus.model_validate({"shards": [{"name": "0/1", "attempts": 1}]}),
        1,
        [job_view(job(1, failed))],
    )
    plan = plan_run(views, NOW)
    about = ObjectRef("EvalRun", "ns", "r", "uid-1")
    first, again = Outcome(), Outcome()
    say_jobs(about, RunRef("ns", "r", "uid-1"), plan, first)
    say_jobs(about, RunRef("ns", "r", "uid-1"), plan, again)
    assert [e.reason for e in first.events] == ["JobCreated", "ShardFailed"]
    assert [e.name for e in first.events] == [e.name for e in again.events]  # the same decisions
    assert len({e.name for e in first.events}) == 2
    assert "retry at" in first.events[1].message


def test_a_permanent_give_up_says_what_to_fix_and_that_it_was_not_retried() -> None:
    from proctor.reconcile.pods import StartProblem

    problem = StartProblem(
        "SecretNotFound",
        'judge pod x: container judge: CreateContainerConfigError: secret "k" not found',
        NOW,
    )
    views = shard_views(
        EvalRunStatus.model_validate({"shards": [{"name": "0/1", "attempts": 1}]}), 1, [job_view(job(1))]
    )
    plan = plan_run(
        [v.__class__(**{**{f: getattr(v, f) for f in v.__slots__}, "problem": problem}) for v in views], NOW
    )
    reason, message = gave_up_message(plan)
    assert reason == "SecretNotFound"
    assert message.startswith(
        'judge pod x: container judge: CreateContainerConfigError: secret "k" not found'
    )
    assert "not retried" in message


def test_a_finished_run_is_labelled_and_an_unfinished_one_never_is() -> None:
    """The operator's watch sends only runs without the label: a finished run gets it (and leaves
    the watch); an unfinished run that carries it (set by hand, any value) loses it."""
    labelled = {"metadata": {"labels": {LABEL_FINISHED: "true"}}}
    assert finished_label_patch({}, finished=True) == labelled
    assert finished_label_patch({LABEL_FINISHED: "no"}, finished=True) == labelled
    assert finished_label_patch({LABEL_FINISHED: "true", "team": "a"}, finished=True) is None
    unlabelled = {"metadata": {"labels": {LABEL_FINISHED: None}}}
    assert finished_label_patch({LABEL_FINISHED: "true"}, finished=False) == unlabelled
    assert finished_label_patch({LABEL_FINISHED: ""}, finished=False) == unlabelled
    assert finished_label_patch({"team": "a"}, finished=False) is None
