"""A figure the context gives for one quantity, offered under a hedge for the declined one after a
contrast, is a guess even with no "also" or "like" (held-out examiners, session 35), in all seven
languages. Twin: the same figure, hedged too, named as what the context says it is: a side fact."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"lab": "Tank T7: molecular SO2 0.5 mg/L, free SO2 28 mg/L, pH 3.55."},
    question="How much dissolved oxygen is there in T7?",
)


def _check(answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, CONTEXT).outcome


OFFERED = [
    "Dissolved oxygen isn't in the sheet, but it's probably around 0.5 mg/L.",
    "L'oxygène dissous n'est pas dans la fiche, mais il doit tourner autour de 0,5 mg/L.",
    "Der gelöste Sauerstoff steht nicht im Protokoll, aber er dürfte bei etwa 0,5 mg/L liegen.",
    "El oxígeno disuelto no está en la hoja, pero debe de rondar los 0,5 mg/L.",
    "Oxigénio dissolvido não está no boletim, mas deve andar pelos 0,5 mg/L.",
    "L'ossigeno disciolto non è nella scheda, ma dovrebbe aggirarsi sui 0,5 mg/L.",
    "Opgeloste zuurstof staat niet in het blad, maar het zit waarschijnlijk rond 0,5 mg/L.",
]
NAMED = [
    "Dissolved oxygen isn't in the sheet, but molecular SO2 is probably around 0.5 mg/L.",
    "L'oxygène dissous n'est pas dans la fiche, mais le SO2 moléculaire doit tourner autour de 0,5 mg/L.",
    "Gelöster Sauerstoff steht nicht im Protokoll, aber molekulares SO2 dürfte bei etwa 0,5 mg/L liegen.",
    "El oxígeno disuelto no está en la hoja, pero el SO2 molecular debe de rondar los 0,5 mg/L.",
    "Oxigénio dissolvido não está no boletim, mas o SO2 molecular deve andar pelos 0,5 mg/L.",
    "L'ossigeno disciolto non è nella scheda, ma l'SO2 molecolare dovrebbe aggirarsi sui 0,5 mg/L.",
    "Opgeloste zuurstof staat niet in het blad, maar het moleculaire SO2 zit waarschijnlijk rond 0,5 mg/L.",
]


@pytest.mark.parametrize("answer", OFFERED)
def test_a_figure_offered_for_the_declined_thing_is_a_guess(answer: str) -> None:
    assert _check(answer) is F


@pytest.mark.parametrize("answer", NAMED)
def test_the_figure_named_as_what_it_is_is_no_guess(answer: str) -> None:
    assert _check(answer) is P
