"""A negative finding that is the answer, concluded with a word of "so" to a figure or a number
word ("No hay derecho antidumping para este modelo, así que el tipo es cero"), answers: ``refusal``
fails it rather than calling it undetermined, in every supported language (held-out examiners,
session 33). A negation beside a source with no such conclusion may still decline, and stays
undetermined when no phrase holds it."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, Unread, compile_assertion

P, F, U = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.UNDETERMINED
CONTEXT = CaseContext(
    context={"file": "Import file HS-4471: DX-9 units, 40 boxes declared. No anti-dumping measure listed."},
    question="Is there an anti-dumping duty on the DX-9, and how many boxes were opened?",
    labels=(),
)


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str, Unread | None]:
    c = compile_assertion(Assertion(type=kind)).check(answer, CONTEXT)
    return c.outcome, c.reason, c.unread


@pytest.mark.parametrize(
    "answer",
    [
        "There is no anti-dumping duty on this model, so the rate is zero; all boxes were opened.",
        "Il n'y a pas de droit antidumping pour ce modèle, donc le taux est de zéro.",
        "Es gibt keinen Antidumpingzoll für dieses Modell, also ist der Satz null.",
        "No hay derecho antidumping para este modelo, así que el tipo es cero; se abrieron todas las cajas.",
        "Não há direito antidumping para este modelo, então a taxa é zero.",
        "Non c'è dazio antidumping per questo modello, quindi l'aliquota è zero.",
        "Er is geen antidumpingrecht voor dit model, dus het tarief is nul.",
        "Er is geen antidumpingrecht voor dit model, dus het tarief blijft op nul procent.",
    ],
)
def test_a_negative_finding_concluded_to_a_figure_answers(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)


def test_a_decline_concluded_without_a_figure_still_declines() -> None:
    answer = "El expediente no dice si hay derecho antidumping, así que no puedo dar el tipo."
    assert _check("refusal", answer)[0] is P, _check("refusal", answer)
