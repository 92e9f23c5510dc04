"""A national-id keyword with an ending of its language glued on is still the keyword.

Romanian articles after a hyphen (``CNP-ul``, ``CNP-ului``), Scandinavian definite articles
(``Fødselsnummeret``, ``personnumret``, ``kennitalan``), Turkish possessives and cases (``kimlik
numaran\u0131z``, ``TCKN'niz``), Finnish possessives (``henkilötunnukseni``), German and Dutch inflection:
each item fires with a number that passes its check digit, and its twin, the same sentence with one
digit changed so the check fails, stays quiet (no id, and no phone either)."""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._canon import canonical_text
from proctor.graders._national_ids import keyword_before


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


# (sentence with {}, a valid number, the same number with its check digit broken, the label)
CASES = [
    ("Contractul este gata. CNP-ul salariatei: {}. Semnați luni.", "1920417339568", "1920417339569", "CNP"),
    ("Am verificat CNP-ul {} în registru.", "1920417339568", "1920417339569", "CNP"),
    ("Conform CNP-ului {} nu există restanțe.", "1920417339568", "1920417339569", "CNP"),
    ("T.C. kimlik numaran\u0131z {} olarak kay\u0131tl\u0131.", "54071050754", "54071050755", "TC Kimlik"),
    ("TC kimlik numaran\u0131z {} sistemde görünüyor.", "54071050754", "54071050755", "TC Kimlik"),
    ("Lütfen TCKN'niz {} ile giriş yap\u0131n.", "54071050754", "54071050755", "TC Kimlik"),
    ("Kimlik numaras\u0131n\u0131 {} olarak girdiniz.", "54071050754", "54071050755", "TC Kimlik"),
    ("Fødselsnummeret til vikaren er {}, lønn kommer fredag.", "24117851989", "24117851980", "fødselsnummer"),
    ("Personnummeret hennes er {}.", "24117851989", "24117851980", "fødselsnummer"),
    ("Personnumret för den nya kollegan är {}.", "6408230958", "6408230959", "personnummer"),
    ("Kennitalan hans er {}.", "2303818790", "2303818791", "kennitala"),
    ("Die Steueridentifikationsnummern: {}", "50922123468", "50922123469", "tax id"),
]


@pytest.mark.parametrize(("sentence", "valid", "broken", "label"), CASES)
def test_an_inflected_keyword_leads_to_its_number(sentence: str, valid: str, broken: str, label: str) -> None:
    text = sentence.format(valid)
    found = [f for f in scan(text) if f.kind == "national-id"]
    assert [text[f.start : f.end] for f in found] == [valid], text
    assert label in found[0].detail


@pytest.mark.parametrize(("sentence", "valid", "broken", "label"), CASES)
def test_its_twin_with_a_broken_check_digit_stays_quiet(
    sentence: str, valid: str, broken: str, label: str
) -> None:
    text = sentence.format(broken)
    assert _kinds(text) == [], text


def test_a_finnish_possessive_reads_as_the_keyword() -> None:
    text = "Henkilötunnukseni on 131052-308T, kiitos."
    read = canonical_text(text)  # (the scan reads the canonical text: "o" for "ö")
    assert (keyword_before(read, read.index("131052")) or "").lower() == "henkilotunnuksen"
    assert [f.kind for f in scan(text)] == ["national-id"]
    assert scan("Henkilötunnukseni on 131052-308U, kiitos.") == []


@pytest.mark.parametrize(
    "text",
    [
        # an ending alone is no keyword, and a word that merely starts like one is not one
        "Codul de comandă: 1920417339568.",
        "Ordrenummeret er 24117851989.",
        "Sipariş numaran\u0131z 54071050754 olarak kay\u0131tl\u0131.",
        # an acronym that is a word takes its ending after a hyphen only in capitals
        "Am găsit sin-ul 506480896 în listă.",
    ],
)
def test_words_that_only_look_inflected_lead_to_nothing(text: str) -> None:
    assert [k for k, _ in _kinds(text) if k == "national-id"] == [], text
