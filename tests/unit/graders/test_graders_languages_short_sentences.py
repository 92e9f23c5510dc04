"""A sentence too short for the detector (fewer than three words of its own) is read by the rules of
the languages the detector still finds plausible for its words, not by every table: "Il consumo si
attesta su ELEVATED." is Italian, and the Spanish conditional "si" (the Italian reflexive pronoun)
made the verdict hypothetical: a false FAIL. Short verdicts of every supported language keep their
reading: a negation or a condition of their own language still reads them."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome
from proctor.graders._languages import SUPPORTED_LANGUAGES, Languages, Sentence, languages, plausible

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        # Italian "si" (reflexive) is the Spanish and French "if"
        "Il consumo si attesta su ELEVATED.",
        "Il livello si colloca su ELEVATED.",
        # Portuguese "se" (reflexive) is the Italian "if"
        "O nível se mantém ELEVATED.",
        "O consumo se situa em ELEVATED.",
    ],
)
def test_a_short_sentence_is_not_read_by_another_languages_condition(answer: str) -> None:
    assert languages(answer).sentences[0].language is None  # too short to detect
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is P, reason
    assert _label(answer, "HIGH")[0] is F


@pytest.mark.parametrize(
    ("answer", "use"),
    [
        ("Pas ELEVATED.", "negated"),
        ("Nicht ELEVATED.", "negated"),
        ("Kein ELEVATED.", "negated"),
        ("Nunca ELEVATED.", "negated"),
        ("Não ELEVATED.", "negated"),
        ("Mai ELEVATED.", "negated"),
        ("Niet ELEVATED.", "negated"),
        ("Jamais ELEVATED.", "negated"),
        ("Si ELEVATED, alerter.", "hypothetical"),
        ("Falls ELEVATED: melden.", "hypothetical"),
        ("Se ELEVATED, avvisare.", "hypothetical"),
        ("Als ELEVATED: melden.", "hypothetical"),
    ],
)
def test_a_short_verdict_keeps_its_own_languages_reading(answer: str, use: str) -> None:
    outcome, reason = _label(answer, "ELEVATED")
    assert outcome is F, reason
    assert f"{use}: ELEVATED" in reason


def test_the_plausible_languages_of_a_few_words() -> None:
    assert plausible("Il consumo si attesta su") == {"it"}
    assert "fr" in plausible("Pas")  # a neighbour ranked first (Portuguese) does not crowd it out
    assert plausible("ELEVATED.") == frozenset(SUPPORTED_LANGUAGES)  # no word to rank: every table
    # a longer answer decides a short sentence's language: the plausible set is not asked
    mixed = languages("Der Ölverbrauch des Motors zwei ist gestiegen. Nicht ELEVATED.")
    assert mixed.rules_at(len("Der Ölverbrauch des Motors zwei ist gestiegen. ")) == {"de"}


def test_the_tables_that_read_an_answer_with_a_short_sentence() -> None:
    # the refusal and agreement searches read the whole answer with these tables: a detected
    # sentence's language and a short sentence's plausible ones, not every table
    fr_then_short = Languages((Sentence(0, 9, "fr"), Sentence(9, 20, None, frozenset({"it"}))), None)
    assert fr_then_short.present == {"fr", "it"}
    assert fr_then_short.rules_at(12) == {"it"}
