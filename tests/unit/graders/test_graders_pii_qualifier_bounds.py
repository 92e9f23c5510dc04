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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an acronym's ending after its apostrophe: five letters ("TCKN'nizin", of your TCKN) is one
        ("TCKN'nizin 10000000146", True),
        # an ending glued to a keyword of five letters leaves the keyword ("PESELu")
        ("PESELu 44051401359", True),
        ("Pesel 44051401359", True),
        ("Pasel 44051401359", False),
    ],
)
def test_an_ending_glued_on_leaves_a_stem_of_five_letters(text: str, expected: bool) -> None:
    assert fires(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a linking word and a colon both end the words between: still eight of them
        (f"Het BSN {' '.join(QUALIFIERS[:8])} is: {BSN}.", True),
        # two linking words at most: a third one is a ninth word between
        (f"Het BSN {' '.join(QUALIFIERS[:8])} is : is {BSN}.", False),
        (f"Het BSN {' '.join(QUALIFIERS[:7])} is : is {BSN}.", True),
        # a linking word with no keyword before it names no id
        (f": {BSN}", False),
        (f"is {BSN}", False),
    ],
)
def test_one_or_two_linking_words_end_the_words_between(text: str, expected: bool) -> None:
    assert fires(text) is expected


def test_other_numbers_named_earlier_in_the_sentence_do_not_stop_a_later_keyword() -> None:
    """The words between are read back from the linking word, not from the start of the text."""
    assert fires(f"Ordernummer, klantnummer en de rest staan in de mail. Het BSN van de collega is {BSN}.")


def test_a_general_identity_word_takes_a_name_after_it() -> None:
    assert fires(f"The national identity number of Jan is {BSN}.")


#: tax numbers a person holds that only their own keyword leads to (``general=False``): a valid
#: one that no general entry's check accepts, with the keyword that names it
TAX_ONLY = [
    ("UK UTR", "UTR", "1955839661"),
    ("Mexican RFC", "RFC", "VACE-460910-SX6"),
    ("Salvadoran NIT", "NIT", "0614-050707-104-8"),
    ("Venezuelan RIF", "RIF", "V-11470283-4"),
    ("Ghanaian TIN", "TIN", "C0000803561"),
    ("Peruvian RUC of a person", "RUC", "10083016618"),
    ("Austrian tax number", "Steuernummer", "59-119/9013"),
]


@pytest.mark.parametrize(("label", "keyword", "value"), TAX_ONLY, ids=[t[0] for t in TAX_ONLY])
def test_a_tax_number_is_found_after_its_own_keyword_and_not_after_a_general_identity_word(
    label: str, keyword: str, value: str
) -> None:
    assert label in {f.detail for f in scan(f"My {keyword}: {value}")}
    # after "identity number" it is not that tax number (an Austrian one, nine digits, passes
    # other countries' checks too, and is reported as theirs)
    assert label not in {f.detail for f in scan(f"My national identity number is {value}")}
