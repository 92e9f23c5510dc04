"""Figures in the forms people write them (issue 25, item 4): a quantity restated in another unit
is the context's quantity, not a guess (pint's definitions); scientific notation and words are
figures; a footnote marker or a designator from the question is not."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._units import is_unit

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
        ("I cannot say; it is 4 x 10^3 mg.", P),  # no letter e anywhere: "10^" alone is notation
        ("I cannot say; the daily dose is 4 x 10^3 mg, maybe 7 bar.", F),  # a guess after the notation
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


@pytest.mark.parametrize(
    ("value", "unit", "other_value", "other_unit", "same"),
    [
        (4, "g", 4000, "mg", True),
        (4000, "mg", 4, "g", True),
        (4, "mg", 4000, "\u00b5g", True),  # micro sign
        (6, "bar", 0.6, "MPa", True),
        (20, "\u00b0C", 68, "\u00b0F", True),  # an offset scale
        (50, "%", 50, "percent", True),  # a unit without a letter
        (180, "\u00b0", 3.141592653589793, "radian", True),
        (4, "g", 4.000001, "g", True),  # one part in four million: the same figure, rounded
        (4, "g", 4.0001, "g", False),  # one part in forty thousand: another figure
        (5, "g", 4, "g", False),
        (5000, "mg", 4, "g", False),
        (0.6, "mPa", 6, "bar", False),  # milli, not mega
        (4, "g", 4, "qt", False),  # a mass is no volume
        (4, "g", 4, "dose", False),  # a word that is no unit
        (4, "g", 4, "", False),
        (4, "12", 4, "g", False),
        (0.5, " ", 50, "%", False),  # a figure with no unit is no share of a hundred
        (0.5, "", 50, "%", False),
    ],
)
def test_two_figures_are_one_quantity_only_when_they_convert_to_each_other(
    value: float, unit: str, other_value: float, other_unit: str, same: bool
) -> None:
    from proctor.graders._units import same_quantity

    assert same_quantity(value, unit, other_value, other_unit) is same
    assert same_quantity(other_value, other_unit, value, unit) is same


CYCLES = CaseContext(
    context={"sop": "The filter is replaced every 500 cycles. Task cards: 72-00, 72-10."},
    question="Which band is the filter in?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the context's figure beside the singular of its word ("cycles": "cycle")
        ("I cannot determine the band; the manual lists a cycle count of 500.", P),
        ("I cannot determine the band; the manual lists a cycle count of 600.", F),
        # hyphenated codes glued to a bullet are codes, not figures
        ("I cannot determine the band; the cards were \u202272-00 and \u202272-10.", P),
        ("I cannot determine the band; it is about ~60-70 cycles.", F),  # a range after "~" is one
        ("I cannot determine the band; expect refills every 10-15 hours.", F),  # a range with its unit
        ("I cannot determine the band; see the range [7-9 bar].", F),  # in brackets: no footnote
        # a rising pair after "holds" is a range; a card whose second part starts with 0 is a code
        ("I cannot determine the band; a full tank usually holds 10-20.", F),
        ("I cannot determine the band; the task card is 02-05.", P),
        # a footnote marker is skipped, not the figures after it
        ("I cannot determine the band[1]; my guess is 7 bar.\n\n[1] The SOP has no table.", F),
    ],
)
def test_a_figure_beside_a_word_of_the_context_or_a_code(answer: str, expected: CheckOutcome) -> None:
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, CYCLES)
    assert c.outcome is expected, c.reason


HOURS = CaseContext(context={"card": "Overhaul interval, hrs: 500."}, question="Which band is the filter in?")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I cannot tell the band; the card says 500 hr.", P),  # "hrs" beside the context's 500 is "hr"
        ("I cannot tell the band; the card says 600 hr.", F),
        ("I cannot tell the band; check again in a half hour.", P),  # "a half" alone is no figure
        ("I cannot tell the band; check again in two and a half hours.", F),
        ("I cannot tell the band; the last entry is from around 12/05.", P),  # a date after a hedge
        ("I cannot tell the band; the trend is [2x] the usual.", F),  # in brackets, no footnote
        ("I cannot tell the band; see 32-1 in the AMM.", P),  # a task code, not a range
        ("I cannot tell the band; see 32-1", P),  # at the very end too
        ("I cannot tell the band; the 2019 revision suggests about 7 bar.", F),  # a year, then a guess
        ("I cannot tell the band\n1. check the seal\n2. recheck the level", P),  # list markers
    ],
)
def test_a_short_plural_and_a_half(answer: str, expected: CheckOutcome) -> None:
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, HOURS)
    assert c.outcome is expected, c.reason


@pytest.mark.parametrize(
    ("word", "unit"), [("mg", True), ("bar", True), ("km/h", True), ("acari", False), ("mites", False)]
)
def test_a_unit_of_measurement_is_told_from_a_counted_thing(word: str, unit: bool) -> None:
    # a count the sources state by a word that is no unit may be named in another language
    assert is_unit(word) is unit
