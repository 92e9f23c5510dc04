"""How far the other languages' tables read around a label (``_lexicon``), from long real
sentences an examiner reads whole: a condition at the far end of the reach still governs the
label, and a condition never reaches across the end of a sentence or a semicolon, only across the
comma that ends it."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
LABELS = ["NORMAL", "ELEVATED", "HIGH"]


def _label(answer: str, expected: str = "ELEVATED") -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type="label", value=expected, labels=LABELS)).check(answer)
    return c.outcome, c.reason


def test_a_long_condition_without_a_comma_still_governs_its_band() -> None:
    # "Si" opens the clause 120 characters before HIGH: the longest clause read whole
    answer = (
        "Si le débit d'huile mesuré sur le moteur gauche de l'avion excède la limite fixée au manuel"
        " de maintenance la bande est HIGH ; ici ELEVATED."
    )
    outcome, reason = _label(answer)
    assert outcome is P and "hypothetical: HIGH" in reason, reason


def test_a_conditional_verb_is_hypothetical_after_a_long_condition_in_its_sentence() -> None:
    # "Si" opens the sentence 240 characters before "serait HIGH"
    answer = (
        "Si, comme le laisse penser la tendance observée sur les trois derniers relevés du moteur"
        " gauche, la consommation d'huile continuait à augmenter au même rythme pendant les"
        " prochaines semaines de vol et après la prochaine révision, ce serait HIGH ; pour"
        " l'instant c'est ELEVATED."
    )
    outcome, reason = _label(answer)
    assert outcome is P and "hypothetical: HIGH" in reason, reason


def test_a_long_denial_of_agreement_is_no_claim_of_it() -> None:
    # "Nadie" opens the clause 120 characters before the words of agreement
    answer = (
        "Nadie con experiencia en el mantenimiento de motores de turbina de este fabricante y de"
        " esa serie precisa afirmaría que los expertos coinciden en este umbral."
    )
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, CaseContext())
    assert c.outcome is P, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Si le débit dépasse la limite de 0,60 il faut réagir vite. Le relevé actuel est ELEVATED.",
        "Si le débit dépasse la limite de 0,60 il faut arrêter le moteur ! Le relevé actuel est ELEVATED.",
        "Si le débit dépasse la limite de 0,60 il faut réagir vite\nLe relevé actuel est ELEVATED.",
        "Wenn der Verbrauch den Grenzwert überschreitet muss man handeln; der aktuelle Wert ist ELEVATED.",
    ],
)
def test_a_condition_ends_with_its_sentence(answer: str) -> None:
    outcome, reason = _label(answer)
    assert outcome is P, reason
