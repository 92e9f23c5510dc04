"""A label the answer says was the state before (``NORMAL last week``, ``la semaine dernière :
NORMAL``) is no verdict: the verdict is the label it names for now (``_lexicon``'s ``past_before``
and ``past_after``), as an examiner reads a report's row or sentence."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "| Band | ELEVATED (was NORMAL last week) |",
        "| Bande | ELEVATED (NORMAL la semaine dernière) |",
        "| Stufe | ELEVATED (letzte Woche NORMAL) |",
        "| Banda | ELEVATED (era NORMAL la semana pasada) |",
        "| Faixa | ELEVATED (NORMAL na semana passada) |",
        "| Fascia | ELEVATED (la settimana scorsa NORMAL) |",
        "| Band | ELEVATED (vorige week NORMAL) |",
        "It was NORMAL last week; now it is ELEVATED.",
        "Le débit était NORMAL il y a un mois ; il est désormais ELEVATED.",
        "Der Verbrauch war vor der Reparatur NORMAL, jetzt ist er ELEVATED.",
        "El consumo, anteriormente NORMAL, es hoy ELEVATED.",
    ],
)
def test_a_past_state_beside_the_verdict_is_not_a_second_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P and "negated: NORMAL" in reason, reason
    # and the past state is not the verdict either
    assert _label(answer, "NORMAL")[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        # a state that still holds, from a time in the past on, is the verdict
        "The consumption has been ELEVATED since last week.",
        "Der Verbrauch ist seit letzter Woche ELEVATED.",
        "O consumo está ELEVATED desde a semana passada.",
    ],
)
def test_a_state_since_a_past_time_is_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
