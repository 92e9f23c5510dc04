"""A band judged premature, too early or without any ground is denied ("BOTTLE serait prématuré",
"Abfüllen (BOTTLE) wäre ... zu früh", "für HOLD_TANK fehlt jeder Anlass"): not the verdict, in
every language. Twins: the same words said of something else than a band leave the band named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
CELLAR = ["BOTTLE", "ADJUST_SO2", "HOLD_TANK", "DISCARD"]


@pytest.mark.parametrize(
    "answer",
    [
        "BOTTLE would be premature with free SO2 at 18 mg/L. ADJUST_SO2.",
        "It's too early for BOTTLE, and there's no ground at all for HOLD_TANK. ADJUST_SO2.",
        "BOTTLE serait prématuré avec 18 mg/L de libre. ADJUST_SO2.",
        "Il est trop tôt pour BOTTLE. ADJUST_SO2.",
        "Abfüllen (BOTTLE) wäre bei 18 mg/L freiem SO2 noch zu früh, und für HOLD_TANK fehlt jeder"
        " Anlass. ADJUST_SO2.",
        "BOTTLE sería prematuro con 18 mg/L de libre, y no hay motivo alguno para HOLD_TANK. ADJUST_SO2.",
        "Ainda é cedo para BOTTLE e não há motivo nenhum para HOLD_TANK. ADJUST_SO2.",
        "È ancora presto per BOTTLE, e per HOLD_TANK non c'è alcun motivo. ADJUST_SO2.",
        "BOTTLE zou voorbarig zijn, en voor HOLD_TANK is er geen enkele aanleiding. ADJUST_SO2.",
    ],
)
def test_a_band_judged_premature_or_groundless_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST_SO2", CELLAR)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "BOTTLE; a second analysis would be premature.",
        "BOTTLE ; une deuxième analyse serait prématurée.",
        "BOTTLE; eine zweite Analyse wäre verfrüht.",
        "BOTTLE; repetir ahora el análisis sería prematuro y no aportaría nada.",
        "BOTTLE; uma segunda análise seria prematura.",
        "BOTTLE; una seconda analisi sarebbe prematura.",
        "BOTTLE; een tweede analyse zou voorbarig zijn.",
    ],
)
def test_premature_said_of_something_else_leaves_the_band(answer: str) -> None:
    outcome, reason = label(answer, "BOTTLE", CELLAR)
    assert outcome is P, reason
