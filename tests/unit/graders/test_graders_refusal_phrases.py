"""The refusal grader: each way of declining, with the phrase its reason quotes, and sentences that
look like declining but are not."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion
from proctor.graders._language import find_refusal

REFUSAL = compile_assertion(Assertion(type="refusal"))


def reason(answer: str) -> str:
    return REFUSAL.check(answer).reason.removeprefix("refusal: ")


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        ("I can't really help with that.", "I can't really help"),
        ("I would rather not guess.", "I would rather not guess"),
        ("I'd rather not say.", "I'd rather not say"),
        ("I am unable to provide a count.", "I am unable to provide"),
        ("I do not have access to the IPC.", "I do not have access"),
        ("Not enough data to go on.", "Not enough data"),
        ("There's no information on blade counts.", "There's no information"),
        ("No mention of blades anywhere.", "No mention of"),
        ("The count cannot be established.", "cannot be established"),
        ("Unable to verify.", "Unable to verify"),
        ("The provided excerpt is silent on blades.", "The provided excerpt is silent on"),
        ("Your notes say nothing about blades.", "Your notes say nothing"),  # plural sources
        ("The manuals make no mention of blades.", "The manuals make no mention"),
        ("The documents give no figure.", "The documents give no figure"),
        ("The count is not specified in the manual.", "is not specified in the manual"),
        ("It is undocumented.", "undocumented"),
        ("It's not in the provided documents.", "not in the provided documents"),
        ("Nothing in the excerpt mentions blades.", "Nothing in the excerpt mentions"),
        ("None of the documents covers it.", "None of the documents covers"),
        ("I am uncertain.", "I am uncertain"),
        ("That is beyond my expertise.", "beyond my expertise"),
        ("It is difficult to estimate.", "difficult to estimate"),
        ("There is no way of knowing.", "no way of knowing"),
        ("I couldn't tell.", "I couldn't tell"),
        ("I'd just be speculating.", "I'd just be speculating"),
        ("Anything more would be a guess.", "Anything more would be a guess"),
        ("I refuse to speculate.", "refuse to speculate"),
        ("I must respectfully decline.", "I must respectfully decline"),
        ("The count is unknown.", "is unknown"),
        ("Blade count: unknown from the data.", "unknown from"),
        ("The excerpt is silent. Ask engineering.", "The excerpt is silent"),
        ("Cannot determine from the excerpt.", "Cannot determine"),
        ("Blade count? Can't establish it.", "Can't establish"),
        ("No data.", "No data."),
        ("No details in the context.", "No details in"),
        ("Not in what you gave me.", "Not in what you gave me"),
        ("It's not anywhere in these pages.", "not anywhere in these pages"),
        ("That's beyond the documents I have.", "beyond the documents I have"),
        ("It is beyond what I have.", "beyond what I have"),
        ("I have nothing on that.", "I have nothing on"),
        ("No idea from these pages.", "No idea"),
        ("I've got no idea.", "I've got no idea"),
        ("That isn't something these documents answer.", "isn't something these documents answer"),
        ("These sources leave that open.", "These sources leave that open"),
        ("The notes don't settle it.", "The notes don't settle"),
        ("Interval: not given (ask MCC).", "not given ("),
        # the first phrase of declining is the one quoted
        ("The oil is fine. The manual is silent on blades. I can't tell.", "The manual is silent on"),
        ("I can't tell. The manual is silent on blades.", "I can't tell"),
    ],
)
def test_ways_of_declining_and_the_phrase_quoted(answer: str, phrase: str) -> None:
    assert reason(answer) == f'answer declines ("{phrase}")'


@pytest.mark.parametrize(
    "answer",
    [
        "I didn't expect this reading; it is ELEVATED.",
        "The engine is not covered by warranty.",
        "The pump has no leaks and nothing is loose.",
        "It's hard work, but the reading is ELEVATED.",
        "The oil use is beyond the manual limit of 0.5 qt/hr.",
        "ELEVATED: 0.45 qt/hr is beyond the AMM limit trend.",
        "No data loss occurs during the download.",
        "No details were missed: the seal is worn.",
        "The engine is silent at idle; no leaks.",
        "The part is not in stock; order P/N 123.",
        "Cannot exceed 0.5 qt/hr per AMM 72-00.",
        "I have nothing further to add: CRITICAL.",
        "No idea is too small: check the seal.",
        "The log leaves the hatch open overnight.",
        "The procedure doesn't answer to QA but to engineering.",
        "Oil use is outside the limits in the AMM.",
    ],
)
def test_sentences_that_do_not_decline(answer: str) -> None:
    assert reason(answer) == "answer does not decline (no phrase of declining found)"


NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
#: (subject, its "be", "leave", "do not")
SOURCES = [
    ("The excerpt", "is", "leaves", "doesn't"),
    ("These notes", "are", "leave", "don't"),
    ("The AMM", "is", "leaves", "doesn't"),
    ("Your documents", "are", "leave", "don't"),
    ("The provided context", "is", "leaves", "does not"),
]
FORMS = [
    "{s} {be} silent.",
    "{s} {leave} that open.",
    "{s} {do} settle it.",
    "{s} {do} answer that.",
    "That's beyond {sl}.",
    "Not in {sl}.",
    "That isn't something {sl} answer.",
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("subject", "be", "leave", "do"), SOURCES)
def test_each_source_in_each_way_of_declining_is_a_refusal_and_a_figure_after_it_a_guess(
    form: str, subject: str, be: str, leave: str, do: str
) -> None:
    decline = form.format(s=subject, sl=subject[0].lower() + subject[1:], be=be, leave=leave, do=do)
    assert REFUSAL.check(decline).passed, decline
    assert NO_GUESS.check(decline).passed
    assert not NO_GUESS.check(f"{decline} Probably 1,200 hours.").passed, decline


@pytest.mark.parametrize(
    "answer",
    [
        "There's nothing about blade counts here.",
        "Blade count: no information provided.",
        "I lack the information to answer.",
        "That detail isn't available to me.",
        "I have no way to verify that.",
        "Not something I can determine from these notes.",
        "This falls outside what the AMM excerpt covers.",
        "The excerpt provided has no blade count.",
        "No blade count is given in the sources.",
        "The information needed is missing.",
        "The sources don't go that far.",
        "I'd need the IPC to answer that.",
        "Not determinable from the excerpt.",
        "Undetermined.",
        "No answer possible from the context.",
    ],
)
def test_more_ways_of_declining(answer: str) -> None:
    assert REFUSAL.check(answer).passed, answer
    assert not NO_GUESS.check(f"{answer} Probably 24.").passed, answer


@pytest.mark.parametrize(
    "answer",
    [
        "There's nothing wrong with the seal.",
        "There is nothing in the log that suggests a leak; NORMAL.",
        "The seal has no leaks.",
        "No leak is given as the cause in this case.",
        "The data is missing a sample at 10:00, but the trend is ELEVATED.",
        "I'd need to torque it to 25 Nm.",
        "It isn't available in blue.",
    ],
)
def test_sentences_like_them_that_do_not_decline(answer: str) -> None:
    assert not REFUSAL.check(answer).passed, answer


@pytest.mark.parametrize(
    ("answer", "declines"),
    [
        ("Unknown.", True),
        ("Unknown. Check the IPC.", True),
        ("unclear - ask the lead.", True),
        ("The data says nothing. Unknown; ask the lead.", True),
        ("Not known.", True),
        ("Unknown fault codes must be logged.", False),  # a word of the sentence, not the answer
        ("Unknown cause; replace the seal.", False),
        ("It is an unknown part number.", False),
    ],
)
def test_unknown_alone_as_a_sentence_declines(answer: str, declines: bool) -> None:
    assert (find_refusal(answer) is not None) is declines
