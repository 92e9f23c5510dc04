"""Another label set aside by "nothing allows / justifies X" ("Rien ne permet un PAY", "Niente
giustifica un PAY") or by "not just X" before the answer's own band ("CRITICAL_HIGH (nicht bloß
HIGH)"), in every language: "not only X but Y" sets X aside as not enough too, as English "not just"
always has. Twins: the band after "not only" in a clause of its own, and a source that allows it,
stand."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
CLAIM = ["PAY", "PAY_PARTIAL", "PAY_IN_FULL", "DECLINE"]
FLAGS = ["LOW", "NORMAL", "HIGH", "CRITICAL_HIGH"]


@pytest.mark.parametrize(
    "answer",
    [
        "Nothing allows a PAY, not even a partial one: the claim came in after 30 days. DECLINE.",
        "Nothing justifies a PAY here: the claim came in after 30 days. DECLINE.",
        "Rien ne permet un PAY, même partiel : la déclaration est arrivée après 30 jours. DECLINE.",
        "Rien ne justifie un PAY ici : la déclaration est arrivée après 30 jours. DECLINE.",
        "Nichts rechtfertigt ein PAY: die Meldung kam nach 30 Tagen. DECLINE.",
        "Nichts erlaubt hier ein PAY: die Meldung kam nach 30 Tagen. DECLINE.",
        "Nada justifica un PAY: el aviso llegó pasados 30 días. DECLINE.",
        "Nada permite un PAY: el aviso llegó pasados 30 días. DECLINE.",
        "Nada justifica um PAY: a participação chegou após 30 dias. DECLINE.",
        "Nada permite PAY: a participação chegou após 30 dias. DECLINE.",
        "Niente giustifica un PAY: la denuncia è arrivata dopo 30 giorni. DECLINE.",
        "Nulla consente un PAY: la denuncia è arrivata dopo 30 giorni. DECLINE.",
        "Niets rechtvaardigt een PAY: de melding kwam na 30 dagen. DECLINE.",
    ],
)
def test_a_band_nothing_allows_is_set_aside(answer: str) -> None:
    outcome, reason = label(answer, "DECLINE", CLAIM)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Flag: CRITICAL_HIGH (not merely HIGH) \u2013 potassium 6.9 mmol/L.",
        "Flag: CRITICAL_HIGH (not just HIGH) \u2013 potassium 6.9 mmol/L.",
        "Einstufung: CRITICAL_HIGH (nicht bloß HIGH) \u2013 Kalium 6,9 mmol/L.",
        "Kalium 6,9 mmol/L: nicht nur HIGH, sondern CRITICAL_HIGH.",
        "Drapeau : CRITICAL_HIGH (pas seulement HIGH) \u2013 potassium 6,9 mmol/L.",
        "Potassium à 6,9 mmol/L : pas simplement HIGH, mais CRITICAL_HIGH.",
        "Indicador: CRITICAL_HIGH (no solo HIGH) \u2013 potasio 6,9 mmol/L.",
        "Potasio 6,9 mmol/L: no solamente HIGH, sino CRITICAL_HIGH.",
        "Indicador: CRITICAL_HIGH (não só HIGH) \u2013 potássio 6,9 mmol/L.",
        "Potássio 6,9 mmol/L: não apenas HIGH, mas CRITICAL_HIGH.",
        "Resultado: CRITICAL_HIGH (e não simplesmente HIGH, o potássio está a 6,9).",
        "Indicatore: CRITICAL_HIGH (non solo HIGH) \u2013 potassio 6,9 mmol/L.",
        "Potassio 6,9 mmol/L: non solamente HIGH, ma CRITICAL_HIGH.",
        "Vlag: CRITICAL_HIGH (niet alleen HIGH) \u2013 kalium 6,9 mmol/L.",
        "Kalium 6,9 mmol/L: niet zomaar HIGH, maar CRITICAL_HIGH.",
    ],
)
def test_a_band_not_just_given_is_set_aside(answer: str) -> None:
    outcome, reason = label(answer, "CRITICAL_HIGH", FLAGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected", "labels"),
    [
        # "not only" in a clause of its own: the band after it stands
        ("HIGH, and not only on the first draw: both samples agree.", "HIGH", FLAGS),
        ("HIGH, und zwar nicht nur in der ersten Probe.", "HIGH", FLAGS),
        ("HIGH, et pas seulement sur le premier prélèvement.", "HIGH", FLAGS),
        ("HIGH, y no solo en la primera muestra.", "HIGH", FLAGS),
        ("HIGH, e não só na primeira amostra.", "HIGH", FLAGS),
        ("HIGH, e non solo nel primo campione.", "HIGH", FLAGS),
        ("HIGH, en niet alleen in het eerste monster.", "HIGH", FLAGS),
        # nothing stands against the band: it is the answer's
        ("Rien ne s'oppose à un PAY : PAY.", "PAY", CLAIM),
        ("Nada impide un PAY: PAY.", "PAY", CLAIM),
        ("Nichts spricht gegen PAY: PAY.", "PAY", CLAIM),
    ],
)
def test_the_band_outside_them_stands(answer: str, expected: str, labels: list[str]) -> None:
    outcome, reason = label(answer, expected, labels)
    assert outcome is P, reason
