"""Compiling a case set and grading answers: the shared path of `proctor grade` and the judge Job."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.caseset import SAFETY_MEASURES_NOTHING, Case
from proctor.api.profile import EvalProfileSpec
from proctor.graders._exam import (
    DEFAULT_DIMENSION_THRESHOLD,
    CaseSetProblem,
    case_question,
    compile_cases,
    grade_answer,
    grade_cases,
    unanswered,
    unread_assertions,
)
from proctor.graders._scanpolicy import ScanPolicy
from proctor.graders._shares import GradingJob, grade_shared
from proctor.protocol.types import DimensionScore, Outcome, Tier


def case(**kw: Any) -> Case:
    return Case.model_validate({"id": "c", "tier": "trust", "input": "q?", **kw})


def test_a_chat_input_becomes_role_lines() -> None:
    c = case(input=[{"role": "system", "content": "be brief"}, {"role": "user", "content": "why?"}])
    assert case_question(c) == "system: be brief\nuser: why?"
    assert case_question(case(input="plain")) == "plain"


def test_compiled_cases_carry_context_reference_question_and_category() -> None:
    (cc,) = compile_cases(
        [
            case(
                category="band",
                reference="ELEVATED",
                context=[{"id": "amm", "text": "bands"}],
                **{"assert": [{"type": "contains", "value": "x"}]},
            )
        ]
    )
    assert (cc.id, cc.tier, cc.category, cc.question) == ("c", Tier.TRUST, "band", "q?")
    assert cc.ctx.context == {"amm": "bands"}
    assert cc.ctx.reference == "ELEVATED"
    assert cc.ctx.question == "q?"
    assert [a.type for a in cc.assertions] == ["contains"]
    (plain,) = compile_cases([case(**{"assert": [{"type": "contains", "value": "x"}]})])
    assert plain.category == ""


def test_every_bad_case_is_reported_at_once_with_where() -> None:
    bad = {"assert": [{"type": "regex", "value": "("}]}
    good = {"assert": [{"type": "contains", "value": "x"}]}
    with pytest.raises(CaseSetProblem) as e:
        compile_cases([case(id="a", **bad), case(id="b", **good), case(id="c", **bad)], where="cs.yaml")
    assert len(e.value.problems) == 2
    assert e.value.problems[0].startswith("cs.yaml: case 'a': assert[0]: regex: invalid regular expression")
    assert e.value.problems[1].startswith("cs.yaml: case 'c': ")
    assert str(e.value) == "\n".join(e.value.problems)


def test_dimensions_come_from_the_case_or_the_profile() -> None:
    profile = EvalProfileSpec.model_validate({"profile": "generic", "thresholds": {"safety": 90}})
    named = case(dimensions=["safety", "made_up"], **{"assert": [{"type": "contains", "value": "x"}]})
    (without,) = compile_cases([named])
    assert without.dimensions == (
        ("safety", DEFAULT_DIMENSION_THRESHOLD),
        ("made_up", DEFAULT_DIMENSION_THRESHOLD),
    )
    (with_profile,) = compile_cases([named], profile=profile)
    assert with_profile.dimensions == (("safety", 90.0), ("made_up", profile.default_threshold))
    unnamed = case(**{"assert": [{"type": "contains", "value": "x"}]})
    (none,) = compile_cases([unnamed])
    assert none.dimensions == ()
    (all_,) = compile_cases([unnamed], profile=profile)
    assert all_.dimensions == tuple((d.name, d.threshold) for d in profile.resolved_dimensions())
    assert len(all_.dimensions) == 5


def test_unjudged_dimensions_are_skipped_with_the_reason_never_zero() -> None:
    (cc,) = compile_cases(
        [case(dimensions=["task_success"], **{"assert": [{"type": "contains", "value": "ok"}]})]
    )
    r = grade_answer(cc, "ok", unjudged_reason="no judge here")
    assert r.outcome is Outcome.UNMEASURED
    assert r.dimensions == (
        DimensionScore("task_success", DEFAULT_DIMENSION_THRESHOLD, None, "no judge here"),
    )
    failed = grade_answer(cc, "nope")
    assert failed.outcome is Outcome.FAILED  # a failed assertion fails the case even unjudged


def test_judged_dimensions_are_attached_as_given() -> None:
    (cc,) = compile_cases(
        [case(dimensions=["task_success"], **{"assert": [{"type": "contains", "value": "ok"}]})]
    )
    judged = [DimensionScore("task_success", 50.0, 80.0)]
    r = grade_answer(cc, "ok", judged=judged)
    assert r.outcome is Outcome.PASSED
    assert r.dimensions == tuple(judged)
    low = grade_answer(cc, "ok", judged=[DimensionScore("task_success", 50.0, 20.0)])
    assert low.outcome is Outcome.FAILED


def test_scan_can_be_turned_off() -> None:
    (cc,) = compile_cases([case(**{"assert": [{"type": "contains", "value": "ok"}]})])
    leak = "ok, mail jane.doe@gmail.com"
    assert grade_answer(cc, leak).safety_findings == 1
    assert grade_answer(cc, leak, scan=False).safety_findings == 0


def test_an_unanswered_case_is_unmeasured_with_the_reason() -> None:
    (cc,) = compile_cases([case(category="k", **{"assert": [{"type": "contains", "value": "ok"}]})])
    r = unanswered(cc, "the agent timed out")
    assert (r.outcome, r.error, r.category, r.tier) == (
        Outcome.UNMEASURED,
        "the agent timed out",
        "k",
        Tier.TRUST,
    )


def test_grade_cases_in_one_process_keeps_case_order_and_uses_the_embedder() -> None:
    cases = [
        case(id="b", **{"assert": [{"type": "similar", "value": "x", "threshold": 0.5}]}),
        case(id="a", **{"assert": [{"type": "contains", "value": "ok"}]}),
    ]
    results = grade_cases(cases, {"a": "ok", "b": "x"}, embedder=lambda texts: [[1.0, 0.0] for _ in texts])
    assert [(r.case_id, r.outcome) for r in results] == [("b", Outcome.PASSED), ("a", Outcome.PASSED)]
    unembedded = grade_cases(cases, {"a": "ok", "b": "x"})
    assert unembedded[0].outcome is Outcome.UNMEASURED


def test_grade_cases_with_a_profile_attaches_its_dimensions() -> None:
    profile = EvalProfileSpec.model_validate({"profile": "generic"})
    (r,) = grade_cases(
        [case(**{"assert": [{"type": "contains", "value": "ok"}]})], {"c": "ok"}, profile=profile
    )
    assert len(r.dimensions) == 5 and all(d.score is None for d in r.dimensions)


def test_a_case_without_a_profile_judges_its_named_dimensions_at_50() -> None:
    (cc,) = compile_cases([case(dimensions=["tone"], **{"assert": [{"type": "contains", "value": "x"}]})])
    assert cc.dimensions == (("tone", 50.0),)


def test_a_live_agents_latency_reaches_the_latency_assertion() -> None:
    (cc,) = compile_cases([case(**{"assert": [{"type": "latency", "threshold": 100}]})])
    assert grade_answer(cc, "x", latency_ms=99.0).outcome is Outcome.PASSED
    assert grade_answer(cc, "x", latency_ms=101.0).outcome is Outcome.FAILED
    assert grade_answer(cc, "x").outcome is Outcome.UNMEASURED


def test_options_are_keyword_only() -> None:
    cases = [case(**{"assert": [{"type": "contains", "value": "x"}]})]
    with pytest.raises(TypeError):
        compile_cases(cases, "cs.yaml")  # type: ignore[misc]
    (cc,) = compile_cases(cases)
    with pytest.raises(TypeError):
        grade_answer(cc, "x", False)  # type: ignore[misc]
    with pytest.raises(TypeError):
        grade_cases(cases, {"c": "x"}, "cs.yaml")  # type: ignore[misc]


def test_a_compiled_case_is_immutable() -> None:
    import dataclasses

    (cc,) = compile_cases([case(**{"assert": [{"type": "contains", "value": "x"}]})])
    with pytest.raises(dataclasses.FrozenInstanceError):
        cc.tier = Tier.FORM  # type: ignore[misc]


# --- a safety case that measures nothing ------------------------------------------------------------

NOTHING = "a safety case must measure something"


def bare_safety(id_: str = "s", **kw: Any) -> Case:
    """A safety case with no assertion (and, unless given, no dimensions of its own)."""
    return case(id=id_, tier="safety", **kw)


def test_offline_a_safety_case_with_no_assertion_and_no_profile_is_refused_naming_the_missing_profile() -> (
    None
):
    with pytest.raises(CaseSetProblem) as e:
        compile_cases([bare_safety()], where="cs.yaml", offline=True)
    assert e.value.problems == [f"cs.yaml: case 's': {SAFETY_MEASURES_NOTHING} (no --profile given)"]


def unvalidated_safety(id_: str = "s") -> Case:
    """A safety case with ``dimensions: []`` and no assertion, which the model (and the CRD's CEL
    rule) refuses: made without validation, as an object written before that rule would be."""
    return case(id=id_, tier="safety").model_copy(update={"dimensions": []})


@pytest.mark.parametrize("offline", [True, False])
def test_an_empty_dimension_list_measures_nothing_even_past_validation_and_needs_no_profile_hint(
    offline: bool,
) -> None:
    with pytest.raises(CaseSetProblem) as e:
        compile_cases(
            [unvalidated_safety()],
            where="cs.yaml",
            profile=EvalProfileSpec.model_validate({}),
            offline=offline,
        )
    assert e.value.problems == [f"cs.yaml: case 's': {SAFETY_MEASURES_NOTHING}"]  # a profile was given
    with pytest.raises(CaseSetProblem) as e:
        compile_cases([unvalidated_safety()], where="cs.yaml", offline=True)
    assert e.value.problems == [
        f"cs.yaml: case 's': {SAFETY_MEASURES_NOTHING}"
    ]  # it named its (no) dimensions


def test_in_a_cluster_without_the_profile_yet_the_case_waits_for_it() -> None:
    """The judge Job resolves the profile later: not refused before it is known (offline=False)."""
    (cc,) = compile_cases([bare_safety()])
    assert (cc.tier, cc.assertions, cc.dimensions) == (Tier.SAFETY, (), ())


def test_a_safety_case_measured_by_its_dimensions_or_an_assertion_or_the_profile_is_compiled() -> None:
    profile = EvalProfileSpec.model_validate({})
    named = compile_cases([bare_safety(dimensions=["factual_grounding"])], offline=True)
    asserted = compile_cases([bare_safety(**{"assert": [{"type": "contains", "value": "x"}]})], offline=True)
    judged = compile_cases([bare_safety()], profile=profile, offline=True)
    assert named[0].dimensions == (("factual_grounding", DEFAULT_DIMENSION_THRESHOLD),)
    assert [a.type for a in asserted[0].assertions] == ["contains"]
    assert judged[0].dimensions  # the profile's dimensions measure it


def test_only_the_safety_tier_is_refused_for_measuring_nothing() -> None:
    compiled = compile_cases([case(id="t", tier="trust"), case(id="f", tier="form")], offline=True)
    assert [c.id for c in compiled] == ["t", "f"]


def test_every_safety_case_that_measures_nothing_is_named_and_the_others_still_checked() -> None:
    bad_regex = {"assert": [{"type": "regex", "value": "("}]}
    with pytest.raises(CaseSetProblem) as e:
        compile_cases(
            [bare_safety("a"), case(id="b", **bad_regex), bare_safety("c"), case(id="d")],
            where="w",
            offline=True,
        )
    assert [p.split(": ")[1] for p in e.value.problems] == ["case 'a'", "case 'b'", "case 'c'"]
    assert all(NOTHING in p for p in (e.value.problems[0], e.value.problems[2]))


@pytest.mark.parametrize("workers", [1, 2])
def test_grade_cases_grades_offline_so_it_refuses_a_safety_case_that_measures_nothing(workers: int) -> None:
    cases = [bare_safety(f"s{i}") if i == 3 else case(id=f"c{i}") for i in range(6)]
    answers = {c.id: "answer" for c in cases}
    with pytest.raises(CaseSetProblem) as e:
        grade_cases(cases, answers, where="cs.yaml")
    assert e.value.problems == [f"cs.yaml: case 's3': {SAFETY_MEASURES_NOTHING} (no --profile given)"]
    # the workers refuse it too, and leave the words to grade_cases
    assert grade_shared(GradingJob(cases, [], answers, "cs.yaml", None, ScanPolicy()), workers) is None


def test_an_assertion_the_graders_cannot_read_goes_to_the_judge_wherever_it_stands() -> None:
    # a plain assertion first, then a label in a language the label grader has no rules for
    (c,) = compile_cases(
        [
            case(
                id="band",
                **{
                    "assert": [
                        {"type": "contains", "value": "HIGH"},
                        {"type": "label", "value": "HIGH", "labels": ["HIGH", "LOW"]},
                    ]
                },
            )
        ]
    )
    answer = "Kiwango cha mafuta ni HIGH, si LOW, kwa mujibu wa mwongozo wa matengenezo ya injini."
    rubrics = unread_assertions(c, answer, scan=False)
    assert [(r.index, r.name) for r in rubrics] == [(1, "assert[1]:label")]


def test_an_empty_answer_is_unmeasured_not_sent_to_the_judge_as_unreadable() -> None:
    (c,) = compile_cases(
        [case(id="band", **{"assert": [{"type": "label", "value": "HIGH", "labels": ["HIGH", "LOW"]}]})]
    )
    assert unread_assertions(c, "   ", scan=False) == []
    assert grade_answer(c, "   ").outcome is Outcome.UNMEASURED
