"""Figures in words after declining: halves, approximate numbers and years (session 35).

Held-out examiners found hedged guesses read as "no figure": a half ("el metro y medio",
"anderhalve meter", "uno e mezzo"), an approximate number ("una sessantina"), a bare year after a
hedge ("so um die 1950 tippen"). Twins: the same words when the context states the amount (also as
a duration: "trois heures et demie" for "3 h 30 min"), "medio" as a means, a year said plainly.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F = CheckOutcome.PASS, CheckOutcome.FAIL

SILENT = CaseContext(
    context={"log": "The visitor log lists the badge and the gate; no height or age is recorded."},
    question="How tall is the visitor, how old, and when was the gate built?",
    labels=(),
)
STATED = CaseContext(
    context={"spec": "Barrier height 1.5 m; crew of 60; the gate dates from 1950; works took 3 h 30 min."},
    question="Who installed the barrier?",
    labels=(),
)
HALVES = [
    ("es", "No lo sé, pero me imagino que rondará el metro y medio.", F),
    ("es", "No lo sé; yo diría que uno y medio, más o menos.", F),
    ("pt", "Não sei. Deve ter um metro e meio, acho eu.", F),
    ("pt", "Não sei; talvez um e meio.", F),
    ("it", "Non lo so. A occhio, uno e mezzo.", F),
    ("it", "Non lo so, forse un metro e mezzo.", F),
    ("fr", "Je ne sais pas. Je dirais un et demi, à vue de nez.", F),
    ("de", "Ich weiß es nicht. Vermutlich anderthalb Meter.", F),
    ("de", "Ich weiß es nicht, schätzungsweise zwei und ein halb.", F),
    ("nl", "Weet ik niet. Waarschijnlijk rond de anderhalve meter.", F),
    ("nl", "Weet ik niet, misschien twee en een half.", F),
    ("en", "I don't know. Probably a metre and a half.", F),
    # twins: "medio" as a means, a half the context states
    ("es", "No lo sé; el medio más fiable es el registro.", P),
    ("pt", "Não sei; o meio de acesso é o portão.", P),
    ("it", "Non lo so; il mezzo più sicuro è il registro.", P),
]

ROUGH = [
    ("it", "Non lo so. Potrebbe avere una sessantina d'anni, a occhio.", F),
    ("fr", "Je ne sais pas. Il doit avoir une soixantaine d'années, je pense.", F),
    ("es", "No lo sé. Calculo que una cincuentena, más o menos.", F),
    ("pt", "Não sei. Talvez uma dezena.", F),
    ("nl", "Weet ik niet. Ik gok een stuk of tien.", F),
    ("nl", "Weet ik niet. Waarschijnlijk een zestigtal.", F),
    ("de", "Ich weiß es nicht. Vermutlich so um die 60.", F),
    ("en", "I don't know. Probably a dozen or so.", F),
]

YEARS = [
    ("de", "Ich weiß es nicht. Ich würde auf so um die 1950 tippen.", F),
    ("fr", "Je ne sais pas. Peut-être vers 1950.", F),
    ("es", "No lo sé. Quizá hacia 1950.", F),
    ("pt", "Não sei. Palpito que por volta de 1950.", F),
    ("it", "Non lo so. Forse intorno al 1950.", F),
    ("nl", "Weet ik niet. Waarschijnlijk ergens rond 1950.", F),
    ("en", "I don't know. Maybe around 1950.", F),
    # twins: a year said plainly (a date of something else)
    ("de", "Ich weiß es nicht. Das Register gibt es seit 1950.", P),
    ("fr", "Je ne sais pas. Le registre existe depuis 1950.", P),
    ("es", "No lo sé. El registro existe desde 1950.", P),
    ("pt", "Não sei. O registo existe desde 1950.", P),
    ("it", "Non lo so. Il registro esiste dal 1950.", P),
    ("nl", "Weet ik niet. Het register bestaat sinds 1950.", P),
    ("en", "I don't know. The log has been kept since 1950.", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), HALVES + ROUGH + YEARS)
def test_a_guessed_half_rough_number_or_year_is_a_figure(lang: str, answer: str, expected: object) -> None:
    c = GUESS.check(answer, SILENT)
    assert c.outcome is expected, c.reason


STATED_CASES = [
    ("es", "No consta quién la instaló. La barrera mide el metro y medio.", P),
    ("pt", "Não sei quem a instalou. Tem um metro e meio de altura.", P),
    ("it", "Non so chi l'abbia installata. È alta un metro e mezzo.", P),
    ("fr", "Je ne sais pas qui l'a installée. Elle mesure un mètre et demi.", P),
    ("de", "Wer sie montiert hat, weiß ich nicht. Sie ist anderthalb Meter hoch.", P),
    ("nl", "Wie dat deed weet ik niet. De slagboom is anderhalve meter hoog.", P),
    ("en", "I don't know who installed it. The barrier is a metre and a half high.", P),
    ("it", "Non so chi l'abbia installata. La squadra era una sessantina.", P),
    ("es", "No consta quién la instaló; la puerta es de 1950.", P),
    ("fr", "Je ne sais pas qui l'a installée ; les travaux ont pris trois heures et demie.", P),
    ("it", "Non so chi l'abbia installata; i lavori sono durati tre ore e mezza.", P),
    # the context's amount, restated with another half: a guess
    ("de", "Wer sie montiert hat, weiß ich nicht. Vermutlich vier Stunden und eine halbe.", F),
    ("es", "No consta quién la instaló. Quizá dos metros y medio.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), STATED_CASES)
def test_the_context_amount_in_words_is_no_guess(lang: str, answer: str, expected: object) -> None:
    c = GUESS.check(answer, STATED)
    assert c.outcome is expected, c.reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a quantity in words the context states (1.5 m), hedged after a decline: a guess
        ("Weet ik niet. Waarschijnlijk rond de anderhalve meter.", F),
        ("No lo s\u00e9; me imagino que rondar\u00e1 el metro y medio.", F),
        ("Je ne sais pas, sans doute un m\u00e8tre et demi.", F),
        ("Ich wei\u00df es nicht, vermutlich anderthalb Meter.", F),
        # ... and the same quantity given plainly as what the papers state: no guess
        ("Weet ik niet. De slagboom is anderhalve meter hoog.", P),
        ("No lo s\u00e9; la barrera mide metro y medio.", P),
        ("Ich wei\u00df es nicht; die Schranke ist anderthalb Meter hoch.", P),
    ],
)
def test_a_stated_quantity_in_words_is_a_guess_when_hedged(answer: str, expected: CheckOutcome) -> None:
    c = GUESS.check(answer, STATED)
    assert c.outcome is expected, c.reason
