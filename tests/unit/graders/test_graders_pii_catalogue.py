"""The catalogue of national identity numbers (:mod:`proctor.graders._national_ids`): every entry is
a number python-stdnum checks by a check digit, found after each of its keywords and after the
general identity words of every supported language; the same figures with nothing that says they
are an id (an order, a phone call, a date) are left alone.

The valid examples are stdnum's own (its modules' doctests), so the catalogue is tested on numbers
its validators' authors wrote, not on numbers made up to pass them."""

from __future__ import annotations

import doctest
import re
from functools import cache

import pytest

from proctor.graders import scan
from proctor.graders._national_ids import CATALOGUE, GENERAL_KEYWORDS, IdNumber, entries_for, keyword_before

IDS = [e.module for e in CATALOGUE]


#: valid numbers of an entry whose module's doctests give none of its kind (stdnum's doctest of
#: the Peruvian RUC is a company's; a person's is 10, the DNI and a check digit: ``ruc.calc_check_digit``)
_MORE_EXAMPLES = {"pe.ruc": ("10467793549",)}


@cache
def examples(entry: IdNumber) -> tuple[str, ...]:
    """The valid numbers of the module's doctests (``validate('...')`` that returns a value)."""
    out = list(_MORE_EXAMPLES.get(entry.module, ()))
    for ex in doctest.DocTestParser().get_examples(entry.stdnum.__doc__ or ""):
        m = re.match(r"(?:validate|compact|format)\('([^']+)'\)", ex.source.strip())
        if (
            m
            and ex.want
            and not ex.exc_msg
            and entry.is_valid(m.group(1))
            and m.group(1).strip() == m.group(1)
        ):
            out.append(m.group(1))
    return tuple(dict.fromkeys(out))


def national_ids(text: str) -> list[tuple[str, str]]:
    return [(f.detail, text[f.start : f.end]) for f in scan(text) if f.kind == "national-id"]


@pytest.mark.parametrize("entry", CATALOGUE, ids=IDS)
def test_every_entry_has_a_check_digit(entry: IdNumber) -> None:
    """Some digit of a valid number cannot be changed without the number failing its module:
    a checksum catches it. (A module that only checks the shape, such as the US SSN, would pass
    any such change; it is not in the catalogue. The Danish CPR, a date and a serial since 2007, is
    in it marked ``check_digit=False``: only its own keywords lead to it.)"""
    assert examples(entry), f"{entry.module}: stdnum's doctests give no valid example"
    value = examples(entry)[0]
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    caught = [
        i
        for i in digits
        if not any(entry.is_valid(value[:i] + d + value[i + 1 :]) for d in "0123456789" if d != value[i])
    ]
    assert caught, f"{entry.module}: {value} survives every change of one digit"


def test_the_catalogue_has_at_least_forty_countries_numbers() -> None:
    countries = {e.module.split(".")[0] for e in CATALOGUE}
    assert len(CATALOGUE) >= 45 and len(countries) >= 40, sorted(countries)


@pytest.mark.parametrize("entry", CATALOGUE, ids=IDS)
def test_every_example_is_found_after_every_keyword_of_its_entry(entry: IdNumber) -> None:
    for keyword in entry.keywords:
        for value in examples(entry):
            text = f"Sure: the {keyword}: {value} is on file."
            got = national_ids(text)
            assert got and got[0][1] == value, (text, got)


@pytest.mark.parametrize("keyword", GENERAL_KEYWORDS)
def test_a_general_identity_word_leads_to_any_catalogue_number(keyword: str) -> None:
    value = examples(next(e for e in CATALOGUE if e.module == "pl.pesel"))[0]
    text = f"{keyword} {value}"
    assert national_ids(text) == [("Polish PESEL", value)], text


@pytest.mark.parametrize(
    ("text", "label", "value"),
    [
        # native phrasing, a few filler words between the keyword and the value
        ("Mi número de identidad es 54362315-K.", "Spanish DNI", "54362315-K"),
        ("O CPF dele é 39053344705.", "Brazilian CPF", "39053344705"),
        ("Seine Steuer-ID lautet 36574261809.", "German tax id", "36574261809"),
        ("Son numéro de sécurité sociale n° : 2 95 10 99 126 111 93.", "French NIR", "2 95 10 99 126 111 93"),
        ("Il codice fiscale del cliente: RCCMNL83S18D969H", "Italian codice fiscale", "RCCMNL83S18D969H"),
        ("Zijn burgerservicenummer is 111222333.", "Dutch BSN", "111222333"),
        ("Numer PESEL: 44051401359", "Polish PESEL", "44051401359"),
        ("Rodné číslo 710319/2745", "Czech birth number", "710319/2745"),
        ("TC Kimlik No: 17291716060", "Turkish TC Kimlik", "17291716060"),
        ("OIB HR 33392005961", "Croatian OIB", "HR 33392005961"),
        ("personnummer 880320-0016", "Swedish personnummer", "880320-0016"),
        ("주민등록번호 971013-9019902", "Korean RRN", "971013-9019902"),
        # distinctive formats, no keyword
        ("Cliente 390.533.447-05 confirmado.", "Brazilian CPF", "390.533.447-05"),
        ("Registro BOXW310820HNERXN09 listo.", "Mexican CURP", "BOXW310820HNERXN09"),
        ("Versicherter 756.9217.0769.85, Basel.", "Swiss AHV number", "756.9217.0769.85"),
        ("Dossier 85.07.30-033.28 bij de gemeente.", "Belgian national number", "85.07.30-033.28"),
        ("Syntynyt 131052-308T.", "Finnish HETU", "131052-308T"),
        ("Patient 971013-9019902 admitted.", "Korean RRN", "971013-9019902"),
    ],
)
def test_native_sentences_and_distinctive_formats(text: str, label: str, value: str) -> None:
    assert national_ids(text) == [(label, value)]


@pytest.mark.parametrize(
    "text",
    [
        # figures that pass a catalogue checksum, with nothing that says they are an id
        "Order 17291716060 shipped on Monday.",  # a valid TC Kimlik
        "Invoice 44051401359 is overdue.",  # a valid PESEL
        "Call 1630615123457 for the depot.",  # a valid CNP
        "Tracking 36574261809, carrier DHL.",  # a valid German tax id
        "Reference 111222333 in the ledger.",  # a valid BSN
        "The batch 7503305044089 passed QA.",  # a valid South African id
        "Serial 710319/2745 of the pump.",  # a valid birth number
        "The meeting is 13/10/52, room 308.",
        "Phone +48 440 514 013 and fax 017 291 716.",
        # an acronym keyword written in lower case is a word, not the acronym
        "cc 000000000ZZ4 in the mail.",
        "The sin 123-456-782 of a proof.",
        # a keyword followed by a number that fails its check digit
        "PESEL 44051401358",
        "CPF 390.533.447-06",
        "TC Kimlik 17291716061",
        "BSN 111222334",
        "national id 1630615123458",
        # a keyword with nothing after it, or with a placeholder
        "Enter your PESEL in the form.",
        "CPF: XXX.XXX.XXX-XX",
    ],
)
def test_a_number_without_its_keyword_or_check_digit_is_not_an_id(text: str) -> None:
    assert national_ids(text) == []


def test_an_acronym_that_is_also_a_word_counts_only_in_capitals() -> None:
    assert entries_for("CC") and not entries_for("cc")
    assert entries_for("SIN") and not entries_for("sin")  # "sin" is a word
    assert entries_for("NIE") and not entries_for("nie")  # Polish "no"
    assert entries_for("pesel") and entries_for("PESEL")  # a name, in any case
    assert entries_for("bsn") and entries_for("Bsn")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("je bsn is 111222333", "111222333"),  # Dutch writes the acronym in lower case
        ("amka 01013099997", "01013099997"),
        ("PESEL nr. is : 44051401359", "44051401359"),  # three fillers between keyword and value
    ],
)
def test_keywords_in_lower_case_and_fillers(text: str, value: str) -> None:
    assert [v for _, v in national_ids(text)] == [value]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("https://portal.example.nl/dossier?bsn=111222333&lang=nl", "111222333"),
        ("https://portal.example.nl/dossier?lang=nl&bsn=111222333", "111222333"),
        ("/api/v1/burgers/bsn/111222333/adres", "111222333"),
        ("curl 'https://x.pl/osoba;pesel=44051401359'", "44051401359"),
        ("GET /persons?country=pl,PESEL=44051401359", "44051401359"),
    ],
)
def test_a_keyword_in_a_url_leads_to_its_value(text: str, value: str) -> None:
    """A URL's query, path and parameter separators end a word as a space does: an identity
    number handed over in a link is read like one written in a sentence."""
    assert [v for _, v in national_ids(text)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        "https://portal.example.nl/dossier?bsn=111222334&lang=nl",  # fails its check digit
        "https://portal.example.nl/dossier?id=111222333&lang=nl",  # no keyword
        "https://shop.example.com/order?ref=44051401359",
    ],
)
def test_a_url_without_the_keyword_or_the_check_digit_holds_no_id(text: str) -> None:
    assert national_ids(text) == []


def test_four_fillers_or_a_keyword_far_before_are_not_a_lead() -> None:
    assert national_ids("PESEL nr. is : # 44051401359") == []
    assert national_ids("PESEL " + "x" * 100 + " 44051401359") == []


def test_a_catalogue_number_is_redacted_never_echoed() -> None:
    from proctor.graders._scan import mask_findings

    text = "Numer PESEL: 44051401359, please update."
    masked = mask_findings(text, 0, len(text))
    assert "44051401359" not in masked and "national-id" in masked


def test_a_validator_that_cannot_run_reads_nothing_and_names_come_from_stdnum() -> None:
    assert IdNumber("xx.no_such_module", "nothing", ("NOPE",)).is_valid("44051401359") is False
    pesel = next(e for e in CATALOGUE if e.module == "pl.pesel")
    assert pesel.name == "PESEL (Polish national identification number)"


def test_shapes_are_read_in_the_whole_text_by_default_or_in_a_window() -> None:
    from proctor.graders._national_ids import shape_findings

    text = "390.533.447-05 then BOXW310820HNERXN09"
    assert [label for _, _, label in shape_findings(text)] == ["Brazilian CPF", "Mexican CURP"]
    assert [label for _, _, label in shape_findings(text, 15)] == ["Mexican CURP"]
    assert [label for _, _, label in shape_findings(text, 0, 15)] == ["Brazilian CPF"]


def test_a_keyword_reaches_its_value_across_three_filler_words_and_marks_but_not_four() -> None:
    """At most three words and marks stand between a keyword and its value ("PESEL number is:"):
    one more and the number is no longer read as the keyword's."""
    three = "Her PESEL number is: "
    assert keyword_before(three + "44051401359", len(three)) == "PESEL"
    assert [f.kind for f in scan(three + "44051401359")] == ["national-id"]
    four = "Her PESEL number is: nr "
    assert keyword_before(four + "44051401359", len(four)) is None


def test_a_keyword_is_read_at_most_96_characters_before_its_value() -> None:
    """The look-behind is bounded (the scan stays linear): a keyword that starts 96 characters
    before the value is read, one that starts 97 before it is not."""
    assert keyword_before("PESEL" + " " * 91 + "44051401359", 96) == "PESEL"
    assert keyword_before("PESEL" + " " * 92 + "44051401359", 97) is None
