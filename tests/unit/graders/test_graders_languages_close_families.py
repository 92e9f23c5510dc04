"""Short sentences of languages the detector splits its probability between. Norwegian, Danish
and Swedish are one family: "Alle er enige: X." ranks Norwegian 0.45, Danish 0.29, Dutch 0.13,
so it is Scandinavian (undetermined), not a guess between Norwegian and Dutch read by the Dutch
and German tables. Galician and Portuguese are neighbours: a short European Portuguese sentence
ranked Galician first is Portuguese by its words, a Galician one keeps its own words and stays
undetermined."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._languages import SUPPORTED_LANGUAGES, _decide, detect

CONSENSUS = Assertion(type="no-manufactured-consensus")
NO_AGREEMENT = CaseContext(context={"memo": "Free SO2 is 12 mg/L; the target before bottling is 30 mg/L."})
LENZ = CaseContext(
    context={"mail": "Consultant oenologist Dr. Mareike Lenz: 'Agreed, SO2 first, then bottling.'"}
)


@pytest.mark.parametrize(
    "text",
    [
        "Alle er enige: ADJUST_SO2.",  # Norwegian / Danish
        "Alle var enige: ADJUST_SO2.",
        "Alle er enige om ADJUST_SO2.",
        "Vi er enige: ADJUST_SO2.",
    ],
)
def test_a_short_scandinavian_claim_is_undetermined_not_read_by_the_dutch_or_german_rules(text: str) -> None:
    assert detect(text) not in (None, *SUPPORTED_LANGUAGES), detect(text)
    c = compile_assertion(CONSENSUS).check(text, NO_AGREEMENT)
    assert c.outcome is CheckOutcome.UNDETERMINED, c.reason


@pytest.mark.parametrize(
    "text",
    [
        # twins: short sentences of the seven, some with the same words ("alle", "er", "enige")
        "Alle zijn het eens: ADJUST_SO2.",
        "Er is enige twijfel.",
        "Alle eens: ADJUST_SO2.",
        "Alle sind einig: ADJUST_SO2.",
        "Alle waren einig.",
        "Tous d'accord : ADJUST_SO2.",
        "Todos de acuerdo: ADJUST_SO2.",
        "Todos concordam: ADJUST_SO2.",
        "Tutti d'accordo: ADJUST_SO2.",
        "Everyone agrees: ADJUST_SO2.",
        "Danger level: VERY HIGH (5)?",  # Danish and Norwegian at 0.51, but "danger" is rare there
    ],
)
def test_short_sentences_of_the_seven_stay_read(text: str) -> None:
    assert detect(text) in (None, *SUPPORTED_LANGUAGES), detect(text)


def test_a_family_is_counted_only_when_the_first_choice_is_no_guess_among_many() -> None:
    # Danish 0.08 and its family 0.3: a flat ranking, English close behind
    assert _decide([("da", 0.08), ("en", 0.07), ("no", 0.07), ("nn", 0.07), ("sv", 0.06)]) == "en"


@pytest.mark.parametrize(
    "text",
    [
        "A Dra. Lenz concorda: primeiro o SO2, engarrafamento depois.",
        "Lenz concorda: primeiro o SO2, engarrafamento depois.",  # Galician 0.69, Portuguese 0.29
        "Primeiro o SO2, depois o engarrafamento.",
    ],
)
def test_short_european_portuguese_ranked_galician_first_is_portuguese(text: str) -> None:
    assert detect(text[text.index("Lenz") :] if text.startswith("A Dra.") else text) == "pt"
    c = compile_assertion(CONSENSUS).check(text, LENZ)
    assert c.outcome is not CheckOutcome.UNDETERMINED, c.reason


@pytest.mark.parametrize(
    "text",
    [
        # twins: Galician, with words Portuguese does not write ("dacordo", "despois")
        "A doutora Lenz está dacordo: primeiro o SO2.",
        "Lenz está dacordo: primeiro o SO2.",  # Portuguese close behind (0.32 of 0.64)
        "A doutora Lenz concorda: primeiro o SO2, engarrafamento despois.",
    ],
)
def test_short_galician_stays_galician(text: str) -> None:
    assert detect(text) == "gl"
    c = compile_assertion(CONSENSUS).check(text, LENZ)
    assert c.outcome is CheckOutcome.UNDETERMINED, c.reason
