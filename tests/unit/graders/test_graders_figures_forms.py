"""Figures in the forms people write them (issue 25, item 4): a quantity restated in another unit
is the context's quantity, not a guess (pint's definitions); scientific notation and words are
figures; a footnote marker or a designator from the question is not."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CTX = CaseContext(
    context={"sop": "The daily dose is 4 g. Chiller 2 runs at 6 bar. The filter holds 2 L."},
    question="What is the maximum pressure for chiller 2?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I cannot say; the daily dose is 4000 mg.", P),  # 4 g
        ("I cannot say; the daily dose is 4e3 mg.", P),
        ("I cannot say; the daily dose is 4 x 10^3 mg.", P),
        ("I cannot tell; the dose is four grams.", P),
        ("I cannot tell the maximum; it runs at 0.6 MPa.", P),  # 6 bar
        ("I cannot tell the maximum; the filter holds 2000 mL.", P),
        ("I cannot tell the maximum for chiller 2.", P),  # a designator from the question
        ("I cannot say what the maximum is[1].\n\n[1] SOP, section on chillers.", P),  # a footnote
        ("I cannot tell the maximum; maybe 5e3 mg a day.", F),
        ("I cannot tell the maximum; maybe 5 x 10^3 mg.", F),
        ("I cannot tell the maximum; maybe 7 bar.", F),
        ("I cannot tell the maximum; 0.6 mPa is all I know.", F),  # milli, not mega: another quantity
        ("I cannot tell the maximum; probably around 4000 kg.", F),  # same digits, another quantity
        ("I cannot tell the maximum; probably seven bar.", F),
    ],
)
def test_a_figure_restated_in_another_unit_or_notation(answer: str, expected: CheckOutcome) -> None:
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, CTX)
    assert c.outcome is expected, c.reason
