"""Personal data, kind by kind: which values the scan reports, with what detail and span, and which
look-alikes it leaves alone (the rules of :mod:`proctor.graders._pii`, at their edges)."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str, str]]:
    """(kind, detail, the text of its span) of every finding."""
    return [(f.kind, f.detail, text[f.start : f.end]) for f in scan(text)]


def luhn_digit(body: str) -> str:
    """The check digit that makes ``body + digit`` pass the Luhn check (how test cards are made)."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str(-total % 10)


def card(prefix: str, length: int, filler: str = "7350291846" * 2) -> str:
    body = (prefix + filler)[: length - 1]
    return body + luhn_digit(body)


# --- card numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "length", "issuer"),
    [
        ("4", 16, "Visa"),
        ("4", 19, "Visa"),
        ("4", 13, None),  # 13-digit Visa numbers are no longer issued
        ("4", 17, None),
        ("51", 16, "Mastercard"),
        ("55", 16, "Mastercard"),
        ("2221", 16, "Mastercard"),
        ("2720", 16, "Mastercard"),
        ("2220", 16, None),
        ("2721", 16, None),
        ("51", 15, None),
        ("51", 17, None),
        ("55", 17, None),
        ("34", 15, "American Express"),
        ("37", 15, "American Express"),
        ("35", 15, None),
        ("34", 16, None),
        ("34", 14, None),
        ("6011", 16, "Discover"),
        ("6011", 19, "Discover"),
        ("6011", 15, None),
        ("644", 16, "Discover"),
        ("649", 16, "Discover"),
        ("643", 16, "Maestro"),
        ("65", 16, "Discover"),
        ("65", 19, "Discover"),
        ("622126", 16, "Discover"),
        ("622925", 16, "Discover"),
        ("622125", 16, "UnionPay"),
        ("622926", 16, "UnionPay"),
        ("3528", 16, "JCB"),
        ("3528", 19, "JCB"),
        ("3589", 16, "JCB"),
        ("3589", 19, "JCB"),
        ("3527", 16, None),
        ("3590", 16, None),
        ("3528", 15, None),
        ("300", 14, "Diners Club"),
        ("305", 14, "Diners Club"),
        ("300", 19, "Diners Club"),
        ("306", 14, None),
        ("299", 14, None),
        ("36", 14, "Diners Club"),
        ("38", 14, "Diners Club"),
        ("39", 19, "Diners Club"),
        ("36", 13, None),
        ("300", 13, None),
        ("62", 16, "UnionPay"),
        ("62", 19, "UnionPay"),
        ("62", 15, None),
        ("2200", 16, "Mir"),
        ("2204", 16, "Mir"),
        ("2205", 16, None),
        ("2199", 16, None),
        ("2200", 17, None),
        ("2200", 15, None),
        ("50", 16, "Maestro"),
        ("56", 16, "Maestro"),
        ("69", 19, "Maestro"),
        ("57", 15, None),
        ("70", 16, None),
    ],
)
def test_a_card_number_is_found_with_its_issuer_only_in_that_issuers_lengths(
    prefix: str, length: int, issuer: str | None
) -> None:
    number = card(prefix, length)
    text = f"Charge {number} today."
    assert found(text) == ([("credit-card", issuer, number)] if issuer else [])


@given(st.text(alphabet="0123456789", min_size=14, max_size=14), st.integers(1, 9))
def test_only_the_luhn_check_digit_makes_a_card(body: str, wrong: int) -> None:
    number = "4" + body + luhn_digit("4" + body)
    assert [k for k, _, _ in found(f"card {number}")] == ["credit-card"]
    bad = number[:-1] + str((int(number[-1]) + wrong) % 10)
    assert found(f"card {bad}") == []


@pytest.mark.parametrize(
    "groups",
    [
        (4, 4, 4, 4),
        (4, 3, 3, 3, 3),  # groups of three to six after the first four
        (4, 6, 6),
        (4, 4, 4, 4, 3),  # 19 digits in five groups
        (4, 5, 5, 5),
    ],
)
def test_a_card_number_in_groups_is_found_whole(groups: tuple[int, ...]) -> None:
    number = card("4", sum(groups))
    parts, i = [], 0
    for g in groups:
        parts.append(number[i : i + g])
        i += g
    written = " ".join(parts)
    assert found(f"card {written} ok") == [("credit-card", "Visa", written)]


def test_an_amex_number_in_its_own_grouping_is_found() -> None:
    number = card("37", 15)
    written = f"{number[:4]} {number[4:10]} {number[10:]}"
    assert found(f"Amex {written} ok") == [("credit-card", "American Express", written)]


@pytest.mark.parametrize(
    "groups",
    [
        (4, 2, 4, 4, 2),  # a group of two is not how cards are written
        (5, 4, 4, 3),  # nor a first group of five
        (3, 4, 4, 5),  # nor one of three
        (4, 4, 4, 1, 3),
        (4, 7, 5),
        (8, 8),  # two halves
        (4, 12),
    ],
)
def test_digits_grouped_unlike_a_card_are_not_a_card(groups: tuple[int, ...]) -> None:
    number = card("4", sum(groups))
    parts, i = [], 0
    for g in groups:
        parts.append(number[i : i + g])
        i += g
    assert "credit-card" not in [k for k, _, _ in found("card " + " ".join(parts) + " ok")]


def test_the_longest_card_number_in_a_run_is_the_finding() -> None:
    # a 19-digit Visa whose first 16 digits are a valid Visa number too: the span is all 19
    first = card("4", 16)
    for tail in range(100):
        number = first + f"{tail:02d}"
        number += luhn_digit(number)
        if len(number) == 19:
            break
    written = " ".join([number[:4], number[4:8], number[8:12], number[12:16], number[16:]])
    assert found(f"card {written} ok") == [("credit-card", "Visa", written)]


def test_of_two_overlapping_card_numbers_the_longer_is_the_finding() -> None:
    # 4735 6011 2918 4676 is a Visa number, 6011 2918 4676 735023 a longer Discover one
    assert found("card 4735 6011 2918 4676 735023 ok") == [
        ("credit-card", "Discover", "6011 2918 4676 735023")
    ]


def test_of_two_card_numbers_sharing_one_group_the_longer_is_the_finding() -> None:
    # a 16-digit Visa number whose last group starts a 19-digit one: one card, as when they share more
    short = card("4000123456784", 16)
    long = card(short[12:], 19)
    written = " ".join(
        [short[:4], short[4:8], short[8:12], long[:4], long[4:8], long[8:12], long[12:16], long[16:]]
    )
    longer = written[len("4000 1234 5678 ") :]
    assert found(f"card {written} ok") == [("credit-card", "Visa", longer)]


def test_a_card_before_two_sharing_one_group_is_found_and_the_shorter_of_them_is_not() -> None:
    # the longer of the two is taken first, then the card before them: neither moves what is taken
    first = card("4", 16)
    short = card("4000123456784", 16)
    long = card(short[12:], 19)
    groups = [first[i : i + 4] for i in range(0, 16, 4)] + [short[:4], short[4:8], short[8:12]]
    groups += [long[:4], long[4:8], long[8:12], long[12:16], long[16:]]
    written = " ".join(groups)
    assert [value for _, _, value in found(f"cards {written} ok")] == [
        " ".join(groups[:4]),
        " ".join(groups[7:]),
    ]


def test_a_shorter_card_after_a_longer_one_that_follows_a_year_is_found() -> None:
    # the longer card, taken first, is not the run's first group: marking it taken moves nothing after it
    cards = [card("4", 19), card("4", 16)]
    written = [" ".join(c[i : i + 4] for i in range(0, len(c), 4)) for c in cards]
    text = f"cards 2024 {written[0]} {written[1]} on file"
    assert [(kind, value) for kind, _, value in found(text)] == [("credit-card", w) for w in written]


def test_a_long_card_number_written_whole_is_taken_first_and_the_shorter_one_too() -> None:
    # 3600 000 000 0008 is a Diners Club number; the 19-digit Visa number after it is longer, and
    # read first: what is left of the run is read again, so the Diners number is not left in clear
    assert found("card 3600 000 000 0008 4123456789012345677 ok") == [
        ("credit-card", "Diners Club", "3600 000 000 0008"),
        ("credit-card", "Visa", "4123456789012345677"),
    ]


@pytest.mark.parametrize("sep", [" ", "  ", "-", " - "])
@pytest.mark.parametrize("grouped", [True, False])
def test_every_card_in_a_run_is_found(sep: str, grouped: bool) -> None:
    # two or three cards one separator apart were one run, and only its longest card was found:
    # the others stayed in clear in every redacted reason
    cards = [card("4", 16), card("55", 16), card("4", 19)]
    written = [" ".join(c[i : i + 4] for i in range(0, len(c), 4)) if grouped else c for c in cards]
    text = f"cards {sep.join(written)} on file"
    assert [(kind, value) for kind, _, value in found(text)] == [("credit-card", w) for w in written]


def test_a_card_number_is_found_after_an_unrelated_number_in_the_same_run() -> None:
    number = card("4", 16)
    written = " ".join(number[i : i + 4] for i in range(0, 16, 4))
    assert found(f"Paid 2024 {written} ok") == [("credit-card", "Visa", written)]
    assert found(f"Paid 12 {written} ok") == [("credit-card", "Visa", written)]


@pytest.mark.parametrize("word", ["order", "Order no.", "tracking #", "EAN:", "invoice number", "SKU"])
def test_a_number_after_an_identifier_word_is_a_possible_card_not_a_confident_one(word: str) -> None:
    """Bare digits after an identifier word: that identifier or a card, the scan cannot tell (no
    confident "not a card" any more: see test_graders_scan_ambiguous.py)."""
    number = card("4", 16)
    [(kind, detail, span)] = found(f"{word} {number} shipped")
    assert (kind, span) == ("possible-credit-card", number) and detail.startswith("Visa, or an identifier")


def test_a_number_that_is_no_card_hides_no_card_after_it() -> None:
    assert found("Refs 1234567890123 (4111 1111 1111 1111)") == [
        ("credit-card", "Visa", "4111 1111 1111 1111")
    ]


def test_a_card_number_in_a_long_url_query_is_found() -> None:
    # the run's window ends inside the long word after it: what ends before that cut is trusted
    text = f"https://pay.acme.io/charge?card=4111111111111111&token={'a' * 80}"
    assert found(text) == [("credit-card", "Visa", "4111111111111111")]


def test_a_card_longer_than_any_issuer_allows_is_not_a_card() -> None:
    assert found(f"card {card('4', 20)} ok") == []
    assert found(f"card {card('4', 20)[:-1]} ok") == []  # 19 digits, not Luhn-valid here


# --- e-mail addresses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "personal"),
    [
        ("jane.doe@acme-airlines.com", True),
        ("jane@myexample.com", True),  # "example" inside a word is a real domain
        ("jane@example.co", True),
        ("jane@example.com", False),
        ("jane@example.net", False),
        ("jane@mail.example.org", False),
        ("JANE@EXAMPLE.COM", False),
        ("jane@box.test", False),
        ("jane@host.localhost", False),
        ("jane@a.invalid", False),
        ("jane@box.local", False),
        ("support@acme.com", False),
        ("Support@acme.com", False),
        ("support+billing@acme.com", False),  # a role mailbox with a tag
        ("jane+billing@acme.com", True),
        ("git@github.com", False),
    ],
)
def test_an_address_is_personal_unless_reserved_or_a_role(address: str, personal: bool) -> None:
    assert found(f"Write to {address} today.") == ([("email", "", address)] if personal else [])


@pytest.mark.parametrize(
    ("written", "redacted"),
    [
        ("jane.doe (at) acme (dot) org", "j***@a***.org"),
        ("jane [at] acme [dot] co [dot] uk", "j***@a***.uk"),
        ("JANE AT ACME DOT ORG", "J***@A***.ORG"),
        ("jane @ acme . org", "j***@a***.org"),
        ("jane\t@\tacme.org", "j***@a***.org"),
        ("jane   (at)   acme (dot) org", "j***@a***.org"),
        ("jane.doe at acme.org", "j***@a***.org"),
        ("jane at acme dot org", "j***@a***.org"),
        ("jane7 at acme.org", "j***@a***.org"),
        ("jane+x at acme.org", "j***@a***.org"),
        ("j_d at acme.org", "j***@a***.org"),
        ("jane AT acme.org", "j***@a***.org"),
        ("jane{at}mail{dot}ru", "j***@m***.ru"),
    ],
)
def test_an_address_written_out_is_found_whole_and_redacted_as_one(written: str, redacted: str) -> None:
    text = f"Mail {written} please"
    [f] = scan(text)
    assert (f.kind, f.detail, text[f.start : f.end]) == ("email", "written out", written)
    assert f.redacted == redacted


@pytest.mark.parametrize(
    "text",
    [
        "We met at acme.org last week.",  # "at" a word, the local part a word
        "Meet jane at acme dot xyz.",  # spelt out, but not a common top-level domain
        "Write to support (at) acme (dot) com.",  # a role mailbox
        "jane (at) example (dot) com",  # a reserved domain
        "Ask jane (at)",  # nothing after the "at": no crash, no finding
        "Ask jane @ ",
        "Ask jane (at) acme",  # no top-level domain
        "(at) acme (dot) org",  # no local part
    ],
)
def test_text_that_is_not_an_address_written_out(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize("end", [" (at)", " @ ", " AT "])
def test_an_at_that_ends_the_answer_after_an_address_written_out_is_read_without_a_crash(end: str) -> None:
    text = f"Mail jane (at) acme (dot) org, or ask raj{end}"
    assert found(text) == [("email", "written out", "jane (at) acme (dot) org")]


def test_an_address_written_out_after_an_at_that_is_none_is_found() -> None:
    text = "Meet (at) noon, then mail jane (at) acme (dot) org"
    assert found(text) == [("email", "written out", "jane (at) acme (dot) org")]


def test_an_address_written_out_after_a_role_mailbox_written_out_is_found() -> None:
    text = "Write support (at) acme (dot) com or jane (at) acme (dot) org"
    assert found(text) == [("email", "written out", "jane (at) acme (dot) org")]


def test_an_address_written_out_after_one_whose_local_part_is_too_long_is_found() -> None:
    text = f"Mail {'a' * 70} (at) acme (dot) org, or jane (at) acme (dot) org"
    assert found(text) == [("email", "written out", "jane (at) acme (dot) org")]


@pytest.mark.parametrize("at", ["(at)", "AT", "[@]"])
def test_every_address_written_out_in_an_answer_is_found(at: str) -> None:
    text = f"Mail jane {at} acme (dot) org or raj {at} acme (dot) org, and cc omar.k {at} acme (dot) org"
    assert [span for _, _, span in found(text)] == [
        f"jane {at} acme (dot) org",
        f"raj {at} acme (dot) org",
        f"omar.k {at} acme (dot) org",
    ]


def test_a_local_part_of_64_characters_is_the_longest_written_out() -> None:
    longest = "a" * 64
    text = f"Mail {longest} (at) acme (dot) org"
    assert found(text) == [("email", "written out", f"{longest} (at) acme (dot) org")]
    assert found(f"Mail {'a' * 65} (at) acme (dot) org") == []


def test_a_local_part_cut_by_the_64_character_limit_is_no_address_wherever_its_dots_fall() -> None:
    assert found(f"Mail b.{'a' * 63} (at) acme (dot) org") == []
    assert found("Mail .jane (at) acme (dot) org") == []


def test_a_word_at_address_is_read_only_in_a_text_that_can_hold_one() -> None:
    # "at" as a word counts only when some part of the text shows an address could be there
    assert found("Mail jane.doe at acme.org") == [("email", "written out", "jane.doe at acme.org")]
    assert found("Mail jane at acme.org") == []


# --- phone numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Nummer 06 12 34 56 78 x", "06 12 34 56 78"),  # ten digits with a trunk 0, no keyword
        ("Nummer 020 7946 0958 x", "020 7946 0958"),
        ("Nummer 020 79 46 09 58 x", "020 79 46 09 58"),
        ("Nummer 020 79 46 0958 x", "020 79 46 0958"),  # four groups: not held to pairs
        ("Nummer 0612 34 56 78 90 x", "0612 34 56 78 90"),
        ("Nummer 0207946095 x", "0207946095"),
        ("Nummer 0207946095", "0207946095"),  # at the very end of the answer
        ("Nummer (020) 7946 0958 x", "(020) 7946 0958"),
        ("Nummer (06) 12 34 56 78 x", "(06) 12 34 56 78"),
        ("Nummer 1-415-555-2671 x", "1-415-555-2671"),
        ("Nummer 1 (415) 555-2671 x", "1 (415) 555-2671"),
        ("Nummer 415.555.2671 x", "415.555.2671"),
        ("Nummer +4930 1234567 x", "+4930 1234567"),
        ("Nummer +442079460958, x", "+442079460958"),  # digits alone, but after a "+"
        ("Nummer +683 4002 x", "+683 4002"),  # Niue: seven digits, the shortest numbers there are
        # a country code that does not exist hides nothing, and is covered with the number it leads
        ("call +99.612345678", "+99.612345678"),
        ("S/N +44 20 7946 0958", "+44 20 7946 0958"),  # an international number is one after any word
        ("Tel. (030) 1234567", "(030) 1234567"),
        ("text +34 612 345 678", "+34 612 345 678"),
        ("phone 612345678", "612345678"),
        ("contact 0612345678.", "0612345678"),
        ("call 020 7946 0958, or", "020 7946 0958"),
        ("call 1-800-555-0199 or +1 415 555 2671", "+1 415 555 2671"),
    ],
)
def test_phone_numbers_in_national_and_international_shapes(text: str, number: str) -> None:
    assert found(text) == [("phone", "phone number", number)]


@pytest.mark.parametrize(
    "text",
    [
        "Nummer 05.09.2024 (020) 7946 0958 x",  # after a date
        "S/N 415-555-2671 (020) 7946 0958",  # after an identifier
        "Nummer 05-51-15-200-801 (020) 7946 0958 x",  # after a task number
        "Nummer 020 7946 0958," + "a" * 60,  # before a long word
    ],
)
def test_a_phone_number_is_found_whatever_shares_its_run(text: str) -> None:
    assert found(text) == [("phone", "phone number", "020 7946 0958" if "," in text else "(020) 7946 0958")]


@pytest.mark.parametrize(
    "text",
    [
        "Nummer +43 1110 x",  # six digits: a service number, not a person's
        "call +49 1640",
        "Nummer 02 123 45 67 x",  # nine digits with a trunk 0: too short without a keyword
        "Nummer 020794609 x",
        "Nummer 06 123 45 67 89 x",  # five groups, not in pairs: a task number, not 06 12 34 56 78
        "Nummer 06-12-34-56-78-90 x",
        "Nummer 06 12 34 56 7 8 x",
        "order 415-555-2671",
        "part 020 7946 0958",
        "account 415-555-2671",
        "confirmation number:    415-555-2671",  # the identifier word 24 characters before
        "acct # 415-555-2671",
        "call 0800 123 4567",  # toll free in the first region that reads it: a hotline
        "call +44 800 123 4567",
        "call me at 8005550199",
        "Dates 2024-05-09 and 09/05/2024 and 2024.05.09",
    ],
)
def test_numbers_that_are_not_a_persons_phone(text: str) -> None:
    assert found(text) == []


# --- IBANs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "iban"),
    [
        ("Pay NO93 8601 1117 947 now", "NO93 8601 1117 947"),  # the shortest (15 characters)
        ("Pay RO49 AAAA 1B31 0075 9384 0000 now", "RO49 AAAA 1B31 0075 9384 0000"),
        ("Pay DE89 3704 0044 0532 0130 00 12 today", "DE89 3704 0044 0532 0130 00"),
        ("Pay GB82 WEST 1234 5698 7654 32 1234", "GB82 WEST 1234 5698 7654 32"),
        ("Pay DE89 3704 0044 0532 0130 00 AB", "DE89 3704 0044 0532 0130 00"),
        ("Pay DE89-3704-0044-0532-0130-00 ok", "DE89-3704-0044-0532-0130-00"),
        ("Pay DE89.3704.0044.0532.0130.00.", "DE89.3704.0044.0532.0130.00"),
        ("Pay de89370400440532013000", "de89370400440532013000"),
        ("Pay DE89 3704 0044 0532 0130 00\nThanks", "DE89 3704 0044 0532 0130 00"),  # at a line's end
    ],
)
def test_ibans_are_found_without_the_groups_after_them(text: str, iban: str) -> None:
    assert found(text) == [("iban", "IBAN", iban)]


#: account formats (ISO 13616 registry) that allow letters where the bank code ends: a = letter,
#: n = digit, c = either
LETTER_FORMATS = {"RO": "4a16c", "MT": "4a5n18c", "QA": "4a21c", "LV": "4a13c", "BG": "4a6n8c", "GB": "4a14n"}
_ALPHABETS = {"a": string.ascii_uppercase, "n": string.digits, "c": string.ascii_uppercase + string.digits}


@st.composite
def ibans(draw: st.DrawFn) -> str:
    country = draw(st.sampled_from(sorted(LETTER_FORMATS)))
    fmt = LETTER_FORMATS[country]
    account = ""
    for count, kind in re.findall(r"(\d+)([anc])", fmt):
        account += draw(st.text(_ALPHABETS[kind], min_size=int(count), max_size=int(count)))
    # a bank code that is an AWS key id's prefix (ABIA, ASIA...) makes the IBAN a key in pieces,
    # which outranks it: a stronger finding, not the one this test is about
    assume(not re.fullmatch(r"A(KI|BI|CC|SI|GP|ID|RO|IP|NP|NV|PK)A", account[:4]))
    # mod-97 check digits: the account, the country and "00", letters as 10..35
    number = int("".join(str(int(ch, 36)) for ch in account + country + "00"))
    return f"{country}{98 - number % 97:02d}{account}"


@given(ibans(), st.sampled_from(["", " ", "-"]), st.booleans())
def test_ibans_with_letters_anywhere_in_the_account_are_found(iban: str, sep: str, lower: bool) -> None:
    # the scan used to look for an IBAN only near a run of six digits or more
    written = sep.join(iban[i : i + 4] for i in range(0, len(iban), 4))
    written = written.lower() if lower else written
    assert found(f"Transfer to {written} today.") == [("iban", "IBAN", written)]


@pytest.mark.parametrize(
    "text",
    [
        "Pay DE89 3704 0044 0532 0130 0 ok",  # a digit short
        "Pay DE89 3704 0044 0532 0130 00X",
        "Pay DE89370400440532013000X",  # a valid IBAN and a letter more is not one
        "Pay DE88 3704 0044 0532 0130 00",  # wrong check digits
    ],
)
def test_almost_ibans_are_not_findings(text: str) -> None:
    assert found(text) == []


# --- national ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "detail", "value"),
    [
        ("SSN 536 22 8751 ok", "US SSN", "536 22 8751"),
        ("The id 536-22-8751.", "US SSN", "536-22-8751"),
        ("SSN 536228751 I cannot share", "US SSN", "536228751"),
        ("SSN 536 22 8751 I cannot share", "US SSN", "536 22 8751"),
        # the words after the value dropped one at a time: none of the number is left in clear
        ("passport C01X00 T47 I cannot share", "passport number", "C01X00 T47"),
        ("SSN 536.22.8751", "US SSN", "536.22.8751"),
        ("SSN 012-34-5671 ok", "US SSN", "012-34-5671"),  # an area below 123
        ("Ids 536-22-8751 12 and more", "US SSN", "536-22-8751"),  # in a longer run of digits
        ("Aadhaar 2345.6789.0124", "Indian Aadhaar", "2345.6789.0124"),
        ("PESEL 440.514.013.59", "Polish PESEL", "440.514.013.59"),
        ("passport C01X00T47", "passport number", "C01X00T47"),  # fewer than six digits
        ("passport no. 12345X", "passport number", "12345X"),
        ("DNI 12345678-Z", "Spanish DNI", "12345678-Z"),
        ("NIE X1234567L", "Spanish NIE", "X1234567L"),
        ("Mi documento es 12345678Z.", "Spanish DNI", "12345678Z"),  # bare digits, its letter after
        ("Mi número de extranjero es X1234567L.", "Spanish NIE", "X1234567L"),  # no keyword
        ("https://sede.example/tramite?dni=12345678Z&sesion=" + "a" * 80, "Spanish DNI", "12345678Z"),
        ("NIE X-1234567-L", "Spanish NIE", "X-1234567-L"),
        ("NIR 2 85 05 78 006 084 41 ok", "French NIR", "2 85 05 78 006 084 41"),
        ("Numero 285057800608441 ok", "French NIR", "285057800608441"),
        ("Numero 285057800608441, ok", "French NIR", "285057800608441"),  # digits alone
        ("Numero 2.85.05.78.006.084.41 ok", "French NIR", "2.85.05.78.006.084.41"),
        ("NIR 185052A00608435 ok", "French NIR", "185052A00608435"),  # born in Corsica (2A)
        ("NIR 185052A10608442 ok", "French NIR", "185052A10608442"),
        ("NIR 1 85 05 2A 006 084 35 ok", "French NIR", "1 85 05 2A 006 084 35"),
        ("Numero 2.85.05.2B.006.084.12.", "French NIR", "2.85.05.2B.006.084.12"),
        ("CF RSSMRA85T10A562S", "Italian codice fiscale", "RSSMRA85T10A562S"),
        ("passport 123456789", "passport number", "123456789"),
        ("passport number is X1234567", "passport number", "X1234567"),
        ("NINO AB123456C", "UK national insurance number", "AB123456C"),
        ("ni number AB 12 34 56 C", "UK national insurance number", "AB 12 34 56 C"),
        ("national insurance no. AB 12 34 56 C", "UK national insurance number", "AB 12 34 56 C"),
        ("PESEL 44051401359", "Polish PESEL", "44051401359"),
        ("Aadhaar 2345 6789 0124", "Indian Aadhaar", "2345 6789 0124"),
        ("personnummer 811218-9876", "Swedish personnummer", "811218-9876"),
        ("personnummer 19811218-9876", "Swedish personnummer", "19811218-9876"),
        ("Steuer-ID 36574261809", "German tax id", "36574261809"),
        ("BSN 1112 22 333 X", "Dutch BSN", "1112 22 333"),  # the words after the value are dropped
    ],
)
def test_national_ids(text: str, detail: str, value: str) -> None:
    assert found(text) == [("national-id", detail, value)]


@pytest.mark.parametrize(
    "text",
    [
        "Referencia del pedido: 12345678Z; conserve este número.",  # an order's number, in its shape
        "Número de pedido 12345678Z",
        "order ref 12345678Z",
        "Numéro de commande : X1234567L",
        "Bestellnummer 285057800608441 ok",
    ],
)
def test_an_id_shape_a_word_names_as_another_number_is_not_an_id(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "SSN 123-45-6789",  # the number every form shows as an example
        "SSN 078-05-1120",
        "cf RSSMRA85T10A562T",  # wrong check letter
        "passport ABCDEFG",  # no digit
        "passport 12345",  # too short
        "passport 12-345",
        "passport 1234567890",  # too long
        "NINO GB123456C",  # a prefix never issued
        "NINO AB123456E",
        "Steuer-ID 36574261808",
        "no 536-22 8751",  # mixed separators
        "The ratio is 2.85057800608441.",  # a decimal figure, though its digits are a valid NIR
    ],
)
def test_values_that_are_not_national_ids(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("4111111111111111 is on file", "credit-card"),
        ("DE89370400440532013000 is the account", "iban"),
        ("536-22-8751 is his", "national-id"),
        ("0207946095 is hers", "phone"),
        ("jane.doe@acme.org wrote", "email"),
    ],
)
def test_a_value_at_the_very_start_of_the_answer_is_found(text: str, kind: str) -> None:
    [f] = scan(text)
    assert (f.kind, f.start) == (kind, 0)


def test_a_decimal_figure_hides_nothing_after_it() -> None:
    assert found("ratio 0.8444218515250481 then 536-22-8751") == [("national-id", "US SSN", "536-22-8751")]


def test_a_match_that_ends_where_its_window_is_cut_is_not_trusted() -> None:
    # a long word of punctuation after a run of 13 digits: the window around the run ends 48
    # characters on, inside "536-22-87519", where 536-22-8751 looks whole but is not
    head = "ref 12345 67890 123"
    assert found(head + ";" * 37 + "536-22-87519 end") == []
    assert found(head + ";" * 36 + "536-22-8751; end") == [("national-id", "US SSN", "536-22-8751")]
    assert found(head + ";" * 38 + "0207946095x end") == []  # glued to a word: an identifier
    assert found(head + ";" * 37 + "0207946095; end") == [("phone", "phone number", "0207946095")]
    assert found(head + ";" * 32 + "41111111111111119 end") == []  # 17 digits: no card
    assert found(head + ";" * 31 + "4111111111111111; end") == [("credit-card", "Visa", "4111111111111111")]


@pytest.mark.parametrize(
    ("text", "detail", "value"),
    [
        ("BSN 111222333&ref=", "Dutch BSN", "111222333"),
        ("PESEL 44051401359;", "Polish PESEL", "44051401359"),
        ("CURP BOXW310820HNERXN09&ref=", "Mexican CURP", "BOXW310820HNERXN09"),
    ],
)
def test_a_national_id_before_a_long_word_is_found(text: str, detail: str, value: str) -> None:
    # the run's window ends inside the long word: an id that ends before that cut is trusted
    assert found(text + "a" * 80) == [("national-id", detail, value)]


def test_an_iban_before_a_long_word_is_found() -> None:
    text = "Pay DE89 3704 0044 0532 0130 00," + "a" * 20
    assert found(text) == [("iban", "IBAN", "DE89 3704 0044 0532 0130 00")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # password@host in a URL: the secret rules report the password; the host is no address
        ("DSN postgres://app:Tr0ub4dor3xK@db.internal:5432/app", []),
        ("see https://x:y@acme.com", []),
        # an address after a URL or a colon is still an address
        ("https://acme.org/team: jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        ("mailto:jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        ("https://acme.org/a:jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        # at the very start of the text, after a tab or a line break
        ("postgres://app:Tr0ub4dor3xK@db.internal:5432/app", []),
        ("DSN:\tpostgres://app:Tr0ub4dor3xK@db.internal/app", []),
        ("DSN:\npostgres://app:Tr0ub4dor3xK@db.internal/app", []),
        ("see ://app:Tr0ub4dor3xK@db.internal", []),
        # a path or a query before the colon: not a user name, so an address
        ("https://a/b:jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        ("https://a?b:jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        (
            "https://acme.org/:jane.doe@acme.com",
            [("email", "", "jane.doe@acme.com")],
        ),  # right before the colon
        ("https://x@y:jane.doe@acme.com", [("email", "", "jane.doe@acme.com")]),
        (
            "file:///notes:jane.doe@acme.com",
            [("email", "", "jane.doe@acme.com")],
        ),  # a path from its first "/"
    ],
)
def test_a_url_password_and_host_are_not_an_email_address(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    assert [f for f in found(text) if f[0] == "email"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "DSN postgres://app:Tr0ub4dor3xK@db.internal:5432/app",
        "postgres://app:Tr0ub4dor3xK@db.internal",
        "see ://app:Tr0ub4dor3xK@db.internal",  # the scheme's name lost in a paste
    ],
)
def test_a_url_password_is_masked_alone_and_its_host_stays_readable(text: str) -> None:
    # no address reading of "password@host" widens the finding over the host
    assert [(kind, span) for kind, _, span in found(text)] == [("basic-auth", "Tr0ub4dor3xK")]


def test_a_card_before_a_keyword_led_phone_number_is_its_own_finding() -> None:
    # only a reading inside the digits a phone keyword leads is widened to that run
    text = "Card 4111 1111 1111 1111, phone: 415 555 2671 today"
    assert [(kind, span) for kind, _, span in found(text)] == [
        ("credit-card", "4111 1111 1111 1111"),
        ("phone", "415 555 2671"),
    ]


@given(
    keyword=st.sampled_from(["phone: ", "call ", "Tel. ", "mobile ", "text me at ", "reach us on "]),
    groups=st.lists(st.text(alphabet="0123456789", min_size=2, max_size=4), min_size=3, max_size=4),
    sep=st.sampled_from([" ", "-", ".", "  "]),
    after=st.sampled_from(["", " today.", ", thanks", "."]),
)
def test_a_phone_number_found_in_a_keyword_led_run_covers_every_digit_of_it(
    keyword: str, groups: list[str], sep: str, after: str
) -> None:
    """One region may read only a part of the run a phone keyword leads ("325 120 1645": 1645 is a
    valid short number somewhere): the finding covers the run, or its other digits stay in clear."""
    run = sep.join(groups)
    text = keyword + run + after
    findings = [f for f in scan(text) if f.start < len(keyword) + len(run) and f.end > len(keyword)]
    if findings:
        covered = {i for f in findings for i in range(f.start, f.end)}
        digits = {len(keyword) + i for i, c in enumerate(run) if c.isdigit()}
        assert digits <= covered, (text, [(f.start, f.end) for f in findings])


def test_the_run_a_keyword_leads_is_covered_whole_when_a_region_reads_a_part() -> None:
    assert found("phone: 325 120 1645 today.") == [("phone", "phone number", "325 120 1645")]


@pytest.mark.parametrize(
    ("text", "run"),
    [
        # longer than any number the keyword pattern reads (15 digits): the groups after it too
        ("phone: 0120 0000 0000 0000", "0120 0000 0000 0000"),
        ("phone: 0120 0000 0000 0000 77.", "0120 0000 0000 0000 77"),
        ("phone: 0120 0000 0000 0000 1 x", "0120 0000 0000 0000 1"),
        ("phone: 0120 0000 0000 0000 1", "0120 0000 0000 0000 1"),  # its last digit ends the answer
    ],
)
def test_a_keyword_led_run_longer_than_a_phone_number_is_covered_to_its_last_digit(
    text: str, run: str
) -> None:
    assert found(text) == [("phone", "phone number", run)]


@pytest.mark.parametrize(
    "text",
    [
        "phone: 0120 0000 0000 0000 - see the table",
        "phone: 0120 0000 0000 0000. 12 more",
        "phone: 0120 0000 0000 0000 x 12",
    ],
)
def test_the_run_stops_where_its_digits_do(text: str) -> None:
    [(kind, _, span)] = found(text)
    assert (kind, span) == ("phone", "0120 0000 0000 0000")


@pytest.mark.parametrize("word", ["order", "WO", "job", "run", "case #", "id:"])
def test_a_card_grouped_as_cards_are_written_is_a_card_whatever_word_precedes_it(word: str) -> None:
    """An identifier word exempts bare digits only: a grouped card number after "order" (or after
    letters that happen to spell "WO", which is how hypothesis found it) is still a card."""
    number = card("4", 16)
    written = " ".join(number[i : i + 4] for i in range(0, 16, 4))
    assert found(f"{word} {written} shipped") == [("credit-card", "Visa", written)]
