"""A corrective "rather" in a sentence of its own, after a reason between it and the negated band,
names its band in every language: "No lo calificaría de X, como hizo el socio; sin reexposición no
hay base. Antes Y." ("Eerder Y", "Rather Y", "Plutôt Y", "Eher Y", "Piuttosto Y"). Across a
sentence, "Antes X, ahora Y" is still "before, now": Y is named, X is past."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
WHO = ["CERTAIN", "PROBABLE", "POSSIBLE", "UNLIKELY", "UNASSESSABLE"]


@pytest.mark.parametrize(
    "answer",
    [
        "I wouldn't call it CERTAIN, as the Spanish partner did; without a rechallenge there's no basis."
        " Rather PROBABLE.",
        "Je ne le classerais pas CERTAIN, comme l'a fait le partenaire espagnol ; sans réintroduction, ça"
        " ne tient pas. Plutôt PROBABLE.",
        "Als CERTAIN würde ich es nicht einstufen, wie es der spanische Partner tat; ohne Reexposition fehlt"
        " die Grundlage. Eher PROBABLE.",
        "No lo calificaría de CERTAIN, como hizo el socio español; sin reexposición no hay base. Antes"
        " PROBABLE.",
        "Não o classificaria como CERTAIN, como fez o parceiro espanhol; sem reexposição falta base. Antes"
        " PROBABLE.",
        "Non lo definirei CERTAIN, come ha fatto il partner spagnolo; senza rechallenge manca la base."
        " Piuttosto PROBABLE.",
        "Ik zou het geen CERTAIN noemen, zoals de Spaanse partner deed; zonder herintroductie ontbreekt de"
        " basis. Eerder PROBABLE.",
    ],
)
def test_rather_after_a_reason_sentence_names_its_band(answer: str) -> None:
    outcome, reason = label(answer, "PROBABLE", WHO)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "No lo calificaría de POSSIBLE. Antes PROBABLE, ahora CERTAIN.",
        "Não o classificaria como POSSIBLE; sem reexposição falta base. Antes PROBABLE, agora CERTAIN.",
        "Ik zou het geen POSSIBLE noemen. Eerder PROBABLE, nu CERTAIN.",
    ],
)
def test_before_then_now_across_a_sentence_names_the_band_now(answer: str) -> None:
    outcome, reason = label(answer, "CERTAIN", WHO)
    assert outcome is P, reason
