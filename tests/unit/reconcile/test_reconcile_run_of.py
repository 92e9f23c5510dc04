"""Which run a judge pod's event is about: found by name, or through the pod's Job when the name was
too long for a label, and never by reading every run of the namespace (a pruned run's pods keep
sending events after it is gone)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from proctor.k8s.objects import RunRef, owner_reference, run_labels
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.runs import run_of
from proctor.reconcile.runtime import Runtime

NS = "team"


class Kube:
    """The runs and Jobs that exist; every read is recorded, and a list of runs fails the test."""

    def __init__(self, runs: Sequence[RunRef] = (), jobs: dict[str, RunRef] | None = None) -> None:
        self.runs = {r.name: r for r in runs}
        self.jobs = jobs or {}
        self.reads: list[str] = []

    def get_or_none(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        assert (kind, namespace) == ("EvalRun", NS)
        self.reads.append(f"EvalRun {name}")
        run = self.runs.get(name)
        return None if run is None else {"metadata": {"name": run.name, "uid": run.uid}}

    def get_job(self, namespace: str, name: str) -> dict[str, Any] | None:
        self.reads.append(f"Job {name}")
        owner = self.jobs.get(name)
        if owner is None:
            return None
        return {"metadata": {"name": name, "ownerReferences": [owner_reference(owner)]}}

    def list_custom(self, *args: Any, **kw: Any) -> list[dict[str, Any]]:
        raise AssertionError(f"a pod event listed every run: list_custom{args}")


def find(kube: Kube, run: RunRef, job: str | None = "r-judge-0-of-1-a1") -> str | None:
    labels = run_labels(run, "judge")
    owners = [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": "job-uid"}] if job else []
    rt = Runtime(cast(Any, kube), OperatorConfig())
    return asyncio.run(run_of(rt, NS, labels, owners))


def test_a_run_named_in_its_label_is_found_by_one_read() -> None:
    run = RunRef(NS, "oil-v2", "uid-1")
    kube = Kube([run])
    assert find(kube, run) == "oil-v2"
    assert kube.reads == ["EvalRun oil-v2"]


LONG = "exam-" + "very-long-candidate-name-" * 4


def test_a_run_whose_name_is_too_long_for_a_label_is_found_through_its_job() -> None:
    run = RunRef(NS, LONG, "uid-2")
    assert len(run.name) > 63 and run_labels(run, "judge")["proctor.dev/run"] != run.name
    kube = Kube([run], {"r-judge-0-of-1-a1": run})
    assert find(kube, run) == run.name
    assert len(kube.reads) == 3 and kube.reads[1:] == ["Job r-judge-0-of-1-a1", f"EvalRun {LONG}"]


def test_a_pruned_run_is_no_run_whether_or_not_its_job_is_collected_yet() -> None:
    """History retention deleted the run; its Job and pods go after it, each pod sending events."""
    for name in ("oil-v1", LONG):
        gone = RunRef(NS, name, "uid-3")
        for jobs in ({}, {"r-judge-0-of-1-a1": gone}):
            kube = Kube([], jobs)
            assert find(kube, gone) is None
            assert len(kube.reads) <= (3 if jobs and name == LONG else 2)


def test_a_run_made_again_under_the_same_name_does_not_take_the_old_runs_pods() -> None:
    for name in ("oil-v1", LONG):
        old, new = RunRef(NS, name, "uid-old"), RunRef(NS, name, "uid-new")
        kube = Kube([new], {"old-job": old, "new-job": new})
        assert find(kube, old, job="old-job") is None
        assert find(kube, old, job="new-job") is None
        assert find(kube, old, job=None) is None
        assert find(kube, new, job="new-job") == name  # the new run's own pods still find it


def test_a_pod_without_the_run_labels_is_no_run_and_reads_nothing() -> None:
    kube = Kube([RunRef(NS, "oil-v2", "uid-1")])
    rt = Runtime(cast(Any, kube), OperatorConfig())
    assert asyncio.run(run_of(rt, NS, {"proctor.dev/component": "judge"}, [])) is None
    assert kube.reads == []
