"""A national id's keyword, one word naming whose id it is, the value: no linking word between them.

``CNP student 1800101221144``, ``BSN medewerker 111222333``, ``PESEL pacjenta 44051401359``: a
form's column or a note says whose number follows with one person's word, in the keyword's
language and with the ending its genitive glues on, and the number passes its check digit. The
words are data (:data:`proctor.graders._national_ids._OWNER_WORDS`). The twins stay quiet: two
words (``CNP student count``), a word that names another thing (``BSN order``, ``CNP comanda``),
the number failing its check digit, a general identity word before the owner (it leads to any
entry), an acronym keyword that is also a word in small letters (``sin``), a line or a mark
between keyword and owner."""

from __future__ import annotations

import pytest

from proctor.graders import scan

# (keyword, a person's word of its language, a valid number, its label)
OWNED = [
    ("CNP", "student", "1800101221144", "Romanian CNP"),
    ("CNP", "angajatului", "1630615123457", "Romanian CNP"),
    ("CNP", "pacientului", "1800101221144", "Romanian CNP"),
    ("BSN", "medewerker", "111222333", "Dutch BSN"),
    ("BSN", "klant", "111222333", "Dutch BSN"),
    ("PESEL", "pacjenta", "44051401359", "Polish PESEL"),
    ("PESEL", "pracownika", "44051401359", "Polish PESEL"),
    ("PESEL", "ucznia", "44051401359", "Polish PESEL"),
    ("NIF", "trabalhador", "501964843", "Portuguese NIF"),
    ("NIF", "funcion\u00e1rio", "501964843", "Portuguese NIF"),
    ("Steuer-ID", "Mitarbeiterin", "36574261809", "German tax id"),
    ("personnummer", "anst\u00e4lld", "8803200016", "Swedish personnummer"),
    ("f\u00f8dselsnummer", "ansatt", "15108695088", "Norwegian f\u00f8dselsnummer"),
    ("rodn\u00e9 \u010d\u00edslo", "zam\u011bstnance", "7103192745", "Czech birth number"),
    ("TCKN", "hasta", "17291716060", "Turkish TC Kimlik"),
    ("SIN", "employee", "123456782", "Canadian SIN"),
    ("TFN", "employee's", "123456782", "Australian TFN"),
    # the parties of a claim, an estate, a loan or a family, as an insurer's or a court's forms name them
    ("PESEL", "poszkodowanego", "00292783108", "Polish PESEL"),
    ("PESEL", "zmar\u0142ego", "44051401359", "Polish PESEL"),
    ("PESEL", "kredytobiorcy", "44051401359", "Polish PESEL"),
    ("CNP", "asiguratului", "1800101221144", "Romanian CNP"),
    ("BSN", "verzekerde", "111222333", "Dutch BSN"),
    ("BSN", "overledene", "111222333", "Dutch BSN"),
    ("NIF", "segurado", "501964843", "Portuguese NIF"),
    ("Steuer-ID", "Gesch\u00e4digten", "36574261809", "German tax id"),
]


def national_ids(text: str) -> list[tuple[str, str]]:
    return [(f.detail, text[f.start : f.end]) for f in scan(text) if f.kind == "national-id"]


@pytest.mark.parametrize(("keyword", "owner", "number", "label"), OWNED, ids=lambda v: str(v))
def test_a_keyword_an_owner_and_the_number_is_an_id(
    keyword: str, owner: str, number: str, label: str
) -> None:
    for text in (f"{keyword} {owner} {number}", f"Kopie: {keyword} {owner} {number}, 2024"):
        assert national_ids(text) == [(label, number)], text


def _failing(number: str) -> str:
    """The number with its last digit changed: its check digit fails."""
    return number[:-1] + str((int(number[-1]) + 1) % 10)


@pytest.mark.parametrize(("keyword", "owner", "number", "label"), OWNED, ids=lambda v: str(v))
def test_its_twins_stay_quiet(keyword: str, owner: str, number: str, label: str) -> None:
    for text in (
        f"{keyword} {owner} count {number}",  # two words, no linking word
        f"{keyword} {owner} {_failing(number)}",  # its check digit fails
        f"{keyword}\n{owner} {number}",  # a line between the keyword and the owner
        f"{keyword}: {owner} {number}",  # a mark: the owner is the value's label, not the id's
        f"national id {owner} {number}",  # a general identity word leads to any entry
    ):
        assert national_ids(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "CNP student count 3",
        "CNP comanda 1800101221144",  # another thing's word
        "BSN order 111222333",
        "BSN bestelling 111222333",
        "PESEL zamowienia 44051401359",
        "NIF pedido 501964843",
        "sin employee 123456782",  # an acronym that is also a word, in small letters
        "CNP students 1800101221144",  # (a plural is no person's word of the table)
        "CNP studentx 1800101221144",  # a word that only begins like one
    ],
)
def test_other_words_between_keyword_and_number_stay_quiet(text: str) -> None:
    assert national_ids(text) == [], text
