"""How many words may say whose id it is between a keyword and its value (issue 25, the scan).

The words between a national id's keyword and its linking word ("Het BSN van de nieuwe collega
is ...") are read up to a bound: eight after the id's own keyword, three after a general identity
word ("national id"), none with a figure among them, none across a line. Each bound is pinned
from both sides, so a change to it is a change a user sees.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan

BSN = "111222333"  # a valid BSN
QUALIFIERS = ["nieuwe", "collega", "uit", "Utrecht", "bij", "afdeling", "inkoop", "zelf", "ook"]


def fires(text: str) -> bool:
    return any(f.kind != "possible-credit-card" for f in scan(text))


@pytest.mark.parametrize(("words", "expected"), [(1, True), (5, True), (8, True), (9, False)])
def test_up_to_eight_words_say_whose_id_it_is(words: int, expected: bool) -> None:
    assert fires(f"Het BSN {' '.join(QUALIFIERS[:words])} is {BSN}.") is expected


@pytest.mark.parametrize(("words", "expected"), [(1, True), (3, True), (4, False)])
def test_up_to_three_after_a_general_identity_word(words: int, expected: bool) -> None:
    qualifier = " ".join(["of", "the", "new", "hire"][:words])
    assert fires(f"The national id {qualifier} is {BSN}.") is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Het BSN van de collega is: {BSN}.", True),
        (f"Het BSN, van de collega, is {BSN}.", True),
        # a figure among the words, or a line between them, joins another thing
        (f"Het BSN van 3 collega's is {BSN}.", False),
        (f"Het BSN van de collega\nis {BSN}.", False),
    ],
)
def test_the_words_between_hold_no_figure_and_no_line_break(text: str, expected: bool) -> None:
    assert fires(text) is expected


@pytest.mark.parametrize(
    ("keyword", "expected"), [("CNP-ul", True), ("CNP-ului", True), ("CNP-ulxyzw", False)]
)
def test_an_ending_after_a_hyphen_is_short(keyword: str, expected: bool) -> None:
    assert fires(f"{keyword} 1800101221144") is expected
