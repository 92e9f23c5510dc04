"""A verb first with the label right after it states the band; with a subject between, it is a
condition (issue 25).

"Wird der Grenzwert überschritten, ist es MAJOR" puts a condition first; "Bleibt MINOR." (it stays
MINOR) states the band. The grader read the second as a condition too, so the answer's own band was
"qualified" and a band set aside before it left the answer naming both.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LABELS = ("COMPLIANT", "MINOR_EXCEEDANCE", "MAJOR_EXCEEDANCE")
CTX = CaseContext(labels=LABELS)


def _check(answer: str, want: str = "MINOR_EXCEEDANCE") -> CheckOutcome:
    a = Assertion(type="label", value=want, labels=list(LABELS))
    return compile_assertion(a).check(answer, CTX).outcome


@pytest.mark.parametrize(
    "answer",
    [
        "Die Angler hätten gern MAJOR_EXCEEDANCE, aber dafür bräuchte es eine Wiederholung. "
        "Bleibt MINOR_EXCEEDANCE.",
        "De vissers willen MAJOR_EXCEEDANCE, maar daarvoor is een herhaling nodig. Blijft MINOR_EXCEEDANCE.",
    ],
)
def test_a_band_stated_by_a_verb_first_is_not_a_condition(answer: str) -> None:
    # the other band stands before a contrast: which one the answer gives is for the judge, not FAIL
    assert _check(answer) is not CheckOutcome.FAIL


@pytest.mark.parametrize(
    ("answer", "want", "expected"),
    [
        ("Bleibt MINOR_EXCEEDANCE.", "MINOR_EXCEEDANCE", CheckOutcome.PASS),
        ("Blijft MINOR_EXCEEDANCE.", "MINOR_EXCEEDANCE", CheckOutcome.PASS),
        # a condition, whose band is no verdict
        (
            "Wenn der Tagesgrenzwert erneut überschritten wird, ist es MAJOR_EXCEEDANCE. "
            "Jetzt: MINOR_EXCEEDANCE.",
            "MINOR_EXCEEDANCE",
            CheckOutcome.PASS,
        ),
    ],
)
def test_verb_first_twins(answer: str, want: str, expected: CheckOutcome) -> None:
    assert _check(answer, want) is expected
