"""A band's rule stated, then applied to the case (issue 25): "If the flow exceeds 0.60, the band is
HIGH; here, ELEVATED." gives the verdict ELEVATED, and HIGH is only the rule's consequent. English
read no condition across the comma, so ``label`` expecting ELEVATED failed (both named) on it; the
other languages' tables already read this shape and keep reading it. A condition that only frames
the comparison, or a caveat, leaves its clause the verdict."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "If the flow exceeds 0.60, the band is HIGH; here, ELEVATED.",
        "If consumption goes above 0.60 qt/h, the band is HIGH; at 0.45 qt/h it is ELEVATED.",
        "Should the reading exceed 0.60, the band would be HIGH; the reading is 0.45, so ELEVATED.",
        "Si le débit dépasse 0,60, la bande est HIGH ; ici, ELEVATED.",
        "Wenn der Verbrauch 0,60 übersteigt, ist das Band HIGH; hier ELEVATED.",
        "Se il consumo supera 0,60, la fascia è HIGH; qui, ELEVATED.",
        "Als het verbruik boven 0,60 komt, is de band HIGH; hier ELEVATED.",
        "Se o consumo ultrapassar 0,60, a faixa é HIGH; aqui, ELEVATED.",
    ],
)
def test_a_rule_stated_then_applied_gives_the_applied_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
    assert "hypothetical: HIGH" in reason
    assert _label(answer, "HIGH")[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        "If the warning light comes on, the band is HIGH.",
        "If the low-oil switch trips, the band is HIGH.",
        "If the flow rises above 0.60, the band is HIGH.",
    ],
)
def test_an_english_rule_alone_is_no_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH")
    assert outcome is F, reason
    assert "hypothetical: HIGH" in reason


@pytest.mark.parametrize(
    "answer",
    [
        "If we compare it with the 0.60 limit, the consumption is ELEVATED.",
        "If the sensor is reliable, the band is ELEVATED.",
        "If you ask me, at 0.45 qt/h the band is ELEVATED.",
        "If I remember the manual right, 0.45 qt/h puts it at ELEVATED.",
        "When measured at 0.45 qt/h, the consumption is ELEVATED.",
        "Should you need a summary, the band is ELEVATED.",
    ],
)
def test_an_english_caveat_or_framing_leaves_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
