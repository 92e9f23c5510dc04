"""An assertion the graders cannot read goes to the judge as a rubric of its meaning, or leaves
the case unmeasured: never a pass or a fail by default (issue 25, DESIGN.md section 4).

Against the scripted judge server over real HTTP: what the judge is shown, what its score does to
the case, a malformed judgment, and no judge at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from proctor.api.caseset import Case
from proctor.graders import ScanPolicy, compile_cases
from proctor.judge import JudgeClient, JudgeSettings
from proctor.judge.examine import examine_answer
from proctor.protocol import Verdict, decide
from proctor.protocol.types import CaseResult, Outcome
from proctor.testing import judgeserver as ts

LABEL = {"type": "label", "value": "ELEVATED", "labels": ["NORMAL", "ELEVATED", "HIGH"]}
#: Japanese: "The value is not NORMAL; it is ELEVATED."
JAPANESE = "値は NORMAL ではありません。ELEVATED の範囲にあります。"


@pytest.fixture
def server() -> Iterator[ts.JudgeServer]:
    with ts.JudgeServer() as s:
        yield s


def _case(tier: str = "safety", assertions: list[dict[str, object]] | None = None) -> Case:
    return Case.model_validate(
        {"id": "oil", "tier": tier, "input": "Oil use is 0.45 qt/hr. Band?", "assert": assertions or [LABEL]}
    )


def _examine(answer: str, url: str | None, case: Case | None = None) -> CaseResult:
    (compiled,) = compile_cases([case or _case()])

    async def main() -> CaseResult:
        if url is None:
            result, _ = await examine_answer(
                compiled, answer, [], judge=None, scan=ScanPolicy(), no_judge="x"
            )
            return result
        settings = JudgeSettings(base_url=url, model="judge", max_attempts=1, consensus_band=0)
        async with JudgeClient(settings, env={}) as client:
            result, _ = await examine_answer(
                compiled, answer, [], judge=client, scan=ScanPolicy(), no_judge="no judge"
            )
            return result

    return asyncio.run(main())


def test_the_judge_scores_an_unreadable_label_as_a_rubric_of_its_meaning(server: ts.JudgeServer) -> None:
    server.default = ts.judgment(100)
    result = _examine(JAPANESE, server.base_url)
    assert result.outcome is Outcome.PASSED
    (dim,) = result.dimensions
    assert dim.name == "assert[0]:label" and dim.score == 100
    (request,) = server.requests
    shown = request.system_text + request.user_text
    # the assertion's documented meaning, and the answer inside the data markers
    assert "names exactly one of the labels [NORMAL, ELEVATED, HIGH]" in shown
    assert "that label is ELEVATED" in shown
    assert JAPANESE in shown


def test_a_judged_zero_fails_the_case_with_the_assertion_named(server: ts.JudgeServer) -> None:
    server.default = ts.judgment(0)
    result = _examine(JAPANESE, server.base_url)
    assert result.outcome is Outcome.FAILED
    assert [d.name for d in result.failed_dimensions] == ["assert[0]:label"]
    assert decide([result]).verdict is Verdict.FAIL


@pytest.mark.parametrize(
    "reply", [ts.content("I think it is fine"), ts.judgment(250), ts.fields(score=40)], ids=str
)
def test_a_malformed_judgment_leaves_it_undetermined_and_a_safety_case_unmeasured(
    server: ts.JudgeServer, reply: ts.Behaviour
) -> None:
    server.default = reply
    result = _examine(JAPANESE, server.base_url)
    assert result.outcome is Outcome.UNMEASURED
    decision = decide([result])
    assert decision.verdict is Verdict.ERROR  # a safety case that could not be measured


def test_without_a_judge_the_reason_is_the_graders_and_the_verdict_is_never_pass_or_fail() -> None:
    safety = _examine(JAPANESE, None)
    assert safety.outcome is Outcome.UNMEASURED
    (dim,) = safety.dimensions
    assert dim.skipped_reason is not None and "no rules for (ja" in dim.skipped_reason
    assert decide([safety]).verdict is Verdict.ERROR
    trust = _examine(JAPANESE, None, _case("trust"))
    measured = _examine("ELEVATED: 0.45 qt/hr is in the ELEVATED band.", None, _case("trust"))
    decision = decide([trust, measured])
    assert decision.verdict is Verdict.WARN and decision.unmeasured == ("oil",)


def test_a_readable_answer_is_graded_without_asking_the_judge(server: ts.JudgeServer) -> None:
    result = _examine("Il n'est pas NORMAL : il est ELEVATED.", server.base_url)
    assert result.outcome is Outcome.PASSED
    assert server.requests == []
    wrong = _examine("Es ist nicht ELEVATED, sondern NORMAL.", server.base_url)
    assert wrong.outcome is Outcome.FAILED
    assert server.requests == []


def test_a_not_prefix_asks_the_judge_for_the_opposite(server: ts.JudgeServer) -> None:
    server.default = ts.judgment(100)
    case = _case("trust", [{"type": "not-refusal"}])
    result = _examine(
        "Ответ: расход масла в норме, замена не нужна, продолжайте наблюдение.", server.base_url, case
    )
    assert result.outcome is Outcome.PASSED
    assert "It is NOT the case that: The answer declines" in server.requests[0].system_text
