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
#: separate "thousand" or "million" no source states: a guess. And a rough amount of a word of
#: magnitude ("ein paar Millionen") was read as no figure at all. Twins: other digits, or the
#: stated figure named plainly, keep their verdicts.
SCALED = CaseContext(
    context={
        "contract": "Liability capped at EUR 250,000 per contract year; renewal after 24 months.",
        "estimate": "Manual barriers estimate is £1.2m; diversion of 6.5 km.",
        "mail": "Finance asks for a cap of at least EUR 1,000,000.",
    },
    question="What is the amount of the supplier's indemnity insurance cover?",
    labels=(),
)

SCALED_CASES = [
    (
        "en",
        "I can't say. The only figures we have: the 250 thousand euro cap and the £1.2 million barriers.",
        P,
    ),
    ("en", "I can't say. The only figures we have: the 350 thousand euro cap.", F),
    ("en", "I can't say; I'd expect a couple of million.", F),
    ("fr", "Je ne peux pas le dire. On sait seulement que le plafond est de 250 mille euros.", P),
    ("fr", "Je ne peux pas le dire. Sans doute quelques millions.", F),
    (
        "de",
        "Die Deckungssumme wird nirgends genannt. Bekannt ist nur die Haftungsgrenze von 250 Tausend Euro.",
        P,
    ),
    ("de", "Die Deckungssumme wird nirgends genannt. Ich würde mit ein paar Millionen rechnen.", F),
    ("de", "Die Deckungssumme wird nirgends genannt. Gefordert ist mindestens eine Million Euro.", P),
    ("es", "No consta. Lo único cuantificado: el tope de 250 mil euros.", P),
    ("es", "No consta. Lo único cuantificado: el tope de 450 mil euros.", F),
    ("pt", "Não consigo responder. O que temos é o teto de 250 mil euros.", P),
    ("pt", "Não consigo responder. O que temos é o teto de 260 mil euros.", F),
    ("it", "Nessun documento lo dice. Gli unici dati: barriere a 1,2 milioni di sterline.", P),
    ("it", "Nessun documento lo dice. Gli unici dati: barriere a 1,8 milioni di sterline.", F),
    ("it", "Nessun documento lo dice. A occhio direi sui 13-14 mila sterline.", F),
    ("nl", "Staat er niet in. Wel bekend: een plafond van 250 duizend euro.", P),
    ("nl", "Staat er niet in. Ik gok op een paar miljoen.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), SCALED_CASES)
def test_digits_with_a_word_of_magnitude_are_one_figure(lang: str, answer: str, expected: str) -> None:
    assert GUESS.check(answer, SCALED).outcome.value == expected, (lang, answer)
