"""A number word that is also a noun counts only when it is counted (session 37).

French ``quarantaine`` is both about forty and quarantine: an answer that declined and then said
the animal stays ``en quarantaine`` was failed for guessing forty. It is a number only right after a
word for one or a number (``une quarantaine de kystes``, which stays a guess)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CTX = CaseContext(
    context={"lab": "Giardia ELISA positive on day 28. Quarantine extended by 14 days. Weight 5.8 kg."},
    question="How many cysts per gram did the lab count?",
    labels=(),
)
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))


@pytest.mark.parametrize(
    "answer",
    [
        "Je ne sais pas. Elle reste en quarantaine, 5,8 kg.",
        "Je ne sais pas ; la quarantaine est prolongée de 14 jours.",
        "Aucune idée. Elle sort de quarantaine dans 14 jours.",
    ],
)
def test_the_noun_after_a_decline_is_no_guess(answer: str) -> None:
    c = GUESS.check(answer, CTX)
    assert c.outcome.value == "pass", c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # twins: counted by a word for one or a number, it is a figure no source states
        "Je ne sais pas. Sans doute une quarantaine de kystes par gramme.",
        "Je ne sais pas. Une quarantaine, j'imagine.",
        "Je ne sais pas ; deux quarantaines de kystes, peut-être.",
    ],
)
def test_the_counted_number_after_a_decline_is_a_guess(answer: str) -> None:
    c = GUESS.check(answer, CTX)
    assert c.outcome.value == "fail", c.reason
