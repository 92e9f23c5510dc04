"""A comparing word ("to", "over", "under", "from"...) before a figure makes a label the rule of a
band, not a verdict; only as a word of its own. The end of another word compared nothing, but was
read as one: "Risultato 0,45 qt/h: ELEVATED." (Italian "result") and "Valore misurato 0,45 ->
ELEVATED" ("measured") were read as rules, and a correct answer failed."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

LABEL = compile_assertion(Assertion(type="label", value="ELEVATED", labels=["NORMAL", "ELEVATED", "HIGH"]))


@pytest.mark.parametrize(
    "answer",
    [
        "Risultato 0,45 qt/h: ELEVATED.",
        "Valore misurato 0,45 \u2192 ELEVATED",
        "Misurato 0,45, quindi ELEVATED.",
        "Consumo previsto 0,45 qt/h -> ELEVATED.",
        "Engine 2, Hanover 0.45 qt/hr: ELEVATED.",  # a place name ending in "over"
    ],
)
def test_a_word_that_ends_in_a_comparing_word_compares_nothing(answer: str) -> None:
    c = LABEL.check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Readings from 0.30 to 0.60 are ELEVATED.",
        "The band is ELEVATED from 0.30 qt/hr.",
        "At >=0.30 qt/hr: ELEVATED.",
    ],
)
def test_a_comparing_word_of_its_own_still_makes_the_label_a_rule(answer: str) -> None:
    c = LABEL.check(answer)
    assert c.outcome is not CheckOutcome.PASS and "rule: ELEVATED" in c.reason, c.reason
