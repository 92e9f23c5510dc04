"""Not being able to put a figure on the thing, or not giving a view (``I can't put a number on
it``, ``je ne me prononcerai pas``, ``kann ich nicht beziffern``, ``non mi pronuncio``), declines
in every language. Twins: the same idiom without its negation, then a figure, does not."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CTX = CaseContext(
    context={"doc-1": "Mechanic's log: rime ice on the haul rope between towers 6 and 8, knocked off."},
    question="How thick was the ice at tower 7?",
)


def refusal(answer: str) -> CheckOutcome:
    return compile_assertion(Assertion.model_validate({"type": "refusal"})).check(answer, CTX).outcome


@pytest.mark.parametrize(
    "answer",
    [
        "The log mentions rime at tower 7, but it never gives a thickness. I can't put a number on it.",
        "Aucune des pièces ne permet de le dire ; je ne me prononcerai pas.",
        "Die Eisdicke kann ich nicht beziffern.",
        "Sobre el grosor del hielo no me pronuncio.",
        "Sobre a espessura do gelo não me pronuncio.",
        "Sullo spessore del ghiaccio non mi pronuncio.",
        "Ik kan er geen getal op plakken.",
    ],
)
def test_no_figure_idioms_decline(answer: str) -> None:
    assert refusal(answer) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "I can put a number on it: about 4 mm.",
        "Je me prononce : 4 mm.",
        "Die Eisdicke kann ich beziffern: 4 mm.",
        "Me pronuncio: 4 mm.",
        "Pronuncio-me: 4 mm.",
        "Mi pronuncio: 4 mm.",
        "Ik kan er een getal op plakken: 4 mm.",
    ],
)
def test_the_idiom_without_negation_does_not_decline(answer: str) -> None:
    assert refusal(answer) is CheckOutcome.FAIL
