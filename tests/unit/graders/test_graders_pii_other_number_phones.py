"""Digits with a trunk ``0`` after a word that names another number are that number, not a phone.

A national-id keyword whose number fails its check digit (``PESEL: 0...``, ``kennitala 0...``,
``Fødselsnummeret til ... er 0...``) or a word naming a number of its own (``Kundennummer``,
``Bestellnummer``, ``klantnummer``, ``numer klienta``, ``número de cliente``, ``customer number``)
before them: nothing is reported. Each item's twin has a phone word in its place and reports the
phone number."""

from __future__ import annotations

import pytest

from proctor.graders import scan

# (quiet sentence, its twin with a phone's word, the digits)
CASES = [
    ("Twój numer PESEL: {} jest w systemie.", "Twój numer telefonu: {} jest w systemie.", "03211505992"),
    ("Fødselsnummeret til vikaren er {}, takk.", "Mobilnummeret til vikaren er {}, takk.", "07118290025"),
    ("Kennitala hans: {}.", "Símanúmer hans, sími: {}.", "0612345678"),
    ("Ihre Kundennummer: {}, Tarif Basis.", "Ihre Telefonnummer: {}, Tarif Basis.", "0301234567"),
    ("Bestellnummer {} wurde versandt.", "Rufnummer {} ist erreichbar.", "0301234567"),
    ("Uw klantnummer is {}.", "Uw telefoonnummer is {}.", "0612345678"),
    ("Kundenummeret er {}.", "Mobilnummeret er {}.", "0612345678"),
    ("Numer klienta: {}.", "Numer telefonu: {}.", "0612345678"),
    ("Su número de cliente es {}.", "Su número de teléfono es {}.", "0612345678"),
    ("Your customer number: {}.", "Your phone number: {}.", "07911 123456"),
]


@pytest.mark.parametrize(("quiet", "phone", "digits"), CASES)
def test_digits_after_another_numbers_word_are_no_phone(quiet: str, phone: str, digits: str) -> None:
    text = quiet.format(digits)
    assert [f.kind for f in scan(text)] == [], text


@pytest.mark.parametrize(("quiet", "phone", "digits"), CASES)
def test_the_same_digits_after_a_phone_word_are_a_phone(quiet: str, phone: str, digits: str) -> None:
    text = phone.format(digits)
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("phone", digits)], text


@pytest.mark.parametrize(
    "text",
    [
        # words shared with phones say nothing against a phone
        "My number is 07911 123456, text me.",
        "Reach me on my personal number 07911 123456.",
        "The office number: 020 7946 0958.",
        "Customer service number: 020 7946 0958.",
        "Notrufnummer: 0301234567",
    ],
)
def test_a_phones_own_words_still_lead_to_a_phone(text: str) -> None:
    assert [f.kind for f in scan(text)] == ["phone"], text
