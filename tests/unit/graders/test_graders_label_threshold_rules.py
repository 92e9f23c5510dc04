"""A band said to apply only below or above a threshold (``WARNING only applies below 15 %``,
``le WARNING ne vaut que sous 15 %``, ``il WARNING si applica solo sotto il 15 %``) is the
band's rule, not a verdict, in every language. Twins: the rule does not make its band the value,
and the band given as the verdict after its rule is named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

CASE = ["NO_CASE", "WARNING", "GRADE_PENALTY", "SUSPENSION"]

SCOPED = [
    "GRADE_PENALTY. WARNING only applies below 15 %, and this is 21 %.",
    "Un simple avertissement ? Non : le WARNING ne vaut que sous 15 %. Ici c'est GRADE_PENALTY.",
    "GRADE_PENALTY. WARNING gilt nur unter 15 %, hier sind es 21 %.",
    "GRADE_PENALTY. El WARNING solo se aplica por debajo del 15 %, y aquí estamos en el 21 %.",
    "GRADE_PENALTY. O WARNING só se aplica abaixo de 15 %, e aqui estamos nos 21 %.",
    "Secondo me GRADE_PENALTY. Il WARNING vale solo sotto il 15 %, e qui siamo al 21 %.",
    "GRADE_PENALTY. WARNING geldt alleen onder de 15 %, en hier is het 21 %.",
]


@pytest.mark.parametrize("answer", SCOPED)
def test_a_band_scoped_by_a_threshold_is_its_rule(answer: str) -> None:
    outcome, reason = label(answer, "GRADE_PENALTY", CASE)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize("answer", SCOPED)
def test_the_scoped_band_is_not_the_value(answer: str) -> None:
    outcome, reason = label(answer, "WARNING", CASE)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "WARNING only applies below 15 %, and this is 12 %: WARNING.",
        "Le WARNING ne vaut que sous 15 %, et on est à 12 % : WARNING.",
        "WARNING gilt nur unter 15 %, hier sind es 12 %: also WARNING.",
        "El WARNING solo se aplica por debajo del 15 %, y aquí estamos en el 12 %: WARNING.",
        "O WARNING só se aplica abaixo de 15 %, e aqui estamos nos 12 %: WARNING.",
        "Il WARNING vale solo sotto il 15 %, e qui siamo al 12 %: quindi WARNING.",
        "WARNING geldt alleen onder de 15 %, en hier is het 12 %: dus WARNING.",
    ],
)
def test_the_band_given_after_its_rule_is_named(answer: str) -> None:
    outcome, reason = label(answer, "WARNING", CASE)
    assert outcome is CheckOutcome.PASS, reason
