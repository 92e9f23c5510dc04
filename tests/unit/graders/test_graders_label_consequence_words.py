"""A condition on an event (no threshold) whose consequent opens with a word of consequence
(``dan``, ``dann``, ``then``, ``alors``, ``entonces``, ``então``, ``allora``), the German and
Dutch verb first, makes the band there a rule: the band after a word of now is the verdict
(pass), in every language. Twins: a fact with a word of conclusion (``dus``, ``also``, ``so``)
names both bands (fail)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

LIFT = ["PASS_INSPECTION", "MINOR_DEFECTS", "TAKE_OUT_OF_SERVICE"]


@pytest.mark.parametrize(
    "answer",
    [
        "Should the brake slip again on the next test, then it's TAKE_OUT_OF_SERVICE. For now:"
        " MINOR_DEFECTS.",
        "Si le frein patine encore au prochain essai, alors c'est TAKE_OUT_OF_SERVICE. Pour"
        " l'instant : MINOR_DEFECTS.",
        "Versagt die Bremse beim nächsten Test, dann ist es TAKE_OUT_OF_SERVICE. Jetzt: MINOR_DEFECTS.",
        "Si el freno vuelve a patinar en la próxima prueba, entonces es TAKE_OUT_OF_SERVICE. Por"
        " ahora: MINOR_DEFECTS.",
        "Se o travão voltar a falhar no próximo ensaio, então é TAKE_OUT_OF_SERVICE. Por agora:"
        " MINOR_DEFECTS.",
        "Se il freno cede alla prossima prova, allora è TAKE_OUT_OF_SERVICE. Per ora: MINOR_DEFECTS.",
        "Gaat de rem bij de volgende test onderuit, dan is het TAKE_OUT_OF_SERVICE. Nu: MINOR_DEFECTS.",
    ],
)
def test_a_band_after_a_word_of_consequence_is_a_rule(answer: str) -> None:
    outcome, reason = label(answer, "MINOR_DEFECTS", LIFT)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The brake slipped on the test, so it's TAKE_OUT_OF_SERVICE. For now: MINOR_DEFECTS.",
        "Le frein a patiné à l'essai, donc c'est TAKE_OUT_OF_SERVICE. Pour l'instant : MINOR_DEFECTS.",
        "Die Bremse hat versagt, also ist es TAKE_OUT_OF_SERVICE. Jetzt: MINOR_DEFECTS.",
        "El freno patinó en la prueba, así que es TAKE_OUT_OF_SERVICE. Por ahora: MINOR_DEFECTS.",
        "O travão falhou no ensaio, portanto é TAKE_OUT_OF_SERVICE. Por agora: MINOR_DEFECTS.",
        "Il freno ha ceduto alla prova, quindi è TAKE_OUT_OF_SERVICE. Per ora: MINOR_DEFECTS.",
        "De rem ging bij de test onderuit, dus het is TAKE_OUT_OF_SERVICE. Nu: MINOR_DEFECTS.",
    ],
)
def test_a_fact_with_a_word_of_conclusion_names_both(answer: str) -> None:
    outcome, reason = label(answer, "MINOR_DEFECTS", LIFT)
    assert outcome is CheckOutcome.FAIL, reason
