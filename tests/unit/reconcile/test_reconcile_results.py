"""Which shard reports and results the operator believes: only what the run's own judge signed."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from proctor.api import EvalRunStatus
from proctor.k8s import signing
from proctor.k8s.objects import (
    RunRef,
    case_record,
    decode_results,
    encode_results,
    report_configmap,
    results_configmaps,
)
from proctor.protocol.types import CaseResult, Failure, Tier
from proctor.reconcile.results import Report, Untrusted, check_report, check_results, with_reports

RUN = RunRef("agents", "exam", "7d3b2a10-0000-4000-8000-000000000001")
MASTER = b"k" * 40
KEY = signing.run_key(MASTER, RUN.uid)
BLOB = encode_results(
    [
        case_record(CaseResult("boundary", Tier.SAFETY, failures=(Failure("label", "names NORMAL"),))),
        case_record(CaseResult("cites", Tier.TRUST)),
    ]
)


def report_of(index: int = 0, count: int = 1, attempt: int = 1, key: bytes = KEY, blob: bytes = BLOB) -> Any:
    cms = results_configmaps(RUN, index, count, blob, attempt=attempt, key=key, part_bytes=64)
    report = {
        "phase": "Succeeded",
        "results": [cm["metadata"]["name"] for cm in cms],
        "sha256": signing.sha256(blob),
        "summary": {"cases": 2, "passed": 1, "failed": 1, "unmeasured": 0},
        "provenance": "sha256:" + "p" * 64,
    }
    return report_configmap(RUN, index, count, attempt, report, key=key), cms


def test_the_judges_own_report_and_results_are_believed() -> None:
    cm, cms = report_of()
    report = check_report(cm, RUN, 0, 1, 1, KEY)
    assert (report.phase, report.results, report.summary["failed"]) == (
        "Succeeded",
        tuple(c["metadata"]["name"] for c in cms),
        1,
    )
    assert len(cms) > 1  # split in parts: each is checked
    blob = check_results(cms, RUN, report, KEY)
    assert {r["id"] for r in decode_results([blob])} == {"boundary", "cites"}


def _believed(check: Any, *args: Any) -> bool:
    try:
        check(*args)
    except Untrusted:
        return False
    return True


def forged(cm: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(cm)
    for path, value in changes.items():
        node = out
        *parents, leaf = path.split("__")
        for p in parents:
            node = node[p]
        node[leaf] = value
    return out


def test_a_report_is_refused_unless_every_mark_of_the_judge_is_there() -> None:
    """What a forger (a candidate with the judge's token, a tenant who may write ConfigMaps) would
    try: an "everything passed" report with the run's owner and labels but no key; one signed with
    another run's key (its own run's); one of another shard or attempt; one not owned by the run."""
    cm, _ = report_of()
    passed = '{"phase":"Succeeded","results":["x"],"sha256":"00","summary":{"cases":2,"passed":2}}'
    attempts = {
        "unsigned": forged(cm, metadata__annotations={}),
        "rewritten after signing": forged(cm, data={"report.json": passed}),
        "signed with another run's key": report_of(key=signing.run_key(MASTER, "another-run-uid"))[0],
        "not owned by the run": forged(cm, metadata__ownerReferences=[]),
        "without the judge's labels": forged(cm, metadata__labels={}),
        "owned by another run of the same name": forged(
            cm, metadata__ownerReferences=[{"kind": "EvalRun", "name": "exam", "uid": "recreated"}]
        ),
    }
    believed = [what for what, bad in attempts.items() if _believed(check_report, bad, RUN, 0, 1, 1, KEY)]
    assert believed == []
    # a genuine report of shard 0 attempt 1 is not one of shard 1, nor of attempt 2
    with pytest.raises(Untrusted):
        check_report(report_of(0, 2)[0], RUN, 1, 2, 1, KEY)
    with pytest.raises(Untrusted):
        check_report(cm, RUN, 0, 1, 2, KEY)


def test_results_are_refused_when_a_part_is_not_what_the_report_signed() -> None:
    cm, cms = report_of()
    report = check_report(cm, RUN, 0, 1, 1, KEY)
    everything_passed = encode_results([case_record(CaseResult("boundary", Tier.SAFETY))])
    other_blob = results_configmaps(RUN, 0, 1, everything_passed, attempt=1, key=KEY, part_bytes=64)
    for what, parts in {
        "a part missing": cms[:-1],
        "parts swapped": [cms[1], cms[0], *cms[2:]],
        "another blob's parts, signed with the right key": other_blob,
        "a part's bytes replaced": [forged(cms[0], binaryData={"results.jsonl.gz": "AAAA"}), *cms[1:]],
        "a part not owned by the run": [forged(cms[0], metadata__ownerReferences=[]), *cms[1:]],
    }.items():
        assert not _believed(check_results, parts, RUN, report, KEY), what


def test_a_verified_report_goes_into_the_shards_entry() -> None:
    status = EvalRunStatus.model_validate(
        {"shards": [{"name": "0/1", "job": "exam-judge-0-of-1-a1", "attempts": 1}]}
    )
    report = Report(
        shard="0/1",
        attempt=1,
        phase="Succeeded",
        results=("exam-results-0-of-1-a1-0",),
        sha256="0" * 64,
        provenance="sha256:" + "p" * 64,
        summary={"cases": 2, "passed": 1, "failed": 1, "unmeasured": 0},
        start_time="2026-03-01T12:00:00Z",
        completion_time="2026-03-01T12:00:05Z",
    )
    (entry,) = with_reports(status, {"0/1": report}).shards
    assert (entry.phase.value, entry.results, entry.job, entry.summary and entry.summary.failed) == (
        "Succeeded",
        ["exam-results-0-of-1-a1-0"],
        "exam-judge-0-of-1-a1",
        1,
    )


def test_the_master_key_comes_from_the_environment_or_a_private_file(tmp_path: Path) -> None:
    assert signing.master_key({signing.MASTER_KEY_ENV: "x" * 32}) == b"x" * 32
    with pytest.raises(signing.SigningKeyError):
        signing.master_key({signing.MASTER_KEY_ENV: "short"})
    path = tmp_path / "dir" / "key"
    made = signing.master_key({signing.MASTER_KEY_FILE_ENV: str(path)})
    assert len(made) >= signing.MIN_KEY_CHARS
    assert oct(path.stat().st_mode)[-3:] == "600"
    assert signing.master_key({signing.MASTER_KEY_FILE_ENV: str(path)}) == made  # kept across restarts


def test_run_keys_differ_per_run_and_per_master() -> None:
    assert signing.run_key(MASTER, "a") != signing.run_key(MASTER, "b")
    assert signing.run_key(MASTER, "a") != signing.run_key(b"z" * 40, "a")
    assert signing.decode_key(signing.encode_key(KEY)) == KEY
    with pytest.raises(ValueError, match="64 hex digits"):
        signing.decode_key("abcd")
