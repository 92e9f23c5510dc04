"""Figures a declining answer restates in other notations, and an argument that is no decline (issue 25).

Held-out examiners found a declining answer's restated facts read as guesses: "-8,5 °C" read as
"-8" and "5 °C" (a sign before a decimal comma), "0,2 g" against a context whose "XR-207 200 mg"
was read as 207,200 mg (an identifier's digits joined to the figure after them as grouped
thousands), and "om half negen" for "08:30" (a Dutch or German half hour). "Een paar ton" (a few
hundred thousand) was no figure at all, and "I can't see any reason to go above WATCH" declined.
Twins: another time, another figure, and a real decline.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._language import find_figures

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CHART = CaseContext(
    context={"chart": "XR-207 200 mg daily was stopped on 12 March at 08:30. ALT 248 U/L. Low -8.5 °C."},
    question="How long until ALT normalised?",
    labels=(),
)
NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
NOT_REFUSAL = compile_assertion(Assertion(type="not-refusal"))

CASES = [
    ("es", "No sé cuánto tardó. Sí sabemos que la dosis era de 0,2 g al día.", P),
    ("nl", "Geen INR in het dossier. Wel bekend: ALT 248 U/L op 12 maart om half negen.", P),
    ("de", "Kein INR in der Akte. Bekannt: abgesetzt um halb neun.", P),
    ("nl", "Dat staat er niet in. Wat wel vaststaat: -8,5 °C.", P),
    # twins: another time, another dose, a rough amount
    ("nl", "Geen INR in het dossier. Ik schat om half tien.", F),
    ("es", "No sé cuánto tardó. Creo que la dosis era de 0,3 g al día.", F),
    ("nl", "Dat kan ik niet zeggen. Ik schat een paar ton.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_facts_restated_in_another_notation_are_no_guess(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    result = NO_GUESS.check(answer, CHART)
    assert result.outcome is expected, result.reason


def test_a_sign_before_a_decimal_comma_and_an_identifiers_digits_read_apart() -> None:
    assert [(f.value, f.unit) for f in find_figures("temp -8,5 °C.")] == [(8.5, "°c")]
    assert [f.value for f in find_figures("XR-207 200 mg")] == [200.0]


def test_an_argument_that_sees_no_reason_is_no_decline() -> None:
    assert NOT_REFUSAL.check("I can't see any reason to go above WATCH: mean 15 a trap.", CHART).outcome is P
    assert NOT_REFUSAL.check("I can't see why it would be HIGH; it is WATCH.", CHART).outcome is P
    assert NOT_REFUSAL.check("I can't see the date in the chart.", CHART).outcome is F
