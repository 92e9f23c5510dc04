"""A condition on an event (a warning light that comes on, an alarm that goes off) makes the clause
after it a rule, as a threshold does (issue 25): "Si le voyant ALARM s'allume, la bande est HIGH"
states when the band is HIGH, not that it is, and ``label`` expecting HIGH passed on it. A label
named inside the condition ("le voyant ALARM") is no consequent of it. A condition on anything else
is a caveat of the verdict and leaves it named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
LABELS = ["NORMAL", "ELEVATED", "HIGH", "ALARM"]


def _label(answer: str, expected: str) -> tuple[CheckOutcome, str]:
    return label(answer, expected, LABELS)


@pytest.mark.parametrize(
    "answer",
    [
        "Si le voyant ALARM s'allume, la bande est HIGH.",
        "Si le voyant d'alarme s'allume, la bande est HIGH.",
        "Wenn die ALARM-Leuchte aufleuchtet, ist die Stufe HIGH.",
        "Si el piloto ALARM se enciende, la banda es HIGH.",
        "Se la spia ALARM si accende, la fascia è HIGH.",
        "Se a luz ALARM acender, a faixa é HIGH.",
        "Als het ALARM-lampje gaat branden, is de band HIGH.",
    ],
)
def test_the_clause_after_an_events_condition_is_a_rule(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH")
    assert outcome is F, reason
    assert "hypothetical:" in reason and "HIGH" in reason.split("hypothetical:")[1]
    assert _label(answer, "ALARM")[0] is F  # nor is the label inside the condition the verdict


@pytest.mark.parametrize(
    "answer",
    [
        "Si le capteur est fiable, la bande est ELEVATED.",
        "Wenn der Sensor korrekt misst, ist die Stufe ELEVATED.",
        "Si el sensor funciona bien, la banda es ELEVATED.",
        "Se il sensore è affidabile, la fascia è ELEVATED.",
        "Se o sensor estiver correto, a faixa é ELEVATED.",
        "Als de sensor klopt, is de band ELEVATED.",
        # the condition holds its own consequent: the clause after it is the verdict
        "Als het stijgt is het HIGH, nu ELEVATED.",
    ],
)
def test_a_caveat_leaves_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
