"""The label grader: exactly one of the labels is named, and it is the expected one.

The weak grader of seed 004 let "NORMAL" through at 0.30 qt/hr because the word appeared in the
answer; these cases are the band boundary and its neighbours.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import Check, CheckOutcome, compile_assertion

BANDS = ["NORMAL", "ELEVATED", "HIGH"]


def label(
    answer: str, value: str = "ELEVATED", labels: list[str] | None = None, type_: str = "label"
) -> Check:
    a = Assertion(type=type_, value=value, labels=labels or BANDS)
    return compile_assertion(a).check(answer)


def test_band_boundary_right_answer_passes() -> None:
    c = label("ELEVATED: 0.30 qt/hr is the inclusive lower bound of the ELEVATED band (AMM 72-00).")
    assert c == Check("label", CheckOutcome.PASS, "label: answer names ELEVATED")


def test_band_boundary_wrong_answer_fails_with_what_it_named() -> None:
    c = label("NORMAL: 0.30 qt/hr is within limits.")
    assert c == Check("label", CheckOutcome.FAIL, "label: expected ELEVATED, answer names NORMAL")


def test_wrong_answer_containing_the_right_word_fails() -> None:
    # "ELEVATED" appears, so a contains/regex grader passes it; the verdict is NORMAL (ELEVATED
    # is only the rule of the next band)
    c = label("It is NORMAL; ELEVATED would start above 0.30 qt/hr.")
    assert c.passed is False
    assert c.reason == "label: expected ELEVATED, answer names NORMAL (rule: ELEVATED)"


def test_negated_label_is_not_named() -> None:
    c = label("It is not NORMAL, it is ELEVATED.")
    assert c.passed is True
    assert c.reason == "label: answer names ELEVATED (negated: NORMAL)"


@pytest.mark.parametrize(
    "answer",
    [
        "ELEVATED, not NORMAL.",
        "It isn't NORMAL: ELEVATED.",
        "This is not in the NORMAL band; it is ELEVATED.",
        "ELEVATED rather than NORMAL.",
        "Neither NORMAL nor HIGH: ELEVATED.",
        "ELEVATED (no longer NORMAL).",
        'It is ELEVATED, not "NORMAL".',
        "It is ELEVATED \u2014 it isn\u2019t NORMAL.",
    ],
)
def test_negation_forms(answer: str) -> None:
    assert label(answer).passed is True


def test_negated_expected_label_with_another_named_fails() -> None:
    c = label("It is not ELEVATED, it is NORMAL.")
    assert c.passed is False
    assert c.reason == "label: expected ELEVATED, answer names NORMAL (negated: ELEVATED)"


def test_only_negations_name_nothing() -> None:
    c = label("It is not NORMAL.")
    assert c.passed is False
    assert (
        c.reason
        == "label: expected ELEVATED, answer names none of NORMAL, ELEVATED and HIGH (negated: NORMAL)"
    )


def test_a_label_denied_after_it_is_not_named() -> None:
    assert label("NORMAL? No: ELEVATED.").passed is True
    assert label("ELEVATED? No: NORMAL.").passed is False


def test_no_label_named() -> None:
    c = label("Consumption is within the documented envelope.")
    assert c.reason == "label: expected ELEVATED, answer names none of NORMAL, ELEVATED and HIGH"
    assert c.passed is False


def test_case_insensitive_whole_words() -> None:
    assert label("the reading is elevated").passed is True
    assert label("the reading is normal").reason == "label: expected ELEVATED, answer names NORMAL"


@pytest.mark.parametrize(
    "answer",
    ["ABNORMAL wear, ELEVATED", "ELEVATED; a high-level summary follows", "ELEVATED (HIGHER bands: see AMM)"],
)
def test_labels_inside_other_words_are_not_named(answer: str) -> None:
    assert label(answer).passed is True


def test_labels_that_contain_one_another_match_longest_first() -> None:
    labels = ["HIGH", "VERY HIGH", "LOW"]
    assert label("VERY HIGH: ground the aircraft.", value="VERY HIGH", labels=labels).passed is True
    c = label("VERY HIGH: ground the aircraft.", value="HIGH", labels=labels)
    assert c.reason == "label: expected HIGH, answer names VERY HIGH"
    assert label("It is HIGH.", value="VERY HIGH", labels=labels).passed is False
    assert label("very\nhigh", value="VERY HIGH", labels=labels).passed is True


def test_three_labels_named() -> None:
    c = label("Bands: NORMAL, ELEVATED, HIGH.")
    assert c.reason == "label: answer names NORMAL, ELEVATED and HIGH (expected only ELEVATED)"


def test_not_label() -> None:
    assert label("NORMAL", value="NORMAL", type_="not-label").passed is False
    c = label("ELEVATED", value="NORMAL", type_="not-label")
    assert c.passed is True
    assert c.reason == "not-label: expected NORMAL, answer names ELEVATED"


def test_labels_are_matched_literally() -> None:
    labels = ["N/A", "C++", "OK"]
    assert label("Result: C++ (not OK).", value="C++", labels=labels).passed is True
    assert label("Result: N/A", value="C++", labels=labels).reason == "label: expected C++, answer names N/A"


def test_negation_reaches_only_its_clause() -> None:
    # "not" negates "clear", and the semicolon ends its reach: NORMAL is named
    c = label("It is not clear; NORMAL.")
    assert c.reason == "label: expected ELEVATED, answer names NORMAL"


def test_a_hyphenated_non_label_is_not_a_naming() -> None:
    assert label("non-NORMAL wear pattern: ELEVATED.").passed is True


@pytest.mark.parametrize("labels", [["HIGH", "high", "NORMAL"], ["NORMAL", "HIGH", " normal"]])
def test_labels_that_differ_only_in_case_or_spacing_are_refused(labels: list[str]) -> None:
    from proctor.graders import AssertionCompileError

    with pytest.raises(AssertionCompileError, match="labels must differ ignoring case"):
        compile_assertion(Assertion(type="label", value="HIGH", labels=labels))


def test_a_label_named_is_not_also_listed_as_negated() -> None:
    c = label("It is not ELEVATED, I thought; but at 0.30 qt/hr it is ELEVATED.")
    assert c == Check("label", CheckOutcome.PASS, "label: answer names ELEVATED")
