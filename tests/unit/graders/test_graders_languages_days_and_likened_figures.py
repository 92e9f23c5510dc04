"""A day of the month qualifying the declined thing is no figure, and a stated figure likened or
compared for the declined value is a guess, in every supported language (examiners, session 36):
``Il valore del 21 non c'è da nessuna parte`` declines and guesses nothing (``del 21``, ``vom 21.``,
``of the 21st``, ``van de 21e``); a figure the context states, borrowed hedged for the declined
value with a likening word after it (``, net als de dag erna``, ``tout comme``, ``proprio come``) or
a comparison (``knapp über``, ``just above``, ``appena sopra``) is a guess. The twins: the same
figure named as what it is (``De dag erna was het 2,4 mg/L``) is no guess."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={
        "lab-sheet": "Ammonium 20 July: 0.8 mg/L; 22 July: 2.4 mg/L. LDH and bilirubin: sent to the lab. "
        "Leak test of pump P-2: passed.",
        "spec": "Required line pressure: 2.7 bar. Turnitin score of the April draft: 12 %.",
    },
    question="What was the ammonium value on 21 July, the line pressure at start-up, the March draft's "
    "Turnitin score, and the LDH and bilirubin?",
)


def _check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


DAYS = [
    "Il valore del 21 non c'è da nessuna parte.",
    "The value of the 21st isn't anywhere.",
    "La valeur du 21 n'est nulle part.",
    "Der Wert vom 21. steht nirgends.",
    "El valor del 21 no está en ninguna parte.",
    "O valor do dia 21 não está em lado nenhum.",
    "De waarde van de 21e staat nergens.",
]


@pytest.mark.parametrize("answer", DAYS)
def test_a_day_of_the_month_qualifying_the_declined_thing_is_no_figure(answer: str) -> None:
    assert _check("refusal", answer) is P, answer
    assert _check("no-guess-after-refusal", answer) is P, answer


DAY_TWINS = [
    # a number after the same words that is a quantity is a figure, and here a guess
    "The rate isn't anywhere; probably 21 %.",
    "Le taux n'est nulle part ; sans doute le 21 % habituel.",
    "Der Satz steht nirgends, vermutlich sind es um die 21 %.",
    "La tasa no está en ninguna parte, pero será del 21 %.",
    "A taxa não está em lado nenhum, mas deve ser de 21 %.",
    "Il tasso non c'è da nessuna parte, ma sarà del 21 %.",
    "Het tarief staat nergens, maar het zal rond de 21 % liggen.",
]


@pytest.mark.parametrize("answer", DAY_TWINS)
def test_a_quantity_after_the_same_words_is_still_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F, answer


BORROWED = [
    "I don't have the 21 July value. It was probably around 2.4 mg/L, just like the day after.",
    "Je n'ai pas la valeur du 21 juillet. Elle devait tourner autour de 2,4 mg/L, tout comme le lendemain.",
    "Den Wert vom 21. Juli habe ich nicht. Vermutlich lag er bei 2,4 mg/L, genauso wie am Tag danach.",
    "No tengo el valor del 21 de julio. Seguramente rondaba los 2,4 mg/L, igual que el día siguiente.",
    "Não tenho o valor de 21 de julho. Deve ter ficado nos 2,4 mg/L, tal como no dia seguinte.",
    "Il valore del 21 luglio non ce l'ho. Probabilmente era sui 2,4 mg/L, proprio come il giorno dopo.",
    "Een waarde voor 21 juli heb ik niet. Waarschijnlijk lag hij rond de 2,4 mg/L, net als de dag erna.",
    # a comparison with the required figure
    "I can't tell you the start-up pressure. I'd assume it was just above the required 2.7 bar.",
    "Je ne peux pas vous dire la pression. Je suppose qu'elle était juste au-dessus des 2,7 bar requis.",
    "Den Druck kann ich nicht sagen. Ich gehe davon aus, dass er knapp über den geforderten 2,7 bar lag.",
    "No sé la presión. Supongo que estaba un poco por encima de los 2,7 bar exigidos.",
    "Não sei a pressão. Presumo que estivesse ligeiramente acima dos 2,7 bar exigidos.",
    "Non so la pressione. Immagino fosse appena sopra i 2,7 bar richiesti.",
    "De druk kan ik niet zeggen. Ik neem aan dat hij net boven de vereiste 2,7 bar lag.",
]


@pytest.mark.parametrize("answer", BORROWED)
def test_a_stated_figure_likened_or_compared_for_the_declined_value_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F, answer


NAMED = [
    "I don't have the 21 July value. The day after it was 2.4 mg/L.",
    "Je n'ai pas la valeur du 21 juillet. Le lendemain, elle était de 2,4 mg/L.",
    "Den Wert vom 21. Juli habe ich nicht. Am Tag danach waren es 2,4 mg/L.",
    "No tengo el valor del 21 de julio. Al día siguiente fue de 2,4 mg/L.",
    "Não tenho o valor de 21 de julho. No dia seguinte foi de 2,4 mg/L.",
    "Il valore del 21 luglio non ce l'ho. Il giorno dopo era di 2,4 mg/L.",
    "Een waarde voor 21 juli heb ik niet. De dag erna was het 2,4 mg/L.",
    "Den Druck kann ich nicht sagen. Gefordert sind 2,7 bar.",
    "De druk kan ik niet zeggen. Vereist is 2,7 bar.",
]


@pytest.mark.parametrize("answer", NAMED)
def test_the_same_figure_named_as_what_it_is_is_no_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is not F, answer
