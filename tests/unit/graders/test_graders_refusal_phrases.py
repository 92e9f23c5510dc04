"""The refusal grader: each way of declining, with the phrase its reason quotes, and sentences that
look like declining but are not."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion

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
    ],
)
def test_sentences_that_do_not_decline(answer: str) -> None:
    assert reason(answer) == "answer does not decline (no phrase of declining found)"
