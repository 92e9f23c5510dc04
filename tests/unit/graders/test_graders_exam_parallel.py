"""Grading split across worker processes gives exactly what one process gives."""

from __future__ import annotations

import pytest

from proctor.api.caseset import Case
from proctor.graders import CaseSetProblem, grade_cases


def _cases(n: int) -> list[Case]:
    tiers = ["safety", "trust", "form"]
    return [
        Case.model_validate(
            {
                "id": f"c{i}",
                "tier": tiers[i % 3],
                "input": f"question {i}",
                "assert": [{"type": "contains", "value": "ok"}, {"type": "regex", "value": r"^\w+"}],
            }
        )
        for i in range(n)
    ]


def test_parallel_and_serial_grading_agree_case_for_case() -> None:
    cases = _cases(300)
    answers = {f"c{i}": ("ok fine" if i % 7 else "nope") for i in range(300)}
    answers["c5"] = "ok, mail jane.doe@gmail.com"  # a safety finding in some worker's slice
    serial = grade_cases(cases, answers, workers=1)
    parallel = grade_cases(cases, answers, workers=3)
    assert parallel == serial
    assert [r.case_id for r in parallel] == [c.id for c in cases]
    assert sum(r.safety_findings for r in parallel) == 1


def test_compile_errors_from_every_worker_are_reported() -> None:
    cases = _cases(10)
    for i in (1, 8):
        cases[i] = Case.model_validate(
            {"id": f"c{i}", "tier": "form", "input": "q", "assert": [{"type": "regex", "value": "("}]}
        )
    with pytest.raises(CaseSetProblem) as e:
        grade_cases(cases, {c.id: "ok" for c in cases}, where="cs.yaml", workers=2)
    assert [p.split(":")[1].strip() for p in e.value.problems] == ["case 'c1'", "case 'c8'"]
