"""An earlier band in a past-tense account (``l'avevo messa in X``, ``eerst stond hij op X``) is
not the verdict: the answer names only where the band went, in every language. Twins: a band that
stays where it stood is named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
CELLAR = ["BOTTLE", "ADJUST_SO2", "HOLD_TANK", "DISCARD"]


@pytest.mark.parametrize(
    "answer",
    [
        "Outcome: ADJUST_SO2. (Before the pH recheck I had it down for BOTTLE, but at 18 mg/L free that"
        " won't do.)",
        "Résultat : ADJUST_SO2. (Avant le contrôle du pH je l'avais mise en BOTTLE, mais à 18 mg/L de"
        " libre ça ne va pas.)",
        "Zuerst stand er auf BOTTLE, nach der neuen Analyse haben wir ihn auf ADJUST_SO2 gesetzt.",
        "Resultado: ADJUST_SO2. (Antes de repetir el pH lo había puesto en BOTTLE, pero con 18 mg/L de"
        " libre no llega.)",
        "Primeiro estava em BOTTLE; depois da nova análise passámo-lo para ADJUST_SO2.",
        "Esito: ADJUST_SO2. (Prima del ricontrollo del pH l'avevo messa in BOTTLE, ma con 18 mg/L di"
        " libera non ci siamo.)",
        "Eerst stond hij op BOTTLE, na de nieuwe analyse hebben we hem op ADJUST_SO2 gezet.",
    ],
)
def test_an_earlier_band_names_only_where_it_went(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST_SO2", CELLAR)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "It is on BOTTLE, and after the new analysis it stays there.",
        "Hij staat op BOTTLE en na de nieuwe analyse blijft hij daar.",
        "Era su BOTTLE e dopo la nuova analisi resta su BOTTLE.",
    ],
)
def test_a_band_that_stays_is_named(answer: str) -> None:
    outcome, reason = label(answer, "BOTTLE", CELLAR)
    assert outcome is P, reason
