"""A band taken back in a colloquial way (``Hang on, no,``, ``Moment, nein,``, ``Aspetta, no,``)
or only meant at first, with the time word first (``Erst wollte ich X schreiben``, ``Au départ
je voulais mettre X``), is not the answer's; the band after it is. Twins: the withdrawn band is
not the value, and a pause with no "no" withdraws nothing."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

CASE = ["NO_CASE", "WARNING", "GRADE_PENALTY", "SUSPENSION"]

WITHDRAWN = [
    "Verdict: WARNING. Hang on, no, re-reading the policy the match is 21 %. GRADE_PENALTY.",
    "At first I was going to put WARNING, but at 21 % no. GRADE_PENALTY.",
    "Verdict : WARNING. Attendez, non, en relisant, c'est 21 %. GRADE_PENALTY.",
    "Au départ je voulais mettre WARNING, mais à 21 % non. GRADE_PENALTY.",
    "Urteil: WARNING. Moment, nein, beim nochmaligen Lesen sind es 21 %. GRADE_PENALTY.",
    "Erst wollte ich WARNING schreiben, aber bei 21 % wäre das absurd. GRADE_PENALTY.",
    "Veredicto: WARNING. Espera, no, releyendo son 21 %. GRADE_PENALTY.",
    "Al principio iba a poner WARNING, pero con un 21 % no. GRADE_PENALTY.",
    "Veredito: WARNING. Espera, não, relendo são 21 %. GRADE_PENALTY.",
    "De início ia pôr WARNING, mas com 21 % não. GRADE_PENALTY.",
    "Esito: WARNING. Aspetta, no, rileggendo è il 21 %. GRADE_PENALTY.",
    "All'inizio volevo scrivere WARNING, ma con il 21 % no. GRADE_PENALTY.",
    "Oordeel: WARNING. Wacht, nee, bij herlezing is het 21 %. GRADE_PENALTY.",
    "Eerst wilde ik WARNING schrijven, maar bij 21 % zou dat absurd zijn. GRADE_PENALTY.",
]


@pytest.mark.parametrize("answer", WITHDRAWN)
def test_the_band_after_a_withdrawn_one_is_the_answer(answer: str) -> None:
    outcome, reason = label(answer, "GRADE_PENALTY", CASE)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize("answer", WITHDRAWN)
def test_the_withdrawn_band_is_not_the_value(answer: str) -> None:
    outcome, reason = label(answer, "WARNING", CASE)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: WARNING. Hang on, GRADE_PENALTY only applies above 15 %.",
        "Verdict : WARNING. Attendez, le GRADE_PENALTY ne vaut qu'au-dessus de 15 %.",
        "Urteil: WARNING. Moment, GRADE_PENALTY gilt erst über 15 %.",
        "Veredicto: WARNING. Espera, el GRADE_PENALTY solo se aplica por encima del 15 %.",
        "Veredito: WARNING. Espera, o GRADE_PENALTY só se aplica acima de 15 %.",
        "Esito: WARNING. Aspetta, il GRADE_PENALTY vale solo sopra il 15 %.",
        "Oordeel: WARNING. Wacht, GRADE_PENALTY geldt pas boven 15 %.",
    ],
)
def test_a_pause_without_no_withdraws_nothing(answer: str) -> None:
    outcome, reason = label(answer, "WARNING", CASE)
    assert outcome is CheckOutcome.PASS, reason
