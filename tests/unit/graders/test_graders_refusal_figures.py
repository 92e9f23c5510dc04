"""no-guess-after-refusal reads a figure in words as the number it is: a decline that quotes the
context's figure in another spelling passes, one that changes the figure by one fails.

Every number word, scale and connective is tried (not drawn), so a wrong value for any one of them
(``twenty`` read as 21, ``a hundred`` as 200) turns a quoted figure into a guess or a guess into a
quote.
"""

from __future__ import annotations

import pytest

from numberwords import in_words
from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, Check, CheckOutcome, compile_assertion

NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
DECLINE = "The manual does not give the blade count; it only says"


def no_guess(answer: str, context: str) -> Check:
    return NO_GUESS.check(answer, CaseContext(context={"amm-05-10": context}))


def quoted(context_figure: str, answer_figure: str, unit: str = "hours") -> Check:
    return no_guess(
        f"{DECLINE} {answer_figure} {unit} for the seal.",
        f"Replace the seal every {context_figure} {unit}.",
    )


def test_every_number_from_0_to_99_in_words_is_the_figure_in_digits() -> None:
    for n in range(100):
        words = in_words(n)
        same = quoted(words, str(n))
        assert same.passed is True, (words, same.reason)
        assert quoted(str(n), words).passed is True, words  # and the other way round
        other = quoted(words, str(n + 1))
        assert other.passed is False, (words, other.reason)
        assert other.reason.endswith(f'then guesses "{n + 1} hours"'), other.reason


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("fourty", 40),  # a common misspelling is still the figure
        ("fourty-two", 42),
        ("a hundred", 100),
        ("one hundred", 100),
        ("three hundred and twelve", 312),
        ("nine hundred and ninety-nine", 999),
        ("a thousand", 1000),
        ("two thousand", 2000),
        ("two thousand three hundred", 2300),
        ("twelve thousand five hundred", 12500),
        ("two million", 2_000_000),
        ("three billion", 3_000_000_000),
        ("one million two hundred thousand", 1_200_000),
        ("two thousand and a half", 2000.5),
        ("hundred and twenty", 120),
        ("a dozen", 12),
        ("two dozen", 24),
        ("half a dozen", 6),
        ("one and a half", 1.5),
        ("two and a half", 2.5),
    ],
)
def test_scales_halves_and_dozens_are_read_as_their_value(words: str, value: float) -> None:
    digits = f"{value:g}" if value != int(value) else str(int(value))
    assert quoted(words, digits).passed is True, words
    assert quoted(digits, words).passed is True, words
    wrong = f"{value + 1:g}" if value != int(value) else str(int(value) + 1)
    c = quoted(words, wrong)
    assert c.passed is False, (words, c.reason)


@pytest.mark.parametrize(
    "vague",
    ["a few dozen", "several hundred", "dozens of", "hundreds of", "a couple of dozen", "many thousands of"],
)
def test_a_vague_quantity_is_never_the_context_s_figure(vague: str) -> None:
    # "several hundred" is not 400, nor any figure the context states: always a guess
    for stated in ("3", "4", "5", "12", "24", "36", "48", "60", "100", "300", "400", "500", "1000"):
        c = no_guess(f"{DECLINE} there are {vague} blades.", f"The fan has {stated} blades.")
        assert c.passed is False, (vague, stated, c.reason)


AMM = (
    "Oil bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr. Torque the drain plug to"
    " 24 Nm. Inspect the seal every 500 hours."
)
QUESTION = "Engine 2 burns 0.45 qt/hr. How many fan blades does it have?"
SOURCES = CaseContext(context={"amm-72-00": AMM}, question=QUESTION)
DECLINED = 'answer declines ("I cannot determine")'


def verdict(answer: str) -> str:
    return NO_GUESS.check(answer, SOURCES).reason.removeprefix("no-guess-after-refusal: ")


@pytest.mark.parametrize(
    "tail",
    [
        "see AMM 72-00",  # a document's number
        "see AMM72",
        "it is for the A320",  # a number glued to letters
        "see part 340-101",  # a hyphenated code
        "see 340-101",
        "code 10_15",
        "see item 10/15",
        "ref #12",
        "see \u00a712",
        "ticket# 55",
        "see section 4.2",  # any number after a section word
        "see step 2.5",
        "it is for engine 3",  # a whole number after a designator
        "it is for engine two",
        "the 2019 revision may list it",  # a bare year
        "the two documents are silent",  # counting the sources
        "the 2 documents are silent",
        "one of them may list it",
        "24 Nm is the drain plug torque",  # the context's figure as the same quantity
        "the seal is inspected every 500 hours",
        "the 0.45 qt/hr you reported is unrelated",  # the question's figure
    ],
)
def test_figures_that_are_not_guesses(tail: str) -> None:
    assert verdict(f"I cannot determine the count; {tail}.") == f"{DECLINED} and states no figure or verdict"


@pytest.mark.parametrize(
    ("tail", "guess"),
    [
        ("it is for engine 2.5", "2.5"),  # a decimal after a designator is a figure
        ("2019 hours", "2019 hours"),  # a year-like number with a quantity
        ("one hour", "one hour"),  # "one" with a quantity
        ("zero hours", "zero hours"),
        ("24 blades", "24 blades"),  # the context's 24 is a torque, not a count
        ("500 cycles", "500 cycles"),  # the context's 500 is in hours
        ("\u22123 blades", "\u22123 blades"),
        ("1,200 blades", "1,200 blades"),
        ("it is probably CRITICAL", "CRITICAL"),  # a verdict in capitals after a hedge
        ("it is probably `CRITICAL`", "CRITICAL"),  # also as code
        ("maybe one hundred", "one hundred"),  # "one" as the start of a number
        ("I'd say it is probably HIGH", "HIGH"),
    ],
)
def test_guesses_after_declining(tail: str, guess: str) -> None:
    assert verdict(f"I cannot determine the count; {tail}.") == f'{DECLINED} then guesses "{guess}"'


@pytest.mark.parametrize(
    ("tail", "first"), [("maybe 10-15 blades", "10"), ("maybe 10-15 hours", "10"), ("maybe 0.4-0.5", "0.4")]
)
def test_a_range_is_two_figures_not_a_code(tail: str, first: str) -> None:
    expected = f'{DECLINED} then guesses "{first}" (and 1 more)'
    assert verdict(f"I cannot determine the count; {tail}.") == expected


@pytest.mark.parametrize(
    "tail",
    [
        "it is probably AMM",  # an acronym is not a verdict
        "it is XCRITICAL",  # no hedge before it
        "CRITICAL",
        "it is probably_CRITICAL",
    ],
)
def test_upper_case_words_that_are_not_guessed_verdicts(tail: str) -> None:
    assert verdict(f"I cannot determine the count; {tail}.") == f"{DECLINED} and states no figure or verdict"


def test_list_markers_at_the_start_of_a_line_are_not_figures() -> None:
    steps = "I cannot determine the count:\n1. Open the IPC.\n  2) Ask the lead.\n3. Wait."
    assert verdict(steps) == f"{DECLINED} and states no figure or verdict"
    none = f"{DECLINED} and states no figure or verdict"
    assert verdict("1. I cannot determine the count.\n2. Ask.") == none
    # the same digits inside a sentence are figures
    assert verdict("I cannot determine the count; it is 1. Ask the lead.") == f'{DECLINED} then guesses "1"'
    # a figure that opens a line is a guess unless it continues a numbered list
    assert verdict("I cannot determine the count.\n24. Probably.") == f'{DECLINED} then guesses "24"'
    assert verdict("I cannot determine the count:\n1. Ask.\n3. Wait.") == f'{DECLINED} then guesses "3"'
    assert verdict("I cannot determine the count.\n2. Ask.") == f'{DECLINED} then guesses "2"'  # no 1. before
    assert verdict("I cannot determine the count.\n0. Ask.") == f'{DECLINED} then guesses "0"'


def test_a_guess_before_the_declining_sentence_is_reported_as_but_guesses() -> None:
    assert verdict("It has 24 blades. I cannot determine the count.") == f'{DECLINED} but guesses "24 blades"'
    assert verdict("It is probably CRITICAL; I cannot determine the count.") == (
        f'{DECLINED} but guesses "CRITICAL"'
    )
    # a guessed verdict counts from the declining sentence on, a figure anywhere
    assert verdict("It is probably CRITICAL. I cannot determine the count.") == (
        f"{DECLINED} and states no figure or verdict"
    )


def test_every_guess_is_counted_in_the_reason() -> None:
    assert verdict("I cannot determine the count; 24 blades, or 26 blades, or probably CRITICAL.") == (
        f'{DECLINED} then guesses "24 blades" (and 2 more)'
    )


def _declined(answer: str, ctx: CaseContext) -> str:
    return NO_GUESS.check(answer, ctx).reason.removeprefix("no-guess-after-refusal: ")


@pytest.mark.parametrize(
    ("stated", "quoted_as"),
    [
        ("Wait 24 hr.", "24 hrs"),  # an abbreviated unit in the plural is the same unit
        ("Add 5 lb.", "5 lbs"),
        ("Add 5 qt.", "5 qts"),
        ("Wait 5 min.", "5 mins"),
        ("Wait 24 hours.", "24 hours"),
        ("Allow a five minute rest.", "5 minutes"),  # "a" is an article there: five, not six
        ("Drain plug torque 24.", "the drain plug torque is 24"),  # no unit: the same words around it
        ("Torque: 24.", "the torque is 24"),  # the word in common opens the context
        ("Inspect the seal every 500 hours.", "the seal every 500"),
    ],
)
def test_the_context_s_figure_quoted_in_another_spelling_is_not_a_guess(stated: str, quoted_as: str) -> None:
    ctx = CaseContext(context={"amm-05-10": stated})
    assert _declined(f"I cannot determine the blade count; it only gives {quoted_as}.", ctx) == (
        f"{DECLINED} and states no figure or verdict"
    )


@pytest.mark.parametrize(
    ("stated", "guessed"),
    [
        ("Wait 5 m.", "5 ms"),  # milliseconds are not metres
        ("Wait 5 ms.", "5 m"),
    ],
)
def test_the_context_s_number_as_another_quantity_is_a_guess(stated: str, guessed: str) -> None:
    ctx = CaseContext(context={"amm-05-10": stated})
    assert _declined(f"I cannot determine the blade count; it only gives {guessed}.", ctx) == (
        f'{DECLINED} then guesses "{guessed}"'
    )


def test_the_context_s_bare_number_unhedged_after_a_decline_is_undetermined() -> None:
    # "it only gives 24": the manual's 24 quoted (a torque), or 24 offered as the blade count? The
    # grader cannot tell a bare number's quantity, so it does not guess either verdict
    ctx = CaseContext(context={"amm-05-10": "Drain plug torque 24."})
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(
        "I cannot determine the blade count; it only gives 24.", ctx
    )
    assert c.outcome is CheckOutcome.UNDETERMINED and "unhedged, a value the context states" in c.reason
    # hedged, it is a guess; with a unit the context does not give that number in, too
    assert (
        _declined("I cannot determine the blade count; probably 24.", ctx) == f'{DECLINED} then guesses "24"'
    )
    nm = CaseContext(context={"amm-05-10": "Drain plug torque 24 Nm."})
    assert _declined("I cannot determine the blade count; it has 24 blades.", nm) == (
        f'{DECLINED} then guesses "24 blades"'
    )


def test_a_number_word_after_a_designator_does_not_hide_the_next_guess() -> None:
    assert verdict("I cannot determine the count for engine two; maybe twenty blades.") == (
        f'{DECLINED} then guesses "twenty blades"'
    )


LABELS = CaseContext(labels=("NORMAL", "ELEVATED", "HIGH"))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a case's label named after the decline is a guessed verdict, hedged or not, in any case
        ("I cannot determine the count; it is ELEVATED.", 'then guesses "ELEVATED"'),
        ("I cannot determine the count; it is elevated.", 'then guesses "elevated"'),
        # a label inside the declining phrase itself is what the answer declines, not a guess
        (
            "The manual for ELEVATED readings says nothing about the blade count.",
            "and states no figure or verdict",
        ),
        # a label negated after the decline is no verdict
        ("I cannot determine the band; it is not NORMAL.", "and states no figure or verdict"),
    ],
)
def test_a_case_label_after_declining(answer: str, expected: str) -> None:
    assert NO_GUESS.check(answer, LABELS).reason.endswith(expected), answer


def test_a_hedged_verdict_before_the_declining_sentence_is_no_guess_in_a_long_answer() -> None:
    # the declining sentence is found however far into the answer it is
    history = "The oil was topped up. " * 100
    answer = history + "It is probably CRITICAL. I cannot determine the count."
    assert _declined(answer, CaseContext()) == f"{DECLINED} and states no figure or verdict"
    assert _declined(history + "I cannot determine it; probably CRITICAL.", CaseContext()).endswith(
        'then guesses "CRITICAL"'
    )


@pytest.mark.parametrize(("reach", "guessed"), [(40, True), (41, False)])
def test_a_hedge_reaches_a_verdict_forty_characters_on(reach: int, guessed: bool) -> None:
    # "probably" then fillers ("the", spaces) then the upper-case verdict, ``reach`` characters on
    gap = ("probably" + " the" * 7).ljust(reach)
    answer = f"I cannot determine the count; {gap}CRITICAL."
    assert answer.index("CRITICAL") - answer.index("probably") == reach
    guess, no_guess = f'{DECLINED} then guesses "CRITICAL"', f"{DECLINED} and states no figure or verdict"
    assert _declined(answer, CaseContext()) == (guess if guessed else no_guess)


def test_a_figure_that_ends_the_answer_is_a_guess() -> None:
    assert verdict("I cannot determine the count; maybe 24") == f'{DECLINED} then guesses "24"'
    assert verdict("I cannot determine the count; maybe 10-") == f'{DECLINED} then guesses "10"'


def test_a_figure_inside_the_declining_phrase_is_what_is_declined_not_a_guess() -> None:
    declined = 'answer declines ("The data from 2 flights says nothing")'
    assert verdict("The data from 2 flights says nothing about the blade count.") == (
        f"{declined} and states no figure or verdict"
    )
    assert verdict("The data from 2 flights says nothing about the blade count; maybe 3 flights.") == (
        f'{declined} then guesses "3 flights"'
    )


@pytest.mark.parametrize(
    ("stated", "verdict_of"),
    [
        ("Torque 24 Nm. The fan has 24 blades.", "and states no figure or verdict"),  # the second quantity
        ("Fan blade count: 24.", "and states no figure or verdict"),  # no unit there: the words around it
        ("Oil level: 24.", 'then guesses "24 blades"'),  # no unit, no word in common
    ],
)
def test_a_figure_with_a_unit_against_the_context_s_figures(stated: str, verdict_of: str) -> None:
    ctx = CaseContext(context={"amm-05-10": stated})
    answer = "I cannot determine the torque; the fan has 24 blades."
    assert _declined(answer, ctx) == f"{DECLINED} {verdict_of}"


def test_a_label_at_the_start_of_the_declining_sentence_is_a_guess() -> None:
    assert NO_GUESS.check("HIGH: I cannot determine the count.", LABELS).reason.endswith('but guesses "HIGH"')
    # a sentence before the declining one is not read for verdicts
    assert NO_GUESS.check("HIGH. I cannot determine the count.", LABELS).reason.endswith(
        "and states no figure or verdict"
    )


@pytest.mark.parametrize("answer", ["A320: I cannot determine it.", "/72: I cannot determine it."])
def test_a_code_opening_the_answer_is_not_a_guess(answer: str) -> None:
    assert verdict(answer) == f"{DECLINED} and states no figure or verdict", answer


@pytest.mark.parametrize(
    ("stated", "answer"),
    [
        ("The fan has 24 blades.", "I cannot determine the fan torque; it is 24 Nm."),
        ("Fan hub: 24 Nm.", "I cannot determine the count; the fan hub has 24 blades."),
    ],
)
def test_the_context_s_number_in_another_unit_is_a_guess_even_with_words_in_common(
    stated: str, answer: str
) -> None:
    guess = "24 " + answer.rsplit(" 24 ", 1)[1].rstrip(".")
    ctx = CaseContext(context={"amm-05-10": stated})
    assert _declined(answer, ctx) == f'{DECLINED} then guesses "{guess}"'


def test_a_hedged_upper_case_word_inside_the_declining_phrase_is_not_a_guess() -> None:
    declined = 'answer declines ("The manual would CERTAINLY say nothing")'
    assert verdict("The manual would CERTAINLY say nothing about the blade count.") == (
        f"{declined} and states no figure or verdict"
    )


def test_more_guesses_after_a_figure_that_is_not_one() -> None:
    # counting the sources is no guess, and reading goes on after it
    assert verdict("The 2 documents are silent on the count; it has 24 blades.") == (
        'answer declines ("The 2 documents are silent on") then guesses "24 blades"'
    )
    assert verdict("24 blades? I cannot tell") == 'answer declines ("I cannot tell") but guesses "24 blades"'


def test_the_label_unknown_as_the_declining_word_is_no_guess() -> None:
    labels = CaseContext(labels=("SAFE", "UNSAFE", "UNKNOWN"))
    reason = _declined("UNKNOWN from the data provided.", labels)
    assert reason == 'answer declines ("UNKNOWN from") and states no figure or verdict'


@pytest.mark.parametrize(("reach", "guessed"), [(2000, True), (2001, False)])
def test_the_declining_sentence_is_read_at_most_2000_characters_back(reach: int, guessed: bool) -> None:
    # one sentence (no full stop) of ``reach`` characters before the decline, opened by a verdict
    head = "HIGH "
    answer = head + ("oil " * 600)[: reach - len(head) - 1].ljust(reach - len(head)) + "I cannot determine it"
    assert answer.index("I cannot") == reach
    reason = _declined(answer, LABELS)
    assert reason == (
        f'{DECLINED} but guesses "HIGH"' if guessed else f"{DECLINED} and states no figure or verdict"
    )


def test_an_upper_case_word_of_a_document_id_does_not_hide_the_next_guess() -> None:
    ctx = CaseContext(context={"leak-report": "Seal weeping at the scavenge pump."})
    assert _declined("I cannot determine it; see the LEAK report, probably CRITICAL.", ctx) == (
        f'{DECLINED} then guesses "CRITICAL"'
    )


def test_a_count_of_sources_far_into_the_answer_is_no_guess() -> None:
    answer = "I cannot determine the blade count from the excerpt; the 2 documents you sent are silent."
    assert answer.index("2 documents") > 40
    assert verdict(answer) == f"{DECLINED} and states no figure or verdict"


@pytest.mark.parametrize(
    "hedge", ["maybe ", "about ", "roughly ", "probably ", "between ", "around ", "perhaps ", "~"]
)
def test_a_hyphenated_pair_after_a_hedge_is_a_range_of_figures(hedge: str) -> None:
    assert not no_guess(f"{DECLINE} {hedge}10-15.", "Inspect the fan.").passed


@pytest.mark.parametrize("code", ["see 72-00.", "AMM 05-10.", "task 72-00-01.", "refer to 21-51."])
def test_a_hyphenated_code_is_not_a_figure(code: str) -> None:
    assert no_guess(f"{DECLINE} {code}", "Inspect the fan.").passed


@pytest.mark.parametrize(
    "steps",
    [
        "(1) Ask the lead. (2) Check the AMM.",
        "(1) ask the lead, (2) check the log, (3) call MCC.",
        "(1) Ask the lead.",
    ],
)
def test_an_enumeration_in_running_text_is_not_a_figure(steps: str) -> None:
    assert no_guess(f"{DECLINE} the blade count. {steps}", "Inspect the fan.").passed


@pytest.mark.parametrize("answer", ["probably (2).", "(1) ask the lead, (3) check the log.", "it is (12)."])
def test_a_figure_in_brackets_out_of_sequence_is_a_guess(answer: str) -> None:
    assert not no_guess(f"{DECLINE} the blade count; {answer}", "Inspect the fan.").passed


AMM_OIL = (
    "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr. "
    "Inspect the scavenge pump seal within 10 flight hours when ELEVATED."
)


@pytest.mark.parametrize(
    "answer",
    [
        # the other end of a range the context states, with figures between its words
        "Per AMM 72-00, the oil use falls between 0.30 and 0.60, i.e. ELEVATED.",
        # the context's unit among the words after its figure ("10 flight hours")
        "Within 10 hours, inspect the seal (AMM 72-00).",
        # steps numbered after a sentence
        "1. Check the IPC. 2. Ask the lead.",
    ],
)
def test_a_decline_that_quotes_the_context_or_numbers_its_steps_is_no_guess(answer: str) -> None:
    assert no_guess(f"I don't know the blade count. {answer}", AMM_OIL).passed


@pytest.mark.parametrize(
    "answer",
    [
        "Within 12 hours, inspect the seal.",  # not the context's figure
        "It has 10 blades.",  # the context's 10 is flight hours, not blades
        "2. Ask the lead.",  # a step 2 with no step 1 is a figure
        "It is 1. Check it.",  # no sentence ends before it
    ],
)
def test_figures_near_those_forms_are_still_guesses(answer: str) -> None:
    assert not no_guess(f"I don't know the blade count. {answer}", AMM_OIL).passed


@pytest.mark.parametrize(
    "guess",
    ["tens of blades.", "single digits.", "low double digits.", "a score of them.", "in the high twenties."],
)
def test_an_order_of_magnitude_or_a_decade_of_numbers_is_a_guess(guess: str) -> None:
    assert not no_guess(f"{DECLINE} {guess}", "Inspect the fan.").passed


@pytest.mark.parametrize(
    "answer", ["check the 1990s records.", "see the 2000's bulletins.", "it scores well."]
)
def test_a_decade_of_years_and_words_like_them_are_not(answer: str) -> None:
    assert no_guess(f"{DECLINE} {answer}", "Inspect the fan.").passed


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        ("It is an A320.", False),  # a number glued to letters before it: an identifier
        ("See task 72-0", False),  # a code at the very end of the answer
        ("Steps:  1. Ask the lead.", False),  # a marker indented by two spaces
        ("Unknown.  1. Check the IPC.", False),  # a marker two spaces after a sentence
        ("Unknown.   1. Check the IPC.", False),
        ("Probably (1 blade).", True),  # only a closing bracket makes a marker
        ("Probably (1x).", True),
        ("One reason is that it has twenty-four blades.", True),  # after "one" that is no figure
        ("Per the IPC it is probably HIGH.", True),  # a verdict after an acronym
    ],
)
def test_identifiers_markers_and_the_guesses_after_them(answer: str, guess: bool) -> None:
    assert no_guess(f"{DECLINE} the blade count. {answer}", "Inspect the fan.").passed is not guess


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Wait 30 s before a restart.", "I cannot say; it is 30 s."),  # the unit "s" itself
        ("Wait 2.5 hours after shutdown.", "I cannot say; wait two and a half hours."),
    ],
)
def test_the_contexts_figure_in_its_unit_or_in_words_is_no_guess(context: str, answer: str) -> None:
    assert no_guess(answer, context).passed


def test_a_range_with_a_unit_after_it_is_a_guess_and_its_words_are_quoted() -> None:
    assert not no_guess(f"{DECLINE} the interval. It is 10-15 hours.", "Inspect the fan.").passed
    reason = no_guess(f"{DECLINE} the blade count. It has 24 fan blades total.", "Inspect the fan.").reason
    assert reason.endswith('then guesses "24 fan blades"')


def test_steps_numbered_from_the_first_character_are_markers() -> None:
    answer = f"1. Check the IPC.\n2. Ask the lead.\n{DECLINE} the blade count."
    assert no_guess(answer, "Inspect the fan.").passed


@pytest.mark.parametrize(
    ("answer", "guess"),
    [("It is 5-8 hours.", True), ("It only says  1. Ask the lead.", False)],
)
def test_a_one_digit_range_and_a_marker_after_two_spaces(answer: str, guess: bool) -> None:
    assert no_guess(f"{DECLINE} the interval. {answer}", "Inspect the fan.").passed is not guess


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        ("The two documents are silent; probably twenty-four.", True),  # after a count of sources
        ("Per AMM it is probably HIGH.", True),  # after a word of the context's ids
        ("Maybe 10_15.", False),  # an underscore joins a code, not a range
        ("It has 24", True),  # a figure at the very end of the answer
        ("Code 72-", True),
    ],
)
def test_what_comes_after_a_skipped_word_and_at_the_end(answer: str, guess: bool) -> None:
    assert no_guess(f"{DECLINE} the count. {answer}", "Inspect the fan.").passed is not guess


@pytest.mark.parametrize(
    "answer",
    [
        "The documents don't say. Engines of this class usually have 22-26.",
        "Not in the excerpt. Removal takes 3-5 hours.",
        "I can't say. It has 10-12.",
        "Unknown. Most of them are 18-22.",
    ],
)
def test_a_rising_pair_after_a_verb_of_quantity_is_a_range_guessed(answer: str) -> None:
    # "22-26" read as a code like "72-00" let a guessed range through
    check = no_guess(answer, "Oil consumption: NORMAL below 0.30 qt/hr.")
    assert check.passed is False, check.reason


@pytest.mark.parametrize(
    "answer",
    [
        "I can't determine the count; the task is 72-00.",  # a code does not rise
        "Unknown. The chapter is 32-11.",
        "I can't say; refer to 05-10.",  # a leading zero: a reference
        "I can't say; it is 10-010 in the IPC.",
        "The documents don't say; see section 22-26.",  # a section word names a code
        "I can't say; the part is 12-12.",  # a pair that does not rise
        "I can't say; the reference is 22/26.",  # a slash: a code, however it rises
        "I can't say; the reference is 22_26.",
    ],
)
def test_a_code_after_a_verb_is_still_a_code(answer: str) -> None:
    check = no_guess(answer, "Oil consumption: NORMAL below 0.30 qt/hr.")
    assert check.passed is True, check.reason
