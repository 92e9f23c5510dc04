"""What a failing check's reason quotes of the answer: the answer as written, its words (not
its padding), an ellipsis where it was cut, and never a secret in clear, in both dialects."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion

DIALECTS = ["proctor", "promptfoo"]


def quoted(answer: str, dialect: str) -> str:
    """What a failing ``equals`` says the answer is."""
    c = compile_assertion(Assertion(type="equals", value="APPROVED", dialect=dialect)).check(answer)
    assert c.passed is False
    head = 'equals: expected "APPROVED", answer is '
    assert c.reason.startswith(head)
    return c.reason.removeprefix(head)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "answer",
    [
        "Den\u200bied by the board, refused it",  # an invisible character the canonical text drops
        "the \ufb01nal answer is no",  # a ligature the canonical text spells as two letters
    ],
)
def test_a_quote_holds_the_whole_answer_as_written_when_canonicalising_changes_its_length(
    answer: str, dialect: str
) -> None:
    assert quoted(answer, dialect) == f'"{answer}"'


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_quote_of_a_padded_answer_shows_its_words_up_to_the_limit(dialect: str) -> None:
    # a table cell padded with spaces: the quote spends its length on the words after the padding
    words = "DENIED by the board of review, see the attached minutes for the reasoning."
    assert quoted("Status:" + " " * 60 + words, dialect) == f'"Status: {words[:71]}\u2026"'


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_answer_after_many_blank_lines_is_quoted_by_its_words_never_as_empty(dialect: str) -> None:
    assert quoted("\n" * 200 + "DENIED by the board", dialect) == '"DENIED by the board"'


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_quote_cut_inside_a_long_run_of_spaces_still_says_the_answer_goes_on(dialect: str) -> None:
    assert quoted("Status:" + " " * 170 + "DENIED", dialect) == '"Status: \u2026"'
    assert quoted("Status:" + " " * 70 + "DENIED", dialect) == '"Status: DENIED"'


SECRETS = {
    "AKIAIOSFODNN7EXAMPLX": ["AKIAIOSF", "ODNN7EX", "EXAMPLX"],
    "postgres://admin:Zq8vTr2mWx9pLk4n@db.internal:5432/app": ["Zq8v", "Tr2m", "Wx9p", "Lk4n"],
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("secret", list(SECRETS))
@pytest.mark.parametrize("padding", range(120, 170, 3))
def test_a_secret_across_the_edge_of_what_a_quote_reads_is_never_shown_in_clear(
    secret: str, padding: int, dialect: str
) -> None:
    # the quote reads a bounded span of the answer; a secret that span cuts in two is still
    # the whole secret to the scan, and no piece of it reaches the reason
    shown = quoted("Status:" + " " * padding + secret + " is what I used", dialect)
    for piece in SECRETS[secret]:
        assert piece not in shown
