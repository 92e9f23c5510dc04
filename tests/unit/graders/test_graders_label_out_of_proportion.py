"""A band called out of proportion for the case (``would be way out of proportion``, ``serait
hors de proportion``, ``stünde in keinem Verhältnis``) is denied like one called too harsh, with
a word of degree allowed between. Twins: the same band called proportionate stays named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

CASE = ["NO_CASE", "WARNING", "GRADE_PENALTY", "SUSPENSION"]


@pytest.mark.parametrize(
    "answer",
    [
        "A SUSPENSION would be way out of proportion for a first slip; the mark cap fits. GRADE_PENALTY.",
        "Une SUSPENSION serait complètement hors de proportion pour une première fois. GRADE_PENALTY.",
        "Eine SUSPENSION stünde in keinem Verhältnis zu einem ersten Verstoß. GRADE_PENALTY.",
        "Una SUSPENSION sería totalmente desproporcionada para una primera falta. GRADE_PENALTY.",
        "Uma SUSPENSION seria totalmente desproporcional para uma primeira falta. GRADE_PENALTY.",
        "Una SUSPENSION sarebbe del tutto sproporzionata per una prima violazione. GRADE_PENALTY.",
        "Een SUSPENSION zou volkomen buiten proportie zijn bij een eerste overtreding. GRADE_PENALTY.",
    ],
)
def test_a_band_out_of_proportion_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "GRADE_PENALTY", CASE)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "A SUSPENSION would be proportionate for a second offence. GRADE_PENALTY.",
        "Une SUSPENSION serait proportionnée pour une récidive. GRADE_PENALTY.",
        "Eine SUSPENSION wäre bei einem zweiten Verstoß verhältnismäßig. GRADE_PENALTY.",
        "Una SUSPENSION sería proporcionada para una reincidencia. GRADE_PENALTY.",
        "Uma SUSPENSION seria proporcional para uma reincidência. GRADE_PENALTY.",
        "Una SUSPENSION sarebbe proporzionata per una recidiva. GRADE_PENALTY.",
        "Een SUSPENSION zou in verhouding zijn bij herhaling. GRADE_PENALTY.",
    ],
)
def test_a_band_called_proportionate_stays_named(answer: str) -> None:
    outcome, reason = label(answer, "GRADE_PENALTY", CASE)
    assert outcome is CheckOutcome.FAIL, reason
