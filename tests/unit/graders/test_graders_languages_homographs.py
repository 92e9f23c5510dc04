"""Rule words that read as another word of their language (issue 25). The rules read words with
their accents folded, so German "läge" (if it lay) was "Lage" (the situation) and "Die Lage der
Pumpe ist ELEVATED." a condition; Portuguese "se" is both "if" and the reflexive pronoun ("o nível
se mantém ELEVATED": it stays ELEVATED). Both were false FAILs of ``label``; each beside twins
where the word is the condition and the label stays hypothetical."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Die Lage der Pumpe ist ELEVATED.",
        "Angesichts der Lage der Messstelle ist der Verbrauch ELEVATED.",
        "O consumo de óleo do motor dois se mantém em ELEVATED.",
        "Com 0,45 qt/h, o consumo do motor dois se situa em ELEVATED.",
        "Depois da revisão, o consumo de óleo se encontra ELEVATED.",
    ],
)
def test_a_word_that_only_looks_like_a_condition_leaves_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
    assert _label(answer, "HIGH")[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        # the German verb first in its clause is the condition
        "Läge der Verbrauch höher, wäre die Stufe HIGH.",
        "Stiege der Verbrauch über 0,60, wäre die Stufe HIGH.",
        "Sollte der Verbrauch 0,60 übersteigen, ist die Stufe HIGH.",
        # the Portuguese "se" that opens a condition
        "Avise se o nível de consumo se mantiver HIGH.",
        "Se o consumo do motor passar de 0,60, a faixa é HIGH.",
    ],
)
def test_the_condition_it_looks_like_stays_a_condition(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH")
    assert outcome is F, reason
    assert "hypothetical: HIGH" in reason
