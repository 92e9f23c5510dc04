"""A mobile number written without its trunk ``0`` after a mobile or cell word of its language.

Every language the README names for the no-trunk reading has its mobile words among its phone
words (``Mobil``, ``mobiel``, ``GSM``, ``Handy``, ``cellulare``, ``móvil``, ``celular``,
``portable``, ``telemóvel``, ``komórka``, ``matkapuhelin``...), and a number after one is read
in that language's regions as dialled there, so one written without the trunk ``0`` its region
dials it with (``Mobil: 70-872 50 32`` in Sweden, ``Telefoon: 6 6901 0281`` in the Netherlands)
is found. Each item's twin is the same digits after a word that names another number: quiet."""

from __future__ import annotations

from functools import cache

import phonenumbers
import pytest

from proctor.graders import scan


@cache
def _mobile(region: str) -> str:
    """A valid mobile number of ``region``: its national digits without a trunk prefix, grouped."""
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    digits = str(example.national_number)
    return " ".join([digits[:3], digits[3:6], digits[6:]]).strip()


# (the phone word, a region of its language)
MOBILE_WORDS = [
    ("Mobile", "GB"),
    ("Cell", "US"),
    ("Móvil", "ES"),
    ("Celular", "MX"),
    ("Telemóvel", "PT"),
    ("Celular", "BR"),
    ("Portable", "FR"),
    ("GSM", "BE"),
    ("Handy", "DE"),
    ("Mobil", "AT"),
    ("Natel", "CH"),
    ("Cellulare", "IT"),
    ("Mobiel", "NL"),
    ("GSM", "NL"),
    ("Komórka", "PL"),
    ("Mobil", "SE"),
    ("Mobil", "DK"),
    ("Mobil", "NO"),
    ("Tlf", "NO"),
    ("Matkapuhelin", "FI"),
    ("Kännykkä", "FI"),
]


def _phones(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "phone"]


@pytest.mark.parametrize(("word", "region"), MOBILE_WORDS, ids=lambda v: str(v))
def test_a_mobile_number_without_its_trunk_zero_after_its_word_is_a_phone(word: str, region: str) -> None:
    number = _mobile(region)
    assert not number.startswith("0")
    text = f"{word}: {number}"
    assert _phones(text) == [number], text


@pytest.mark.parametrize(("word", "region"), MOBILE_WORDS, ids=lambda v: str(v))
def test_the_same_digits_after_a_word_naming_another_number_stay_quiet(word: str, region: str) -> None:
    text = f"Bestellnummer: {_mobile(region)}"
    assert scan(text) == [], text


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Mobil: 70-872 50 32", "70-872 50 32"),
        ("Telefoon: 6 6901 0281 (mobiel)", "6 6901 0281"),
        ("Bel me op mijn GSM: 6 6901 0281.", "6 6901 0281"),
        ("Handy: 151 23456789", "151 23456789"),
        ("Puh. 40 123 4567", "40 123 4567"),
    ],
)
def test_the_held_out_items(text: str, number: str) -> None:
    assert _phones(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Ordernummer: 70-872 50 32",
        "Bestelling 6 6901 0281 is verzonden.",
        "Das Handy kostet 151 23456789 Cent.",  # no linking word hands the figure over
    ],
)
def test_their_twins_stay_quiet(text: str) -> None:
    assert _phones(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Elle a laissé son portable : 6 22 49 93 07",
        "Elle a laissé son portable : 06 22 49 93 07",
        "Son portable est le 6 22 49 93 07.",
    ],
)
def test_french_portable_leads_to_a_mobile_number(text: str) -> None:
    assert [f.kind for f in scan(text)] == ["phone"], text
