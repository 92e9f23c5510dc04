"""The team's own first band, stated with "initially" and a past verb of classifying, before the
change it made, is past, not named, in every language: "Inicialmente classificámos como X; depois
passámos de X para Y" names Y. "We classed it as X", with no "initially", names X."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
WHO = ["CERTAIN", "PROBABLE", "POSSIBLE", "UNLIKELY", "UNASSESSABLE"]


@pytest.mark.parametrize(
    "answer",
    [
        "We initially classed it as POSSIBLE; after the meeting we moved from POSSIBLE to PROBABLE.",
        "Au départ nous l'avions classé POSSIBLE ; après la réunion nous sommes passés de POSSIBLE à"
        " PROBABLE.",
        "Anfangs haben wir es als POSSIBLE eingestuft; nach der Sitzung sind wir von POSSIBLE auf PROBABLE"
        " gegangen.",
        "Zunächst hatten wir den Fall als POSSIBLE eingestuft, dann haben wir ihn von POSSIBLE auf PROBABLE"
        " hochgestuft.",
        "Inicialmente lo clasificamos como POSSIBLE; tras la reunión pasamos de POSSIBLE a PROBABLE.",
        "Al principio lo clasificamos como POSSIBLE; después de la reunión lo subimos de POSSIBLE a"
        " PROBABLE.",
        "Inicialmente classificámos como POSSIBLE; depois da reunião passámos de POSSIBLE para PROBABLE.",
        "Inizialmente l'avevamo classificato come POSSIBLE; dopo la riunione siamo passati da POSSIBLE a"
        " PROBABLE.",
        "In un primo momento l'abbiamo classificato come POSSIBLE, poi l'abbiamo portato da POSSIBLE a"
        " PROBABLE.",
        "Aanvankelijk hebben we het als POSSIBLE ingedeeld; na de vergadering zijn we van POSSIBLE naar"
        " PROBABLE gegaan.",
        "In eerste instantie hebben we het als POSSIBLE beoordeeld; na de vergadering hebben we het van"
        " POSSIBLE naar PROBABLE verhoogd.",
    ],
)
def test_our_first_band_before_our_change_is_past(answer: str) -> None:
    outcome, reason = label(answer, "PROBABLE", WHO)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "We classed it as POSSIBLE after the meeting.",
        "Nous l'avons classé POSSIBLE après la réunion.",
        "Wir haben es als POSSIBLE eingestuft.",
        "Lo clasificamos como POSSIBLE tras la reunión.",
        "Classificámos como POSSIBLE e mantemos.",
        "L'abbiamo classificato come POSSIBLE dopo la riunione.",
        "We hebben het als POSSIBLE ingedeeld.",
    ],
)
def test_our_band_classed_now_is_named(answer: str) -> None:
    outcome, reason = label(answer, "POSSIBLE", WHO)
    assert outcome is P, reason
