"""A document's band stated for another scope than the answer's, set against the answer's own band
concluded after a contrast, is not the answer's verdict, in every language: "Por debajo de 2.000 m
el boletín da MODERATE, pero nuestra ruta va por encima de 2.200 m en NE, así que trabajamos con
CONSIDERABLE" gives CONSIDERABLE. The rule is narrow: a paper, a scope (a place, a time, a part),
a contrast and another band concluded after it. A document's band with no scope, no contrast or
no band concluded after it is still the answer's reading."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
DANGER = ["LOW", "MODERATE", "CONSIDERABLE", "HIGH"]


@pytest.mark.parametrize(
    "answer",
    [
        "Por debajo de 2.000 m el boletín da MODERATE, pero nuestra ruta va por encima de 2.200 m en NE, así"
        " que trabajamos con CONSIDERABLE.",
        "Below 2,000 m the bulletin gives MODERATE, but our route stays above 2,200 m on NE aspects, so we"
        " work with CONSIDERABLE.",
        "En dessous de 2 000 m, le bulletin donne MODERATE, mais notre itinéraire passe au-dessus de 2 200 m"
        " en NE, donc on part sur CONSIDERABLE.",
        "Unterhalb von 2.000 m gibt der Lagebericht MODERATE an, aber unsere Route liegt über 2.200 m im NO,"
        " also planen wir mit CONSIDERABLE.",
        "Sotto i 2.000 m il bollettino dà MODERATE, ma il nostro itinerario sta sopra i 2.200 m a NE, quindi"
        " lavoriamo con CONSIDERABLE.",
        "Abaixo dos 2.000 m o boletim dá MODERATE, mas a nossa rota passa acima dos 2.200 m a NE, por isso"
        " trabalhamos com CONSIDERABLE.",
        "Onder 2.000 m geeft het bulletin MODERATE, maar onze route ligt boven 2.200 m op NO, dus we werken"
        " met CONSIDERABLE.",
    ],
)
def test_a_sources_band_for_another_scope_is_not_the_verdict(answer: str) -> None:
    outcome, reason = label(answer, "CONSIDERABLE", DANGER)
    assert outcome is P, reason
    assert label(answer, "MODERATE", DANGER)[0] is F


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The avalanche bulletin gives MODERATE for our route today.", "MODERATE"),
        ("El boletín da MODERATE para nuestra ruta, así que trabajamos con MODERATE.", "MODERATE"),
        (
            "Por debajo de 2.000 m el boletín da MODERATE, y nuestra ruta va por debajo, así que MODERATE.",
            "MODERATE",
        ),
        (
            "Unterhalb von 2.000 m gibt der Lagebericht MODERATE an, und dort bleiben wir: MODERATE.",
            "MODERATE",
        ),
    ],
)
def test_a_documents_band_is_still_the_answers_reading(answer: str, expected: str) -> None:
    outcome, reason = label(answer, expected, DANGER)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # no contrast and no conclusion: both bands stand
        "Por debajo de 2.000 m el boletín da MODERATE. Trabajamos con CONSIDERABLE.",
        "Below 2,000 m the bulletin gives MODERATE. We work with CONSIDERABLE.",
    ],
)
def test_without_the_contrast_both_stand(answer: str) -> None:
    assert label(answer, "CONSIDERABLE", DANGER)[0] is not P
