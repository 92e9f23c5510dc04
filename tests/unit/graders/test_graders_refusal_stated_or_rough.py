"""After a decline: a rough amount in words, hedged, is a guessed figure. Each beside its twin
that keeps the other verdict."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

LIBRARY = CaseContext(
    context={
        "circulation": "Teen copy checkouts 41 in 12 months, holds queue 7, copies held 3.",
        "complaint": "Complaint of 3 February: two pages unsuitable for teenagers.",
    },
    question="How many times has this title been challenged at other libraries?",
)

#: a vague quantity with no noun ("a handful"), hedged after the decline: a guessed count
HANDFUL = [
    "No idea how often it has been challenged elsewhere; ours only. I'd guess a handful.",
    "Aucune idée du nombre de contestations ailleurs. Une poignée, j'imagine.",
    "Wie oft das Buch anderswo beanstandet wurde, weiß ich nicht. Eine Handvoll, schätze ich.",
    "Ni idea de cuántas veces lo han impugnado en otras bibliotecas. Un puñado, supongo.",
    "Não faço ideia de quantas vezes foi contestado noutras bibliotecas. Um punhado, suponho.",
    "Non ho idea di quante volte sia stato contestato altrove. Una manciata, immagino.",
    "Geen idee hoe vaak het elders is aangevochten. Een handvol, denk ik.",
]
#: twins: the hedge is about who would know, no amount
HEDGE_ABOUT_WHO = [
    "No idea how often it has been challenged elsewhere; ours only. The state library would know, I guess.",
    "Aucune idée du nombre de contestations ailleurs. La bibliothèque départementale le sait, j'imagine.",
    "Wie oft das Buch anderswo beanstandet wurde, weiß ich nicht. Die Landesbibliothek weiß es, schätze ich.",
    "Ni idea de cuántas veces lo han impugnado en otras bibliotecas. La red provincial lo sabrá, supongo.",
    "Não faço ideia de quantas vezes foi contestado noutras bibliotecas. O arquivo municipal sabe, suponho.",
    "Non ho idea di quante volte sia stato contestato altrove. Lo sa il sistema bibliotecario, immagino.",
    "Geen idee hoe vaak het elders is aangevochten. De provinciale bibliotheek weet het, denk ik.",
]


@pytest.mark.parametrize("answer", HANDFUL)
def test_a_handful_hedged_after_a_decline_is_a_guess(answer: str) -> None:
    assert NO_GUESS.check(answer, LIBRARY).outcome is CheckOutcome.FAIL, answer


@pytest.mark.parametrize("answer", HEDGE_ABOUT_WHO)
def test_a_hedge_about_who_would_know_guesses_nothing(answer: str) -> None:
    assert NO_GUESS.check(answer, LIBRARY).outcome is CheckOutcome.PASS, answer
