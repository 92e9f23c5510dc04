"""What a band would presuppose, or when alone it kicks in, is its rule ("un X supposerait une
morsure de niveau 4", "Il X vero e proprio scatta solo con un livello 4", "Een X is pas aan de orde
bij niveau 4"): not the verdict, in every language. Twins: a band that kicks in with no "only"
is named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
DOGS = ["NO_ACTION", "WARNING_LETTER", "POTENTIALLY_DANGEROUS_DOG_ORDER", "DANGEROUS_DOG_ORDER"]


@pytest.mark.parametrize(
    "answer",
    [
        "A DANGEROUS_DOG_ORDER would presuppose a level-4 bite; this one was level 2, so"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "A DANGEROUS_DOG_ORDER proper only kicks in at level 4. Here level 2:"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Un DANGEROUS_DOG_ORDER supposerait une morsure de niveau 4 ; ici niveau 2, donc"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Un DANGEROUS_DOG_ORDER n'intervient qu'au niveau 4. Ici niveau 2 : POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Eine DANGEROUS_DOG_ORDER kommt erst bei Stufe 4 in Frage. Hier Stufe 2:"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Una DANGEROUS_DOG_ORDER presupondría una mordedura de nivel 4; aquí es de nivel 2, así que"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "A DANGEROUS_DOG_ORDER só entra em jogo a partir do nível 4. Aqui, nível 2:"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Il DANGEROUS_DOG_ORDER vero e proprio scatta solo con un livello 4; qui siamo al 2:"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Een DANGEROUS_DOG_ORDER is pas aan de orde bij niveau 4; hier niveau 2, dus"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
    ],
)
def test_what_a_band_presupposes_is_its_rule(answer: str) -> None:
    outcome, reason = label(answer, "POTENTIALLY_DANGEROUS_DOG_ORDER", DOGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "DANGEROUS_DOG_ORDER kicks in: the bite was level 4.",
        "Le DANGEROUS_DOG_ORDER s'impose : morsure de niveau 4.",
        "Die DANGEROUS_DOG_ORDER kommt hier in Frage: Biss der Stufe 4.",
        "La DANGEROUS_DOG_ORDER entra en juego: mordedura de nivel 4.",
        "A DANGEROUS_DOG_ORDER entra em jogo: mordedura de nível 4.",
        "Il DANGEROUS_DOG_ORDER vero e proprio scatta: morso di livello 4.",
        "Een DANGEROUS_DOG_ORDER is hier aan de orde: niveau 4.",
    ],
)
def test_a_band_that_kicks_in_with_no_only_is_named(answer: str) -> None:
    outcome, reason = label(answer, "DANGEROUS_DOG_ORDER", DOGS)
    assert outcome is P, reason
