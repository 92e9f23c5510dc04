"""A band another party pleads or pushes for, or thinks enough (the owner, the keeper), set aside
before the answer's own band, is not the answer's ("Le maître plaide pour un X ..., mais rien ne
l'établit. Je retiens donc Y", "O dono acha que uma X chegava, mas ... Eu aplicaria Y"), in every
language. Twins: the same words said by the answer itself ("je plaide pour X", "we keep pushing for
X") name its band, and another's band alone, with none of the answer's, stays named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
F = CheckOutcome.FAIL
DOGS = ["NO_ACTION", "WARNING_LETTER", "POTENTIALLY_DANGEROUS_DOG_ORDER", "DANGEROUS_DOG_ORDER"]


@pytest.mark.parametrize(
    "answer",
    [
        "The owner keeps pushing for a WARNING_LETTER, but with no provocation on record that's off the"
        " table. I'd go with POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "The owner thinks a WARNING_LETTER would do, but nobody saw any provocation."
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Le propriétaire estime qu'un WARNING_LETTER suffirait, mais aucune provocation n'est établie :"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Die Halterin drängt auf einen WARNING_LETTER, aber eine Provokation ist nirgends belegt. Ich würde"
        " POTENTIALLY_DANGEROUS_DOG_ORDER verhängen.",
        "El dueño cree que basta con una WARNING_LETTER, pero la provocación no está acreditada."
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "A dona insiste numa WARNING_LETTER, mas não há provocação nenhuma no auto."
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "Il proprietario spinge per una WARNING_LETTER, ma della provocazione non c'è traccia. Io darei"
        " POTENTIALLY_DANGEROUS_DOG_ORDER.",
        "De eigenaar pleit voor een WARNING_LETTER, maar van provocatie blijkt nergens iets. Ik zou voor"
        " POTENTIALLY_DANGEROUS_DOG_ORDER gaan.",
    ],
)
def test_a_band_pleaded_for_by_another_is_not_the_answers(answer: str) -> None:
    outcome, reason = label(answer, "POTENTIALLY_DANGEROUS_DOG_ORDER", DOGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "We keep pushing for a WARNING_LETTER, but the owner wants NO_ACTION.",
        "Je plaide pour un WARNING_LETTER ; le maître voulait NO_ACTION.",
        "Wir drängen auf einen WARNING_LETTER; der Halter verlangt NO_ACTION.",
        "Yo insisto en una WARNING_LETTER; el dueño pide NO_ACTION.",
        "Eu acho que uma WARNING_LETTER chega; o dono pede NO_ACTION.",
        "Io spingo per una WARNING_LETTER; il padrone chiede NO_ACTION.",
        "Wij pleiten voor een WARNING_LETTER; de eigenaar wil NO_ACTION.",
    ],
)
def test_the_answer_pleading_for_its_band_names_it(answer: str) -> None:
    outcome, reason = label(answer, "WARNING_LETTER", DOGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The owner keeps pushing for a WARNING_LETTER, and the file backs him.",
        "Le maître plaide pour un WARNING_LETTER, et le dossier lui donne raison.",
        "De eigenaar pleit voor een WARNING_LETTER, en het dossier geeft hem gelijk.",
    ],
)
def test_anothers_band_alone_stays_named(answer: str) -> None:
    outcome, reason = label(answer, "POTENTIALLY_DANGEROUS_DOG_ORDER", DOGS)
    assert outcome is F, reason
