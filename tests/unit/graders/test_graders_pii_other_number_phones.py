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


#: The words for an order's, an invoice's, a customer's, a shipment's tracking and an account's
#: number in the catalogue's other languages, as written (diacritics, Turkish dotless i), with the
#: endings and word orders their languages use; each beside a phone's words in the same language
OTHER_NUMBERS = {
    "tr": (
        "Sipariş numaras\u0131 {} olan gönderi yolda.",
        "Siparişinizin numaras\u0131 {} olarak kay\u0131tl\u0131.",
        "Sipariş no: {} için fatura kesildi.",
        "Fatura numaran\u0131z {} olarak görünüyor.",
        "Müşteri numaras\u0131: {}",
        "Müşteri no {} ile giriş yap\u0131n.",
        "Kargo takip numaras\u0131 {} olan paket.",
        "Hesap numaran\u0131z {} olarak güncellendi.",
        "Abone numaras\u0131 {} olan hat.",
    ),
    "pl": (
        "Numer zamówienia to {}.",
        "Numer faktury: {}.",
        "Nr klienta {} w systemie.",
        "Numer przesyłki {} jest w drodze.",
        "Numer śledzenia przesyłki: {}.",
        "Numer konta: {}.",
    ),
    "sv": (
        "Ordernumret är {}.",
        "Fakturanummer: {}.",
        "Ditt kundnummer är {}.",
        "Spårningsnumret är {}.",
        "Kontonumret {} är spärrat.",
    ),
    "cs/sk": (
        "Číslo objednávky je {}.",
        "Číslo faktury: {}.",
        "Zákaznické číslo {} platí dál.",
        "Číslo zákazníka je {}.",
        "Sledovací číslo zásilky: {}.",
        "Číslo účtu: {}.",
        "Číslo objednávky: {}.",
    ),
    "ro": (
        "Numărul comenzii este {}.",
        "Număr comandă: {}.",
        "Numărul facturii {} a fost emis.",
        "Numărul de client: {}.",
        "Cod client {} activ.",
        "Numărul contului este {}.",
        "Număr de urmărire: {}.",
    ),
    "hu": (
        "Rendelésszám: {}.",
        "A rendelés száma {}.",
        "Rendelési szám {} alatt.",
        "Számlaszáma: {}.",
        "Ügyfélszám: {}.",
        "Nyomkövetési szám: {}.",
    ),
    "da/no": (
        "Ordrenummeret er {}.",
        "Ordrenr. {} er sendt.",
        "Fakturanummer: {}.",
        "Kundenummeret er {}.",
        "Sporingsnummer {} er registrert.",
        "Kontonummer: {}.",
    ),
    "fi": (
        "Tilausnumero on {}.",
        "Tilausnumerosi on {}.",
        "Laskunumero: {}.",
        "Asiakasnumerolla {} löytyy.",
        "Seurantanumero {} on rekisteröity.",
        "Tilinumero: {}.",
    ),
    "others": (
        "Užsakymo numeris {}.",
        "Pasūtījuma numurs: {}.",
        "Broj narudžbe: {}.",
        "Številka naročila {}.",
        "Tellimuse number: {}.",
        "Codice cliente {}.",
        "Numero d'ordine: {}.",
        "Número de seguimiento: {}.",
        "Numéro de suivi : {}.",
    ),
}
PHONES = {
    "tr": ("Telefon numaras\u0131 {} olan kişi.", "Cep numaram {}.", "Telefon no: {}."),
    "pl": ("Numer telefonu to {}.", "Nr telefonu: {}."),
    "sv": ("Telefonnumret är {}.", "Mobilnummer: {}."),
    "cs/sk": ("Telefonní číslo je {}.", "Číslo telefonu: {}."),
    "ro": ("Numărul de telefon este {}.", "Număr de telefon: {}."),
    "hu": ("Telefonszám: {}.", "Mobilszám: {}.", "Hívószám: {}."),
    "da/no": ("Telefonnummeret er {}.", "Mobilnummeret er {}."),
    "fi": ("Puhelinnumero on {}.", "Matkapuhelinnumero: {}."),
}
DIGITS = ("05321234567", "0612345678", "020 7946 0958")


@pytest.mark.parametrize("digits", DIGITS)
@pytest.mark.parametrize(
    "sentence",
    [pytest.param(s, id=f"{lang}-{i}") for lang, ss in OTHER_NUMBERS.items() for i, s in enumerate(ss)],
)
def test_a_trunk_0_number_after_another_numbers_words_in_any_language_is_no_phone(
    sentence: str, digits: str
) -> None:
    text = sentence.format(digits)
    assert [f.kind for f in scan(text) if f.kind == "phone"] == [], text


@pytest.mark.parametrize(
    "sentence", [pytest.param(s, id=f"{lang}-{i}") for lang, ss in PHONES.items() for i, s in enumerate(ss)]
)
def test_the_same_languages_phone_words_still_lead_to_a_phone(sentence: str) -> None:
    text = sentence.format("0612345678")
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("phone", "0612345678")], text


@pytest.mark.parametrize("text", ["Bruno 06 12 34 56 78", "Casino: 06 12 34 56 78", "Zeno 0612345678"])
def test_a_word_that_only_ends_like_no_names_no_number(text: str) -> None:
    assert [f.kind for f in scan(text)] == ["phone"], text
