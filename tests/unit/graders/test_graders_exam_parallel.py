"""A large exam graded by one process per core (``grade_shared``), each validating its own share
of the inline cases and the ConfigMaps' texts, gives exactly what one process gives; any problem
is left to ``grade_cases`` to word."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any

import pytest
import yaml

from proctor.api import CaseSource
from proctor.api.caseset import Case
from proctor.graders import GradingJob, ScanPolicy, _shares, grade_cases, grade_shared, worth_sharing
from proctor.graders._shares import PARALLEL_MIN_BYTES, PARALLEL_MIN_CASES, shares
from proctor.protocol.types import CaseResult, DimensionScore, Failure, Tier


def _raw(i: int, **extra: Any) -> dict[str, Any]:
    tiers = ["safety", "trust", "form"]
    raw: dict[str, Any] = {
        "id": f"c{i}",
        "tier": tiers[i % 3],
        "input": f"question {i}",
        "assert": [{"type": "contains", "value": "ok"}, {"type": "regex", "value": r"^\w+"}],
    }
    raw.update(extra)
    return raw


def _job(inline: int, texts: list[list[dict[str, Any]]], answers: dict[str, str] | None = None) -> GradingJob:
    cases = [Case.model_validate(_raw(i)) for i in range(inline)]
    sources = [CaseSource(f"ConfigMap m{k}/cases.yaml", yaml.safe_dump(t)) for k, t in enumerate(texts)]
    ids = [c.id for c in cases] + [r["id"] for t in texts for r in t]
    if answers is None:
        answers = {i: ("ok fine" if int(i[1:]) % 7 else "nope") for i in ids}
    return GradingJob(cases, sources, answers, "cs.yaml", None, ScanPolicy())


def _all_cases(job: GradingJob) -> list[Case]:
    from proctor.api import parse_cases

    return [*job.inline, *(c for s in job.sources for c in parse_cases(s.text, where=s.where))]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_shares_and_one_process_agree_case_for_case(workers: int) -> None:
    texts = [[_raw(i) for i in range(1000, 1240)], [_raw(i) for i in range(2000, 2003)]]
    job = _job(250, texts)
    answers = dict(job.answers)
    answers["c1005"] = "ok, mail jane.doe@gmail.com"  # a safety finding in some worker's share
    job = GradingJob(job.inline, job.sources, answers, job.where, None, ScanPolicy())
    graded = grade_shared(job, workers)
    assert graded is not None
    ids, results = graded
    cases = _all_cases(job)
    assert ids == [c.id for c in cases]
    assert results == grade_cases(cases, answers)
    assert sum(r.safety_findings for r in results) == 1


@pytest.mark.parametrize(
    "broken",
    ["an assertion that does not compile", "an invalid case", "a case without an answer", "an id twice"],
)
def test_any_problem_is_left_to_one_process(broken: str) -> None:
    texts = [[_raw(i) for i in range(10, 20)], [_raw(i) for i in range(20, 30)]]
    answers = None
    if broken == "an assertion that does not compile":
        texts[1][8]["assert"] = [{"type": "regex", "value": "("}]
    elif broken == "an invalid case":
        texts[1][9]["tier"] = "nonsense"
    elif broken == "a case without an answer":
        answers = {r["id"]: "ok" for t in texts for r in t if r["id"] != "c27"}
    else:
        texts[1][3]["id"] = "c2"  # also an inline case's id
    job = _job(5, texts, answers)
    assert grade_shared(job, 2) is None


def test_worth_sharing_from_the_size_of_the_texts_or_the_number_of_inline_cases() -> None:
    def text(n: int) -> list[CaseSource]:
        return [CaseSource("m", "x" * n)]

    case = Case.model_validate(_raw(0))
    assert worth_sharing([], text(PARALLEL_MIN_BYTES)) and worth_sharing([], text(3 * PARALLEL_MIN_BYTES))
    assert not worth_sharing([], text(PARALLEL_MIN_BYTES - 1))
    assert worth_sharing([case] * PARALLEL_MIN_CASES, []) and worth_sharing(
        [case] * 3 * PARALLEL_MIN_CASES, []
    )
    assert not worth_sharing([case] * (PARALLEL_MIN_CASES - 1), [])


@pytest.mark.parametrize("workers", [1, 2])
def test_the_embedder_is_made_only_where_a_case_asks_similar(workers: int) -> None:
    made: list[bool] = []

    def embedder() -> Any:
        made.append(True)
        return lambda texts: [[1.0, 0.0] for _ in texts]

    # types ordered before and after "similar"
    asserts = [{"type": "contains", "value": "ok"}, {"type": "starts-with", "value": "ok"}]
    plain = _job(0, [[_raw(i, **{"assert": asserts}) for i in range(10, 14)]])
    assert grade_shared(dataclasses.replace(plain, embedder=embedder), workers) is not None
    assert made == []  # no model loaded for cases that never compare meanings
    similar = Case.model_validate(
        _raw(1, **{"assert": [{"type": "similar", "value": "ok", "threshold": 0.5}]})
    )
    job = GradingJob([similar], [], {"c1": "ok"}, "cs", None, ScanPolicy(), embedder)
    graded = grade_shared(job, 1)
    assert graded is not None and made == [True]
    assert not graded[1][0].failures  # measured with the embedder: identical vectors


@pytest.mark.parametrize(
    ("text", "detects"),
    [
        ("- {id: a, tier: form, input: q, assert: [{type: label, value: HIGH}]}", True),
        ('[{"id": "a", "assert": [{"type": "not-refusal"}]}]', True),
        ("- id: a\n  assert:\n    - type: 'no-manufactured-consensus'\n", True),
        ("- id: a\n  assert:\n    - type: cites\n    - type: grounded-urls\n", False),
        ("- id: a\n  input: 'label the type: labels'\n  assert:\n    - type: contains\n", False),
        ("- id: a\n  input: 'its subtype: label'\n  assert:\n    - type: contains\n", False),
        ("- id: a\n  input: 'a data-type: refusal'\n  assert:\n    - type: contains\n", False),
        ("type: refusal", True),
    ],
)
def test_a_text_with_a_language_grader_loads_the_detector_before_the_fork(text: str, detects: bool) -> None:
    job = GradingJob([], [CaseSource("m", text)], {}, "cs", None, ScanPolicy())
    assert job.detects_languages() is detects


def test_inline_cases_with_a_language_grader_load_the_detector_before_the_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded: list[bool] = []
    monkeypatch.setattr(_shares, "preload_detector", lambda: loaded.append(True))
    label = Case.model_validate(
        _raw(1, **{"assert": [{"type": "not-label", "value": "HIGH", "labels": ["HIGH", "LOW"]}]})
    )
    assert GradingJob([label], [], {}, "cs", None, ScanPolicy()).detects_languages()
    grade_shared(GradingJob([label], [], {"c1": "It is LOW."}, "cs", None, ScanPolicy()), 2)
    assert loaded == [True]
    loaded.clear()
    plain = Case.model_validate(_raw(1))
    grade_shared(GradingJob([plain], [], {"c1": "ok"}, "cs", None, ScanPolicy()), 2)
    assert loaded == []


@pytest.mark.parametrize(
    ("sizes", "workers"),
    [([700] * 5, 2), ([7, 2, 21], 3), ([100], 4), ([0, 50, 0, 50], 2), ([3, 1, 1, 1, 1, 1], 8)],
)
def test_the_shares_cover_every_source_once_and_are_even(sizes: list[int], workers: int) -> None:
    plan = shares(sizes, workers)
    assert len(plan) == workers
    for n in range(len(sizes)):
        parts = [(lo, hi) for share in plan for m, lo, hi in share if m == n]
        # contiguous from 0 to 1, workers in order
        assert parts[0][0] == 0 and parts[-1][1] == 1
        assert all(a[1] == b[0] for a, b in itertools.pairwise(parts))
    # every worker gets the same amount of text
    assert [sum(sizes[n] * (hi - lo) for n, lo, hi in share) for share in plan] == [
        Fraction(sum(sizes), workers)
    ] * workers
    # a worker parses only the texts it grades from: at most workers - 1 texts are split
    assert sum(len(share) for share in plan) <= len(sizes) + workers - 1


def test_a_worker_sends_every_result_back_whole_but_a_plain_pass() -> None:
    # a worker sends a case that passed with nothing to report as its tier's name: a category, a
    # failure, a finding, an error, a note or a dimension must come back as it was
    texts = [[_raw(i, category="band" if i % 4 == 0 else "") for i in range(1000, 1200)]]
    job = _job(0, texts)
    graded = grade_shared(job, 2)
    assert graded is not None
    cases = _all_cases(job)
    assert graded[1] == grade_cases(cases, job.answers)
    assert {r.category for r in graded[1]} == {"band", ""}
    assert {r.outcome.value for r in graded[1]} == {"passed", "failed"}

    dimension = DimensionScore("helpfulness", 50.0, skipped_reason="no judge")
    whole = [
        CaseResult("a", Tier.SAFETY, failures=(Failure("contains", "missing"),)),
        CaseResult("b", Tier.TRUST, safety_findings=1),
        CaseResult("c", Tier.FORM, error="no answer"),
        CaseResult("d", Tier.FORM, category="band"),
        CaseResult("e", Tier.TRUST, extra={"note": "kept"}),
        CaseResult("f", Tier.TRUST, dimensions=(dimension,)),
    ]
    plain = [CaseResult("g", Tier.SAFETY), CaseResult("h", Tier.FORM)]
    packed = [_shares._pack(r) for r in whole + plain]
    assert packed[len(whole) :] == ["safety", "form"]
    share = _shares._unpacked([(0, list("abcdefgh"), packed)])
    assert share is not None
    back = share[0][2]
    assert back == whole + plain
    assert [r.extra for r in back] == [r.extra for r in whole + plain]  # extra is not compared by ==
    assert _shares._unpacked(None) is None
