"""How the label grader reads each occurrence of a label, as the reason of its verdict shows it.

The expected band is ELEVATED. Each answer below also mentions another band; whether that other
band is named (the answer names two: FAIL) or read as negated, hypothetical, a question, a band's
rule, a quotation, an adjective or text addressed to the grader (PASS, with the reading in the
reason) is the grader's verdict a user sees.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion

BANDS = ["NORMAL", "ELEVATED", "HIGH"]
LABEL = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
ONLY = " (expected only ELEVATED)"
BOTH_NORMAL = "answer names both ELEVATED and NORMAL" + ONLY
BOTH_HIGH = "answer names both ELEVATED and HIGH" + ONLY


def reason(answer: str) -> str:
    return LABEL.check(answer).reason.removeprefix("label: ")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # negated, excepted or contrasted before the label
        ("ELEVATED, instead of NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED as opposed to NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED with the exception of NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED; no HIGH.", "answer names ELEVATED (negated: HIGH)"),
        ("ELEVATED. Not NORMAL, nor HIGH.", "answer names ELEVATED (negated: NORMAL and HIGH)"),
        ("Not NORMAL or HIGH: ELEVATED.", "answer names ELEVATED (negated: NORMAL and HIGH)"),
        ("ELEVATED. It isn't HIGH.", "answer names ELEVATED (negated: HIGH)"),
        ("It is ELEVATED, surely not NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        (
            "The reading is ELEVATED if outside the NORMAL band.",
            "expected ELEVATED, answer names none of NORMAL, ELEVATED and HIGH"
            " (hypothetical: ELEVATED; negated: NORMAL)",
        ),
        # a figure (and its unit) between the cue and the label
        ("ELEVATED: above the 0.30 NORMAL limit.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED, below the 0.60 qt/hr HIGH threshold.", "answer names ELEVATED (negated: HIGH)"),
        ("ELEVATED, below the 2,000 h HIGH limit.", "answer names ELEVATED (negated: HIGH)"),
        ("ELEVATED. Engine 2 HIGH.", BOTH_HIGH),  # a designator and its number: no cue
        # a double negation names the label
        ("ELEVATED. Nothing with the exception of NORMAL fits.", BOTH_NORMAL),
        ("ELEVATED. It is nothing but NORMAL.", BOTH_NORMAL),
        ("ELEVATED. It can't be anything other than NORMAL.", BOTH_NORMAL),
        ("ELEVATED, if not HIGH.", BOTH_HIGH),
        ("ELEVATED. It is nothing other than NORMAL.", BOTH_NORMAL),
        # a double negation is still read for the rest of its clause
        (
            "ELEVATED. At first I thought it was nothing but NORMAL.",
            "answer names ELEVATED (negated: NORMAL)",
        ),
        ("ELEVATED. Is it nothing but NORMAL?", "answer names ELEVATED (question: NORMAL)"),
        # a cue at the start of its clause, a filler after it, one negator before a single cue
        ("ELEVATED; as opposed to NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. It is not quite in the NORMAL band.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. Nobody would call it not NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        # a label right after a comment is outside it
        ("ELEVATED. <!-- note -->NORMAL", BOTH_NORMAL),
        ("ELEVATED, perhaps if not HIGH.", BOTH_HIGH),
        # disowned, or denied after the label
        ("ELEVATED. At first I thought NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. Some might call it NORMAL.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. It seems NORMAL, but it is ELEVATED.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. It looks NORMAL.", BOTH_NORMAL),  # an appearance not contradicted
        ("ELEVATED. NORMAL (not really).", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. NORMAL does not apply.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. NORMAL is not correct.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. NORMAL isn't the answer.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. NORMAL - scratch that.", "answer names ELEVATED (negated: NORMAL)"),
        ("ELEVATED. It is NORMAL? No.", "answer names ELEVATED (negated: NORMAL)"),
        # hypothetical
        ("ELEVATED. If it were HIGH we would ground it.", "answer names ELEVATED (hypothetical: HIGH)"),
        ("ELEVATED. HIGH only if above 0.60.", "answer names ELEVATED (hypothetical: HIGH)"),
        ("ELEVATED. NORMAL when below 0.30.", "answer names ELEVATED (hypothetical: NORMAL)"),
        ("ELEVATED. Whether NORMAL or not.", "answer names ELEVATED (hypothetical: NORMAL)"),
        (
            "ELEVATED. Escalate to HIGH handling only if it exceeds 0.60.",
            "answer names ELEVATED (hypothetical: HIGH)",
        ),
        ("ELEVATED. Use HIGH procedures if it rises.", "answer names ELEVATED (hypothetical: HIGH)"),
        ("Between NORMAL and HIGH: ELEVATED.", "answer names ELEVATED (hypothetical: NORMAL and HIGH)"),
        # a question, unless answered
        ("Is it NORMAL? It is ELEVATED.", "answer names ELEVATED (question: NORMAL)"),
        ("ELEVATED. NORMAL?", "answer names ELEVATED (question: NORMAL)"),
        ("ELEVATED. Is it HIGH? Yes.", BOTH_HIGH),
        ("Why is it NORMAL? It is ELEVATED.", "answer names both NORMAL and ELEVATED" + ONLY),
        # the rule of a band
        ("ELEVATED. NORMAL below 0.30 qt/hr.", "answer names ELEVATED (rule: NORMAL)"),
        ("ELEVATED. Below 0.30 qt/hr is NORMAL.", "answer names ELEVATED (rule: NORMAL)"),
        ("ELEVATED. HIGH starts at 0.60.", "answer names ELEVATED (rule: HIGH)"),
        ("ELEVATED. The HIGH band starts at 0.60.", "answer names ELEVATED (rule: HIGH)"),
        ("ELEVATED. At least 0.60 gives HIGH.", "answer names ELEVATED (rule: HIGH)"),
        ("HIGH: 0.60 and above. The reading is ELEVATED.", "answer names both HIGH and ELEVATED" + ONLY),
        # quoted or mentioned
        ("ELEVATED. The term NORMAL is for lower readings.", "answer names ELEVATED (quoted: NORMAL)"),
        ('ELEVATED. He said "it is clearly NORMAL here".', "answer names ELEVATED (quoted: NORMAL)"),
        ('ELEVATED. He wrote "clearly NORMAL here".', "answer names ELEVATED (quoted: NORMAL)"),  # 3 words
        ('ELEVATED. "One, two, three" and "clearly NORMAL here".', "answer names ELEVATED (quoted: NORMAL)"),
        ('ELEVATED. He wrote "quite NORMAL".', BOTH_NORMAL),  # two words in quotes are no quotation
        ("ELEVATED.\n> NORMAL below 0.30", "answer names ELEVATED (quoted: NORMAL)"),
        # a lower-case label as an adjective, or a suffix
        ("Under normal conditions it is ELEVATED.", "answer names ELEVATED (adjective: NORMAL)"),
        ("ELEVATED under high load.", "answer names ELEVATED (adjective: HIGH)"),
        ("ELEVATED. NORMAL ish.", "answer names ELEVATED (adjective: NORMAL)"),
        ("ELEVATED. It is normal.", BOTH_NORMAL),
        ("ELEVATED in normal bands.", BOTH_NORMAL),  # a verdict noun after it: the band itself
        ("ELEVATED. It runs at normal for the type.", BOTH_NORMAL),  # a function word after it: no adjective
        ("ELEVATED, and normal is wrong.", "answer names ELEVATED (negated: NORMAL)"),
        # addressed to the grader
        ("It is ELEVATED. <!-- NORMAL -->", "answer names ELEVATED (addressed to the grader: NORMAL)"),
        ("It is ELEVATED. HIGH PASS.", "answer names ELEVATED (addressed to the grader: HIGH)"),
        ("It is ELEVATED. PASS.", "answer names ELEVATED"),
    ],
)
def test_how_the_other_band_is_read(answer: str, expected: str) -> None:
    assert reason(answer) == expected


def test_a_label_of_two_words_as_an_adjective_across_a_line_break() -> None:
    labels = ["VERY HIGH", "LOW"]
    check = compile_assertion(Assertion(type="label", value="LOW", labels=labels))
    adjective = "label: answer names LOW (adjective: VERY HIGH)"
    assert check.check("It is LOW under very\nhigh load.").reason == adjective
    assert check.check("It is LOW. It is very\nhigh.").reason == (
        "label: answer names both LOW and VERY HIGH (expected only LOW)"
    )


def test_a_label_that_begins_another_label_is_matched_as_the_longer_one() -> None:
    labels = ["HIGH", "HIGH RISK", "LOW"]
    check = compile_assertion(Assertion(type="label", value="HIGH RISK", labels=labels))
    assert check.check("HIGH RISK: ground it.").reason == "label: answer names HIGH RISK"
    assert check.check("HIGH: ground it.").reason == "label: expected HIGH RISK, answer names HIGH"


@pytest.mark.parametrize(("reach", "expected"), [(96, "hypothetical: HIGH"), (97, None)])
def test_a_condition_is_read_96_characters_back_in_its_clause(reach: int, expected: str | None) -> None:
    condition = "If the reading on the left engine of the aircraft after the long flight over the sea were"
    answer = f"It is ELEVATED. {condition.ljust(reach)}HIGH."
    assert answer.index("HIGH") - answer.index("If") == reach
    assert reason(answer) == (f"answer names ELEVATED ({expected})" if expected else BOTH_HIGH)


def test_lower_case_labels_written_in_lower_case_are_the_labels_themselves() -> None:
    lower = compile_assertion(
        Assertion(type="label", value="elevated", labels=["normal", "elevated", "high"])
    )
    assert not lower.check("elevated under high load.").passed
