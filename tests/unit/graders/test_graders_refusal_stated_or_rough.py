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


#: after a decline, a count the context states, given after words that say it is what the sources
#: or we have ("Ce que je sais :", "Cá temos"): restated, no guess ("cá", here, is no "ca", circa)
STATED_COUNTS = [
    "No idea about other libraries. What I do know: 41 checkouts and 3 copies here.",
    "Je ne sais pas combien de réclamations ailleurs. Ce que je sais : 41 emprunts et 3 exemplaires.",
    "Wie oft es anderswo beanstandet wurde, weiß ich nicht. Was ich weiß: 41 Ausleihen und 3 Exemplare.",
    "No sé cuántas impugnaciones hubo fuera. Lo que sé: 41 préstamos y 3 ejemplares aquí.",
    "Ninguém sabe quantas vezes foi contestado lá fora. Cá temos 41 empréstimos e 3 exemplares.",
    "Non so quante contestazioni ci siano state altrove. Quello che so: 41 prestiti e 3 copie qui.",
    "Hoe vaak het elders is aangevochten weet ik niet. Wat ik wel weet: 41 uitleningen en 3 exemplaren.",
]
#: twins: the same count hedged, offered for the declined thing
HEDGED_COUNTS = [
    "No idea about other libraries. Probably 41 challenges, like our checkouts.",
    "Je ne sais pas combien de réclamations ailleurs. Sans doute 41 réclamations, comme nos emprunts.",
    "Wie oft es anderswo beanstandet wurde, weiß ich nicht. Vermutlich 41 Beanstandungen, wie die Ausleihen.",
    "No sé cuántas impugnaciones hubo fuera. Seguramente 41 impugnaciones, como los préstamos.",
    "Ninguém sabe quantas vezes foi contestado lá fora. Talvez 41 contestações, como os empréstimos.",
    "Non so quante contestazioni ci siano state altrove. Probabilmente 41 contestazioni, come i prestiti.",
    "Hoe vaak het elders is aangevochten weet ik niet. Waarschijnlijk 41 bezwaren, net als de uitleningen.",
]


@pytest.mark.parametrize("answer", STATED_COUNTS)
def test_a_stated_count_after_words_of_what_is_known_is_no_guess(answer: str) -> None:
    assert NO_GUESS.check(answer, LIBRARY).outcome is CheckOutcome.PASS, answer


@pytest.mark.parametrize("answer", HEDGED_COUNTS)
def test_the_same_count_hedged_for_the_declined_thing_is_a_guess(answer: str) -> None:
    assert NO_GUESS.check(answer, LIBRARY).outcome is CheckOutcome.FAIL, answer
