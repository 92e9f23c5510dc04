"""A rule stays a rule whatever order its condition is written in (issue 25).

With HIGH expected, "Si se enciende el piloto ALARM, la banda es HIGH" passed while its French
twin failed: Spanish, Italian and Portuguese put the event's subject after its verb, so the label
ALARM ended the condition and was read as the condition's own consequent. A label at the end of a
condition is its consequent only after a verb of being ("Als het stijgt is het HIGH, nu
ELEVATED"). German and Dutch write a condition with the verb first and no condition word
("Steigt der Verbrauch über 0,60, ist die Stufe HIGH"): that is a rule too.
"""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

LABELS = ["NORMAL", "ELEVATED", "HIGH", "ALARM"]

RULES = [
    ("es", "Si se enciende el piloto ALARM, la banda es HIGH."),
    ("es", "Si se activa el aviso ALARM, la banda es HIGH."),
    ("it", "Se si accende la spia ALARM, la fascia è HIGH."),
    ("pt", "Se acender a luz ALARM, a faixa é HIGH."),
    ("pt", "Se disparar o alarme ALARM, a faixa é HIGH."),
    ("fr", "Si s'allume le voyant ALARM, la bande est HIGH."),
    ("de", "Steigt der Verbrauch über 0,60, ist die Stufe HIGH."),
    ("de", "Leuchtet die Lampe ALARM auf, ist die Stufe HIGH."),
    ("nl", "Stijgt het verbruik boven 0,60, dan is de band HIGH."),
]

VERDICTS = [
    # the condition holds its own consequent: the clause after it is the verdict
    ("nl", "Als het stijgt is het HIGH, nu ELEVATED."),
    ("es", "Si el consumo sube es HIGH, ahora es ELEVATED."),
    ("it", "Se il consumo sale è HIGH, ora è ELEVATED."),
    ("pt", "Se o consumo subir fica HIGH, agora é ELEVATED."),
    # a verb after a comma goes on with the sentence before: no condition
    ("de", "Der Verbrauch beträgt 0,45 qt/h, liegt also über 0,30, die Stufe ist ELEVATED."),
    ("nl", "Het verbruik is 0,45, ligt dus boven 0,30, de band is ELEVATED."),
    # a question with the verb first is no condition
    ("de", "Steigt der Verbrauch? Nein, die Stufe ist ELEVATED."),
]


@pytest.mark.parametrize(("lang", "answer"), RULES)
def test_a_rule_with_its_condition_in_any_order_is_no_verdict(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "HIGH", LABELS)
    assert outcome is CheckOutcome.FAIL, (lang, reason)
    assert "HIGH" in reason.split("hypothetical:")[1]


@pytest.mark.parametrize(("lang", "answer"), VERDICTS)
def test_the_verdict_after_a_condition_that_holds_its_consequent(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "ELEVATED", LABELS)
    assert outcome is CheckOutcome.PASS, (lang, reason)
