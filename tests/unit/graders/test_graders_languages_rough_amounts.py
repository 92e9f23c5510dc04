"""Rough amounts guessed in words after declining (issue 25, session 32).

Held-out examiners found guesses read as "no figure": one of a unit a few words after a marker of
guessing ("waarschijnlijk over een jaar"), with a size or a half before the unit ("une petite
heure", "uma meia hora", "media hora"), a Dutch diminutive unit ("een uurtje"), "a day or two" in
any language, and a number word the context happens to state but the answer hedges ("deux et
demi, peut-être"). Twins: a unit word with no amount, a number word stated plainly, stay quiet.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONTEXT = CaseContext(
    context={"visit": "Inspection 2 of 3 done on 12 March; each visit took 1.5 h; 10 staff on site."},
    question="When will the works be finished?",
    labels=(),
)
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F = CheckOutcome.PASS, CheckOutcome.FAIL

CASES = [
    ("nl", "Weet ik niet. Waarschijnlijk over een maand weer klaar.", F),
    ("nl", "Staat nergens. Ik gok op een dag of drie.", F),
    ("nl", "Geen idee; reken op een weekje of twee.", F),
    ("fr", "Impossible à dire. À vue de nez, une petite semaine.", F),
    ("fr", "Je ne sais pas, peut-être une demi-heure.", F),
    ("pt", "Não sei; talvez uma meia hora.", F),
    ("es", "No consta. Calculo que media semana, como mucho.", F),
    ("it", "Non lo so, forse mezz'ora.", F),
    ("de", "Ich weiß es nicht, vermutlich eine halbe Stunde.", F),
    ("en", "I don't know. Maybe a day or two.", F),
    ("fr", "Aucune idée. Deux, peut-être ?", F),
    ("pt", "Não sei dizer. Deve andar pelos dois.", F),
    ("it", "Non lo so. Direi una quindicina.", F),
    ("pt", "Não sei. Uma vintena, talvez.", F),
    ("nl", "Weet ik niet, een twintigtal misschien.", F),
    # twins: a unit word with no amount, a hedge with nothing guessed, the context's figure plainly
    ("en", "I don't know. Probably the hours are logged elsewhere.", P),
    ("nl", "Weet ik niet. Waarschijnlijk komt de ploeg vandaag langs.", P),
    ("fr", "Je ne sais pas. Deux inspections sur trois sont faites.", P),
    ("de", "Kann ich nicht sagen. Bekannt ist nur: zwei von drei Inspektionen.", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_rough_amount_guessed_in_words_is_a_guess(lang: str, answer: str, expected: object) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is expected, c.reason
