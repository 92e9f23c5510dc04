"""A label that is the value of a field qualifying the verdict ("Confidence: HIGH", "with HIGH
confidence", ``Konfidenz: HIGH``) is not a second verdict beside the one the answer gives
("Classification: MEDIUM"); alone, it is the answer (``_lexicon``'s ``qualifier_fields``)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
RISK = ["LOW", "MEDIUM", "HIGH"]


@pytest.mark.parametrize(
    "answer",
    [
        "Classification: MEDIUM\nConfidence: HIGH",
        "**Risk:** MEDIUM\n**Confidence:** HIGH",
        "MEDIUM, with HIGH confidence.",
        "Einstufung: MEDIUM\nKonfidenz: HIGH",
        "Classement : MEDIUM (niveau de confiance : HIGH)",
        "Clasificación: MEDIUM. Confianza: HIGH.",
        "Classificação: MEDIUM; confiança: HIGH",
        "Classificazione: MEDIUM, confidenza: HIGH",
        "Classificatie: MEDIUM\nZekerheid: HIGH",
    ],
)
def test_a_qualifying_fields_value_is_not_a_second_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P, reason
    assert _label(answer, "HIGH", RISK)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        # alone, the field is the answer
        "Confidence: HIGH",
        "Confidence: HIGH. Reason: the counterparty is unrated.",
        # "surely HIGH" is no field
        "Met zekerheid HIGH.",
    ],
)
def test_a_qualifying_fields_value_alone_is_the_answer(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH", RISK)
    assert outcome is P, reason


def test_a_field_on_the_next_line_qualifies_nothing_on_this_one() -> None:
    # "MEDIUM" ends its line: the "Confidence" below is another field, not "MEDIUM confidence"
    outcome, reason = _label("Confidence: LOW\nRisk: MEDIUM\nConfidence: HIGH", "MEDIUM", RISK)
    assert outcome is P, reason
    outcome, reason = _label("Risk: MEDIUM\nConfidence: HIGH", "HIGH", RISK)
    assert outcome is F, reason


def test_surely_is_no_field_beside_another_verdict() -> None:
    # "met zekerheid HIGH" is "surely HIGH": a verdict, so the answer names two bands
    assert _label("Met zekerheid HIGH. De commissie zei MEDIUM.", "MEDIUM", RISK)[0] is F
