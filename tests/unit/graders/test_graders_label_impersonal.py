"""A label's word in "it is possible that ..." is prose, not a second verdict (issue 25).

A held-out examiner found "PROBABLE. It's possible the atorvastatin contributed ..." failed as
naming PROBABLE and POSSIBLE: a lower-case label said of "it" read as said of the case. When a
clause of its own follows ("the statin contributed", "que la statine", "to act now"), "it" is
impersonal and the word is prose, whether the verdict is written in capitals or not. Twins: the
label said of the case ("it's possible."), or as the answer's only label, still names it.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LABELS = ("DEFINITE", "PROBABLE", "POSSIBLE", "UNLIKELY")
CASE = CaseContext(context={"report": "ALT fell after stopping it."}, question="Causality?", labels=LABELS)
P, F = CheckOutcome.PASS, CheckOutcome.FAIL


def grade(value: str, answer: str) -> CheckOutcome:
    assertion = compile_assertion(Assertion(type="label", value=value, labels=list(LABELS)))
    return assertion.check(answer, CASE).outcome


CASES = [
    ("PROBABLE", "PROBABLE. It's possible the atorvastatin contributed, but not likely.", P),
    ("PROBABLE", "PROBABLE. Il est possible que la statine ait contribué.", P),
    ("PROBABLE", "Probable. It's possible the statin contributed.", P),
    ("PROBABLE", "PROBABLE. It is possible that the statin played a part.", P),
    ("PROBABLE", "It is probable that the drug did it.", P),
    # twins: said of the case, or alone
    ("PROBABLE", "PROBABLE. It is possible.", F),
    ("PROBABLE", "PROBABLE. I'd say it's possible.", F),
    ("POSSIBLE", "It's possible the statin contributed.", P),
]


@pytest.mark.parametrize(("value", "answer", "expected"), CASES)
def test_a_label_word_said_of_an_impersonal_it_is_prose(
    value: str, answer: str, expected: CheckOutcome
) -> None:
    assert grade(value, answer) is expected
