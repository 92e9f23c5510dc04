"""A trunk-``0`` phone reading does not begin inside a longer number written in groups.

A card number failing its Luhn check (``4916 0555 5769 7260``) or an IBAN failing mod-97
(``HR40 6269 0173 0137 0194 4``, ``DE30 1774 9424 0745 1772 74``) stays quiet, as the README
promises: the ``0555 5769 7260`` or ``0745 1772 74`` inside is a group of that number, not a phone
number, because the group right before it (joined by one space or hyphen) holds a digit, or is an
IBAN's bank code of four capitals after one. The twins: a phone after a word, after a mark (a comma,
``/``, a date's or a time's closing stop), two phones in a list, and the valid card and IBAN
(reported as what they are)."""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._pii import _inside_grouped_number


def _found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize(
    "text",
    [
        "IBAN HR40 6269 0173 0137 0194 4 nije ispravan (kontrolni broj ne odgovara)",
        "The number you typed, 4916 0555 5769 7260, fails the card check",
        "DE30 1774 9424 0745 1772 74",
        "Die IBAN DE30 1774 9424 0745 1772 74 ist ungültig.",
        "de30 1774 9424 0745 1772 74",
        "DE30-1774-9424-0745-1772-74",
        "NL91 ABNA 0417 1643 01 (checksum fails)",
        "MT84 MALT 0110 0001 2345 MTLC AST0 02S",
        "Card 5500 0055 5555 0559 was declined: it fails the check.",
        "Reference 1234 0612 345 678 is not a phone.",
        "Part 12-0612 345 678",
    ],
)
def test_a_group_of_a_longer_number_is_no_phone(text: str) -> None:
    assert _found(text) == [], text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call 0612 345 678", [("phone", "0612 345 678")]),
        ("Tel. 040 7887 93", [("phone", "040 7887 93")]),
        ("CALL 020 7946 0958", [("phone", "020 7946 0958")]),
        ("Please ring 020 7946 0958 tomorrow.", [("phone", "020 7946 0958")]),
        ("Mobil: 0612 345 678", [("phone", "0612 345 678")]),
        (
            "Numbers: 020 7946 0958, 020 7946 0959",
            [("phone", "020 7946 0958"), ("phone", "020 7946 0959")],
        ),
        ("020 7946 0958 / 020 7946 0959", [("phone", "020 7946 0958"), ("phone", "020 7946 0959")]),
        ("On 12.05.2024, 020 7946 0958 called.", [("phone", "020 7946 0958")]),
        ("At 14:30: 020 7946 0958", [("phone", "020 7946 0958")]),
        ("Am 3.5. 030 1234567 angerufen", [("phone", "030 1234567")]),
        ("(3) 020 7946 0958", [("phone", "020 7946 0958")]),
    ],
)
def test_a_phone_after_a_word_or_a_mark_is_a_phone(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected, text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The number you typed, 4916 0555 5769 7264, passes", [("credit-card", "4916 0555 5769 7264")]),
        ("IBAN HR46 6269 0173 0137 0194 4 je ispravan", [("iban", "HR46 6269 0173 0137 0194 4")]),
        ("DE37 1774 9424 0745 1772 74", [("iban", "DE37 1774 9424 0745 1772 74")]),
        ("NL91 ABNA 0417 1643 00", [("iban", "NL91 ABNA 0417 1643 00")]),
    ],
)
def test_a_valid_card_or_iban_is_reported_as_itself(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected, text


@pytest.mark.parametrize(
    "text",
    [
        # a code of other than four characters before a word of four capitals: no IBAN's groups
        "Flight KL1602 LATE 020 7946 0958",
        "Postfach 12345 BONN 030 1234567",
        # a word of capitals other than four letters after a group of four digits: no bank code
        "PO Box 1234 UK 020 7946 0958",
        "PO Box 1234 LONDON 020 7946 0958",
    ],
)
def test_a_phone_after_capitals_that_are_no_ibans_bank_code_is_a_phone(text: str) -> None:
    assert [kind for kind, _ in _found(text)] == ["phone"], text


def test_a_group_at_the_very_start_of_the_text_is_read_as_elsewhere() -> None:
    # the group before is one digit, at the text's start: the same number's, as after a word
    assert _found("9 020 7946 0958") == []
    assert _found("Part 9 020 7946 0958") == []


def test_a_phone_right_after_another_and_a_semicolon_is_a_phone() -> None:
    # a semicolon ends the number before, as a comma or a slash does
    assert _found("020 7946 0958;020 7946 0959") == [("phone", "020 7946 0958"), ("phone", "020 7946 0959")]


@pytest.mark.parametrize(
    "text",
    [
        "Card 4916 0555 5769 7260 / 020 7946 0958",
        "IBAN HR40 6269 0173 0137 0194 4 (020 7946 0958)",
        "Account HR40 6269 0173 0137 0194 4 - 020 7946 0958",
    ],
)
def test_a_phone_after_a_longer_number_in_the_same_run_is_a_phone(text: str) -> None:
    # the groups of the failing card or IBAN stay quiet; the phone after them is still read
    assert _found(text) == [("phone", "020 7946 0958")], text


@pytest.mark.parametrize(
    ("text", "inside"),
    [
        ("6269 0173", True),
        ("x-1 0173", True),
        ("NL91 ABNA 0417", True),
        ("NL91 ABNA WXYZ 0417", True),
        ("call 0612", False),
        ("CALL 0612", False),
        ("Tel 0612", False),
        ("2024, 0612", False),
        ("12  0612", False),  # two blanks: a new number
        ("Room 101 CALL 0612", False),  # a group of capitals after a number of three digits
        ("abna 0417", False),
    ],
)
def test_the_walk_back_over_groups(text: str, inside: bool) -> None:
    assert _inside_grouped_number(text, text.rindex(" ") + 1) is inside, text


def test_the_walk_back_is_bounded() -> None:
    # a long run of capital groups is walked over for a few groups only, never to its start
    text = "AB12 " + "ABCD " * 50 + "0612 345 678"
    assert _inside_grouped_number(text, text.index("0612")) is False
