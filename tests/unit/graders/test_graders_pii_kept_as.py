"""A national-id keyword, a few words saying where the number is kept, then "as" (or its kin in
the catalogue's languages: ``als``, ``comme``, ``como``, ``come``, ``jako``, ``som``) and the number:
the number is the id. Each item's twin has a number whose check digit fails and stays quiet."""

from __future__ import annotations

import pytest

from proctor.graders import scan

# (sentence with {}, a valid number, the same number with its check digit broken)
CASES = [
    ("HR keeps your SIN on record as {} for the T4 slips.", "506 480 896", "506 480 897"),
    ("The agency has your SIN listed as {}.", "506480896", "506480897"),
    ("Uw BSN staat bij ons geregistreerd als {}.", "309722238", "309722239"),
    ("Ihre Steuer-ID ist bei uns gespeichert als {}.", "50922123468", "50922123469"),
    ("Votre NIR figure dans le dossier comme {}.", "1 85 05 78 006 084 91", "1 85 05 78 006 084 92"),
    ("Twój PESEL zapisaliśmy jako {}.", "90071439553", "90071439554"),
    ("Personnumret finns registrerat som {}.", "6408230958", "6408230959"),
]


@pytest.mark.parametrize(("sentence", "valid", "broken"), CASES)
def test_a_number_kept_as_the_keyword_says_is_the_id(sentence: str, valid: str, broken: str) -> None:
    text = sentence.format(valid)
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("national-id", valid)], text


@pytest.mark.parametrize(("sentence", "valid", "broken"), CASES)
def test_its_twin_with_a_broken_check_digit_stays_quiet(sentence: str, valid: str, broken: str) -> None:
    text = sentence.format(broken)
    assert [f.kind for f in scan(text) if f.kind == "national-id"] == [], text


@pytest.mark.parametrize(
    "text",
    [
        # another number named between the keyword and "as"
        "Your SIN and the order number are filed as 506480896.",
        "Het BSN staat niet geregistreerd als 309722238.",
        # "as" with no keyword before it
        "The ticket was logged as 506480896.",
    ],
)
def test_as_after_another_number_or_no_keyword_is_no_lead(text: str) -> None:
    assert [f.kind for f in scan(text) if f.kind == "national-id"] == [], text
