"""The CaseSet and EvalProfile reconcilers' decisions on plain data, and a case set's run history."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from proctor.api import (
    EvalProfile,
    EvalProfileStatus,
    ManifestError,
    MissingReferenceError,
    Reason,
    dump,
)
from proctor.graders import CaseSetProblem
from proctor.judge import resolve_dimensions
from proctor.k8s.kube import KubeError
from proctor.protocol import Baseline, FreezeDecision, Tier
from proctor.reconcile.casesets import freeze_outcome, invalid, ready
from proctor.reconcile.profiles import resolved_status, status_provenance
from proctor.reconcile.records import RECENT_RUNS, recent_runs

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (KubeError("ConfigMap x/y", ApiException(status=404)), Reason.CONFIG_MAP_NOT_FOUND),
        (KubeError("ConfigMap x/y", ApiException(status=403)), Reason.INVALID_CASES),
        (MissingReferenceError(["casesFrom: ConfigMap 'y' not found"]), Reason.CONFIG_MAP_NOT_FOUND),
        (ManifestError(["duplicate case id 'a' (spec.cases and ConfigMap y/k)"]), Reason.DUPLICATE_CASE_IDS),
        (ManifestError(["case 'a': input: required"]), Reason.INVALID_CASES),
        (CaseSetProblem(["case 'a': regex: bad pattern"]), Reason.INVALID_CASES),
    ],
)
def test_why_a_case_set_cannot_be_used(error: Exception, reason: str) -> None:
    assert invalid(error)[0] == reason


def test_ready_bounds_its_message() -> None:
    (cond,) = ready([], False, Reason.INVALID_CASES, "x" * 5000, now=NOW, generation=2)
    assert (cond.status, len(cond.message), cond.observed_generation) == ("False", 1024, 2)


def test_a_freeze_is_recorded_only_when_the_protocol_allows_it() -> None:
    refused = FreezeDecision(False, "RedRun", "run r3 is FAIL: a freeze never turns a red run green")
    conds, frozen = freeze_outcome([], refused, now=NOW, generation=1)
    assert frozen is None and (conds[0].type, conds[0].status, conds[0].reason) == (
        "BaselineFrozen",
        "False",
        "RedRun",
    )
    baseline = Baseline(rates={Tier.SAFETY: 100.0}, digest=DIGEST, provenance=DIGEST, runs=("r1", "r2", "r3"))
    conds, frozen = freeze_outcome(
        conds, FreezeDecision(True, "StableRuns", "3 runs agree", baseline), now=NOW, generation=1
    )
    assert frozen is not None and frozen.frozen_from == ["r1", "r2", "r3"] and frozen.frozen_at == NOW
    assert conds[0].status == "True"


def raw_run(
    name: str, phase: str | None, done: str, *, verdict: str = "PASS", digest: str | None = DIGEST
) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase, "verdict": verdict, "completionTime": done} if phase else {}
    if digest and phase:
        status["provenance"] = {"caseSet": digest}
    return {  # as the API server lists custom objects: each with its apiVersion and kind
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": name},
        "spec": {"caseSetRef": {"name": "cs"}, "target": {"responses": {"inline": {}}}},
        "status": status,
    }


def test_recent_runs_are_the_newest_finished_ones_newest_last() -> None:
    runs = [raw_run(f"r{i:02d}", "Evaluated", f"2026-03-01T10:{i:02d}:00Z") for i in range(14)]
    runs.append(raw_run("running", None, ""))
    recent = recent_runs(runs, digest=DIGEST)
    assert [r.name for r in recent] == [f"r{i:02d}" for i in range(14 - RECENT_RUNS, 14)]
    assert recent[-1].completion_time == dt.datetime(2026, 3, 1, 10, 13, tzinfo=dt.UTC)
    assert dump(recent[0], only_set=True)["verdict"] == "PASS"


def test_a_run_that_measured_nothing_is_listed_red_with_the_case_sets_digest() -> None:
    failed = raw_run("broken", "Failed", "2026-03-01T11:00:00Z", verdict="ERROR", digest=None)
    (recent,) = recent_runs([failed], digest=DIGEST)
    assert (recent.verdict, recent.digest) == ("ERROR", DIGEST)
    assert recent_runs([failed], digest=None) == []


def profile(**spec: Any) -> EvalProfile:
    return EvalProfile.model_validate({"metadata": {"name": "p"}, "spec": spec})


def test_a_profile_without_judge_or_grounding_has_no_provenance() -> None:
    p = profile()
    assert status_provenance(p) is None
    status = dump(
        resolved_status(p, resolve_dimensions(p.spec), EvalProfileStatus(observed_generation=1)),
        only_set=True,
    )
    assert status["dimensionCount"] == 5 and len(status["resolvedDimensions"]) == 5
    assert "provenance" not in status and "groundingDigest" not in status


def test_a_judged_profile_is_content_addressed() -> None:
    judged = profile(
        judge={"endpoint": "http://judge.local/v1", "model": "m"},
        grounding={"documents": [{"id": "d", "text": "t"}]},
    )
    prov = status_provenance(judged)
    assert prov is not None and prov.judge_prompt and prov.grounding and prov.digest
    other = profile(judge={"endpoint": "http://judge.local/v1", "model": "m2"})
    other_prov = status_provenance(other)
    assert other_prov is not None and other_prov.judge_prompt != prov.judge_prompt
    status = dump(
        resolved_status(judged, resolve_dimensions(judged.spec), EvalProfileStatus()), only_set=True
    )
    assert status["groundingDigest"] == prov.grounding
