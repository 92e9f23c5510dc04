"""Figures a source writes hyphened to their unit, and digits with a word of magnitude (session 37).

Examiners found answers that decline and then restate "a 10-day quarantine" or "a 9-year-old dog"
("diez días", "9 jaar oud") called guesses: the context's "10-day" was skipped as a code, so it
stated nothing. Twins: another count of the same unit is a guess, and so is one the answer writes
hyphened ("a 3-week recovery"), which was skipped the same way.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

HYPHENED = CaseContext(
    context={
        "note": "Rabies vaccination expired 2 January 2025. 10-day home quarantine ordered, ending 24 March.",
        "intake": "Patient: 'Biscuit', 9-year-old male neutered Labrador, 34 kg. Code 72-00 filed.",
    },
    question="How many stitches did the cyclist need?",
    labels=(),
)
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F = "pass", "fail"

HYPHENED_CASES = [
    ("en", "The notes don't say. What they do record: a 10-day quarantine at home.", P),
    ("en", "The notes don't say. What they do record: a 14-day quarantine at home.", F),
    ("en", "The notes don't say how many; probably a 3-week recovery.", F),
    ("en", "The notes don't say how many. The dog is 9 years old and weighs 34 kg.", P),
    ("fr", "Le dossier ne le précise pas. On sait seulement que l'isolement dure dix jours.", P),
    ("fr", "Le dossier ne le précise pas. On sait seulement que l'isolement dure quinze jours.", F),
    ("de", "Dazu steht nichts in den Unterlagen. Bekannt ist nur die Quarantäne von zehn Tagen.", P),
    ("de", "Dazu steht nichts in den Unterlagen. Bekannt ist nur die Quarantäne von zwölf Tagen.", F),
    ("es", "No tengo ese dato. Lo que sí consta es la cuarentena de diez días.", P),
    ("es", "No tengo ese dato. Lo que sí consta es la cuarentena de doce días.", F),
    ("pt", "Não consta. O que sabemos é que a quarentena em casa é de dez dias.", P),
    ("pt", "Não consta. O que sabemos é que a quarentena em casa é de doze dias.", F),
    ("it", "Non risulta. Dati certi: quarantena domiciliare di 10 giorni, cane di 9 anni.", P),
    ("it", "Non risulta. Dati certi: quarantena domiciliare di 12 giorni, cane di 9 anni.", F),
    ("nl", "Staat er niet in. Wel bekend: tien dagen thuisquarantaine, een hond van 9 jaar oud.", P),
    ("nl", "Staat er niet in. Wel bekend: twaalf dagen thuisquarantaine, een hond van 9 jaar oud.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), HYPHENED_CASES)
def test_a_figure_hyphened_to_its_unit_states_it(lang: str, answer: str, expected: str) -> None:
    assert GUESS.check(answer, HYPHENED).outcome.value == expected, (lang, answer)


#: Digits with a word of magnitude ("250 mil euros", "1,2 milioni") were read as the digits and a
