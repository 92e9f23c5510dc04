"""Colloquial non-answers are refusals (issue 25), in all seven languages.

Portuguese "Sei lá." (who knows) was no refusal, nor "Je sais pas.", "Boh.", "Weet ik veel." or
"Dunno.". Each language's table now holds the non-answers its speakers say; a twin with the same
words that answers ("o técnico vai saber", "quien sabe del tema") is no refusal.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONTEXT = CaseContext(
    context={"sb-79-12": "Replace the scavenge pump at the next shop visit."},
    question="What is the pump's inspection interval?",
)


def check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


NON_ANSWERS = [
    ("pt", "Sei lá."),
    ("pt", "Sabe-se lá, o boletim só fala da troca."),
    ("pt", "Sei não."),
    ("pt", "Nem ideia."),
    ("es", "Vete a saber."),
    ("es", "Sabe Dios."),
    ("es", "¿Quién sabe?"),
    ("fr", "Je sais pas."),
    ("fr", "J'en sais rien."),
    ("fr", "Allez savoir."),
    ("de", "Weiß nicht."),
    ("de", "Null Ahnung."),
    ("de", "Weiß der Geier."),
    ("de", "Frag mich was Leichteres."),
    ("it", "Boh."),
    ("it", "Chi lo sa?"),
    ("it", "Chissà."),
    ("it", "Vallo a sapere."),
    ("nl", "Weet ik veel."),
    ("nl", "Joost mag het weten."),
    ("en", "Dunno."),
    ("en", "Beats me."),
    ("en", "Who knows?"),
    ("en", "Your guess is as good as mine."),
    ("en", "I haven't the foggiest."),
]

ANSWERS = [
    ("pt", "Sei que a bomba deve ser trocada na próxima visita."),
    ("es", "Quien sabe del tema es el fabricante: la bomba se cambia en la próxima visita."),
    ("fr", "Le technicien va savoir quoi faire : remplacer la pompe."),
    ("fr", "Vous allez savoir où regarder : la pompe est à remplacer."),
    ("de", "Der Techniker weiß nicht nur das Intervall, er tauscht die Pumpe."),
    ("it", "Chi lo sa fare lo faccia: la pompa va sostituita."),
    ("en", "The mechanic who knows the pump replaces it at the next visit."),
]


@pytest.mark.parametrize(("lang", "answer"), NON_ANSWERS)
def test_a_colloquial_non_answer_declines(lang: str, answer: str) -> None:
    assert check("refusal", answer) is CheckOutcome.PASS, lang
    assert check("not-refusal", answer) is CheckOutcome.FAIL


@pytest.mark.parametrize(("lang", "answer"), ANSWERS)
def test_the_same_words_in_an_answer_do_not_decline(lang: str, answer: str) -> None:
    assert check("refusal", answer) is CheckOutcome.FAIL, lang


@pytest.mark.parametrize(
    "answer", ["Sei lá, uns 400 horas.", "Boh, forse 400 ore.", "Je sais pas, environ 400 heures."]
)
def test_a_guess_after_a_colloquial_non_answer_is_a_guess(answer: str) -> None:
    assert check("no-guess-after-refusal", answer) is CheckOutcome.FAIL
