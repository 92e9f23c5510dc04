"""String assertions at their edges: a value found at the very start of the answer, a JSON
number below the expected one, a look-alike character matched as written at position 0."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion


@pytest.mark.parametrize("dialect", ["proctor", "promptfoo"])
@pytest.mark.parametrize("type_", ["contains-any", "icontains-any"])
def test_a_value_at_the_very_start_of_the_answer_is_found(type_: str, dialect: str) -> None:
    c = compile_assertion(Assertion(type=type_, value=["ELEVATED", "HIGH"], dialect=dialect)).check(
        "ELEVATED: the rate is 0.45 qt/h."
    )
    assert c.outcome is CheckOutcome.PASS


@pytest.mark.parametrize(("want", "answer"), [(0.45, "0.4"), (2, "1"), (-1, "-2")])
def test_a_json_number_other_than_the_expected_one_is_not_equal_whichever_is_larger(
    want: float, answer: str
) -> None:
    c = compile_assertion(Assertion(type="equals", value={"rate": want})).check(f'{{"rate": {answer}}}')
    assert c.outcome is CheckOutcome.FAIL
    c = compile_assertion(Assertion(type="equals", value={"rate": want})).check(f'{{"rate": {want}}}')
    assert c.outcome is CheckOutcome.PASS


def test_a_look_alike_at_the_start_of_the_answer_is_quoted_where_it_matches_as_written() -> None:
    # a Cyrillic O in place of the Latin one: the canonical text reads "Oil", the answer as written does not
    c = compile_assertion(Assertion(type="not-regex", value="[\u0400-\u04ff]")).check(
        "\u041eil pressure is NORMAL."
    )
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason == 'not-regex: answer matches /[\u0400-\u04ff]/ at 0 (as written): "\u041e"'


def test_an_answer_shorter_than_max_length_passes() -> None:
    c = compile_assertion(Assertion(type="max-length", value=20)).check("ELEVATED")
    assert c.outcome is CheckOutcome.PASS
    assert c.reason == "max-length: answer has 8 characters, limit 20"


def test_a_json_answer_that_differs_is_quoted_whole_as_written() -> None:
    # a ligature the canonical text spells as two letters: the quote is of the answer as written
    c = compile_assertion(Assertion(type="equals", value={"part": "filter"})).check('{"part": "\ufb01lter"}')
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason.endswith("answer is \"{'part': '\ufb01lter'}\"")
