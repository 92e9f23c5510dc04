"""Readings of ``label`` that ``make mutate`` found untested on ``_language.py`` (each test fails
on the mutant it was written for): a hedge "if not X" is only "not" (a "no longer" after "if" is
a plain negation), and a label defined in mixed case and written in lower case before a noun is
the verdict, not an adjective (only an upper-case label written in lower case can be one)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


def _label(answer: str, expected: str, labels: list[str]) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type="label", value=expected, labels=labels)).check(answer)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "The band is ELEVATED, if no longer HIGH.",
        "The band is ELEVATED, if never HIGH.",
    ],
)
def test_a_negation_after_if_is_no_hedge(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"])
    assert outcome is P, reason
    # "ELEVATED, if not HIGH" is the hedge: it names HIGH too
    assert _label("The band is ELEVATED, if not HIGH.", "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"])[0] is F


@pytest.mark.parametrize(
    "answer", ["The risk is rated at medium severity.", "We assess this incident at medium priority."]
)
def test_a_mixed_case_label_in_lower_case_before_a_noun_is_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "Medium", ["Low", "Medium", "High"])
    assert outcome is P, reason
    assert _label(answer, "High", ["Low", "Medium", "High"])[0] is F


def test_a_double_negation_is_still_read_for_its_condition() -> None:
    # "nothing other than HIGH" names HIGH, but inside a condition it is a hypothetical HIGH
    answer = "If it were nothing other than HIGH, we would stop the engine; it is ELEVATED."
    outcome, reason = _label(answer, "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"])
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The consumption never went above 0.60 and is not HIGH; it is ELEVATED.",
        "Nothing in the log is alarming and the band is not HIGH; it is ELEVATED.",
    ],
)
def test_a_negator_earlier_in_the_clause_leaves_not_a_negation(answer: str) -> None:
    # only "anything but X" after a negator names X; "never ... and is not HIGH" is still "not HIGH"
    outcome, reason = _label(answer, "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"])
    assert outcome is P, reason


def test_a_list_after_a_negation_is_negated_after_a_named_label() -> None:
    # the label joined to a negated one ("not NORMAL or HIGH") shares its negation, whatever came first
    outcome, reason = _label(
        "The band is ELEVATED, not NORMAL or HIGH.", "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"]
    )
    assert outcome is P, reason


def test_nothing_short_of_a_label_names_it() -> None:
    # a negator before a two-word cue ("nothing short of", "not out of") is a double negation
    outcome, reason = _label(
        "The oil consumption is nothing short of HIGH.", "HIGH", ["NORMAL", "ELEVATED", "HIGH"]
    )
    assert outcome is P, reason


def test_a_label_heading_the_answer_is_its_verdict() -> None:
    # "ELEVATED: from 0.30 to 0.60" heads the answer: the verdict, not a band's rule
    answer = "ELEVATED: from 0.30 to 0.60 qt/h, which is where 0.45 falls."
    outcome, reason = _label(answer, "ELEVATED", ["NORMAL", "ELEVATED", "HIGH"])
    assert outcome is P, reason
