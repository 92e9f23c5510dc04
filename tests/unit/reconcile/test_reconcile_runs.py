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
from proctor.protocol import decide
from proctor.protocol.types import CaseResult, Failure, Tier
from proctor.reconcile.plan import Action, JobPhase, plan_run
from proctor.reconcile.records import comparable_provenance
from proctor.reconcile.runs import (
    comparable_baseline,
    decided_status,
    failed_status,
    job_view,
    provenance,
    results_refs,
    running_reason,
    shard_entries,
    shard_views,
    waiting_status,
)

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
    views = shard_views(status, 2, [job(1)])
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
        "Evaluated": ("False", "EvaluationFailed"),
        "Passed": ("False", "NothingMeasured"),
        "Degraded": ("True", "ShardFailed"),
    }


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
    assert {c["type"] for c in out["conditions"]} == {"Evaluated", "Passed", "Breached", "Degraded"}
    assert plan_run(views, NOW).shards[0].action is Action.DONE
