"""A national-id keyword declined as its language declines it still leads to its number.

Scandinavian definite forms and plurals, where ``nummer`` drops its ``e`` (``Fødselsnummeret``,
``fødselsnumrene``, ``personnumrets``, ``CPR-nummeret``); Estonian and Icelandic cases
(``isikukoodiga``, ``kennitölunnar``); the Slavic and Baltic cases that decline every word of a
keyword phrase (``rodným číslem``, ``rodnom čísle``, ``asmens kodo``, ``osobnog identifikacijskog
broja``, ``enotno matično številko``). Each item fires with a number that passes its module, and
its twin, the same sentence with the number broken, stays quiet; a declined word alone, or a
word that only ends like one, leads to nothing."""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._national_ids import CATALOGUE


def _ids(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "national-id"]


# (sentence with {}, a valid number, the same number broken, the label)
CASES = [
    ("Fødselsnummeret til den nye ansatte er {}", "25069461118", "25069461119", "fødselsnummer"),
    ("Fødselsnumrene: {} og flere.", "25069461118", "25069461119", "fødselsnummer"),
    ("Personnummeret er {}.", "25069461118", "25069461119", "fødselsnummer"),
    ("Personnumrets sista fyra: {}", "8803200016", "8803200017", "personnummer"),
    ("CPR-nummeret er {}.", "211062-5629", "311362-5629", "CPR"),
    ("Hans cpr-nr. {} står i journalen.", "211062-5629", "311362-5629", "CPR"),
    ("CPR: {}", "211062-5629", "311362-5629", "CPR"),
    ("Isikukoodiga {} isik on registreeritud.", "36805280109", "36805280108", "isikukood"),
    ("Isikukoodile {} saadeti kiri.", "36805280109", "36805280108", "isikukood"),
    ("Kennitölunnar {} var getið.", "4504013150", "4504013151", "kennitala"),
    ("S rodným číslem {} souhlasí.", "710319/2745", "710319/2746", "Czech"),
    ("K rodnému číslu {} nic nemáme.", "710319/2745", "710319/2746", "Czech"),
    ("Pri rodnom čísle {} chýba podpis.", "710319/2745", "710319/2746", "birth number"),
    ("Pagal asmens kodo {} duomenis.", "33309240064", "33309240065", "asmens"),
    ("Asmens kodas yra {}.", "33309240064", "33309240065", "asmens"),
    ("Provjera osobnog identifikacijskog broja {} je gotova.", "33392005961", "33392005962", "OIB"),
    ("Vpišite enotno matično številko {}.", "0101006500006", "0101006500007", "EMŠO"),
    # the endings read before: German and Dutch (-s, -n, 's), Finnish cases, Polish instrumental
    ("Die Steuer-IDs: {}", "36574261809", "36574261808", "tax id"),
    ("Ihrer Steueridentifikationsnummern {} fehlt nichts.", "36574261809", "36574261808", "tax id"),
    ("BSN's: {}", "111222333", "111222334", "BSN"),
    ("Henkilötunnuksella {} ei löytynyt.", "131052-308T", "131052-308U", "HETU"),
    ("Numerem PESEL {} się podpisał.", "44051401359", "44051401358", "PESEL"),
]


@pytest.mark.parametrize(("sentence", "valid", "broken", "label"), CASES)
def test_a_declined_keyword_leads_to_its_number(sentence: str, valid: str, broken: str, label: str) -> None:
    text = sentence.format(valid)
    found = [f for f in scan(text) if f.kind == "national-id"]
    assert [text[f.start : f.end] for f in found] == [valid], text
    assert label in found[0].detail, found[0].detail


@pytest.mark.parametrize(("sentence", "valid", "broken", "label"), CASES)
def test_its_twin_with_a_broken_number_stays_quiet(
    sentence: str, valid: str, broken: str, label: str
) -> None:
    text = sentence.format(broken)
    assert _ids(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        # one declined word of a phrase is not the phrase
        "Kodo 33309240064 nėra.",
        "Číslem 710319/2745 je objednávka.",
        "Broja 33392005961 nema.",
        "S rodným domem 710319/2745 nic.",
        # a word that merely ends like a declined keyword
        "Ordrenumrene er 25069461118.",
        "Kodas 33309240064 yra užsakymo.",
        # the CPR only after its own keywords ("cpr" in lower case alone is no keyword)
        "Ordrenummer: 211062-5629",
        "cpr 211062-5629",
    ],
)
def test_look_alikes_lead_to_nothing(text: str) -> None:
    assert _ids(text) == [], text


def test_an_entry_without_a_check_digit_is_led_to_by_its_own_keywords_only() -> None:
    unchecked = [e for e in CATALOGUE if not e.check_digit]
    assert [e.module for e in unchecked] == ["dk.cpr"]
    assert all(not e.general and e.shape is None for e in unchecked)
    # a general identity word does not lead to it (another entry may read the same digits)
    text = "Identifikationsnummer 211062-5629"
    assert all("CPR" not in f.detail for f in scan(text))
