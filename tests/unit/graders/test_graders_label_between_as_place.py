"""A word of "between" said of the thing's parts, no band after it, sets no choice: "con 3 mm de
exceso entre hojas toca X" names X (es, fr, pt, it), while a choice between two bands ("Dudo entre
X y Y") names neither."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
F = CheckOutcome.FAIL
DOOR = ["PASS", "MINOR_REMEDIAL", "MAJOR_REMEDIAL", "REPLACE"]


@pytest.mark.parametrize(
    "answer",
    [
        "Lo había marcado como MINOR_REMEDIAL, pero me equivoqué: con 3 mm de exceso entre hojas toca"
        " MAJOR_REMEDIAL.",
        "Con 3 mm de exceso entre hojas toca MAJOR_REMEDIAL.",
        "Avec 3 mm de jeu entre les vantaux, c'est MAJOR_REMEDIAL.",
        "Com 3 mm a mais entre as folhas, fica MAJOR_REMEDIAL.",
        "Con 3 mm in più tra le ante tocca MAJOR_REMEDIAL.",
    ],
)
def test_between_the_parts_sets_no_choice(answer: str) -> None:
    outcome, reason = label(answer, "MAJOR_REMEDIAL", DOOR)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Dudo entre MINOR_REMEDIAL y MAJOR_REMEDIAL.",
        "J'hésite entre MINOR_REMEDIAL et MAJOR_REMEDIAL.",
        "Sono indeciso tra MINOR_REMEDIAL e MAJOR_REMEDIAL.",
    ],
)
def test_a_choice_between_two_bands_names_neither(answer: str) -> None:
    outcome, reason = label(answer, "MAJOR_REMEDIAL", DOOR)
    assert outcome is F, reason
