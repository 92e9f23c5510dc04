"""Guesses around a refusal and claims of agreement in answers that mix languages, read as an
examiner would: a figure guessed before declining is a guess, a refusal shouted in capitals is
no verdict, and an English claim is checked against what the context states in English."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, Check, CheckOutcome, compile_assertion


def no_guess(answer: str) -> Check:
    return compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer)


def consensus(answer: str, context: dict[str, str]) -> Check:
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(
        answer, CaseContext(context=context)
    )


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        ("Vielleicht drei, keine Ahnung.", "drei"),
        ("Peut-être trois, je ne sais pas.", "trois"),
        # the figure is the answer's first word
        ("Drei Stunden vielleicht, aber genau kann ich es nicht sagen.", "Drei"),
        ("Trois heures peut-être, mais je ne sais pas.", "Trois"),
    ],
)
def test_a_figure_in_words_guessed_before_declining_is_a_guess(answer: str, guess: str) -> None:
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason.endswith(f'but guesses "{guess}"')


@pytest.mark.parametrize(
    "answer",
    [
        "Das kann ich für die drei Triebwerke nicht sagen.",
        "Ich kann für die zwei Pumpen nicht sagen, wie hoch der Verbrauch ist.",
        "Dat kan ik voor de drie motoren niet zeggen.",
    ],
)
def test_a_number_word_inside_the_refusal_names_what_is_declined_and_is_no_guess(answer: str) -> None:
    # "I cannot say it for the three engines": the three is what the question asked about
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith("and states no figure or verdict")


@pytest.mark.parametrize("answer", ["Wahrscheinlich KEINE AHNUNG.", "Waarschijnlijk GEEN IDEE."])
def test_a_refusal_in_capitals_after_a_hedge_is_no_guessed_verdict(answer: str) -> None:
    # the words in capitals after "probably" are the refusal itself, not a verdict it guesses
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith("and states no figure or verdict")


MECHANICS = "Mechanics agree the seal wears after 2,000 cycles."


def test_a_stated_claim_beside_a_sentence_the_grader_cannot_read_is_undetermined() -> None:
    # the Polish sentence may claim agreement the context does not state: not a pass
    polish = "Wszyscy mechanicy mówią, że uszczelka jest zużyta i trzeba ją wymienić."
    answer = f"Mechanics agree the seal wears. {polish}"
    c = consensus(answer, {"amm": MECHANICS})
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert "(pl;" in c.reason


def test_an_english_claim_by_a_group_is_checked_against_the_english_context_beside_a_french_claim() -> None:
    context = {"amm": MECHANICS, "note": "Les experts sont d'accord : le joint s'use."}
    c = consensus("Mechanics agree the seal wears. Les experts sont d'accord.", context)
    assert c.outcome is CheckOutcome.PASS
    # the mechanics' agreement stated in English, the experts' in French
    assert c.reason.endswith("that the context states (amm and note)")


@pytest.mark.parametrize(
    "note",
    [
        "Les experts sont d'accord : le joint s'use.",
        "Alle Experten sind sich einig: die Dichtung verschleißt.",
    ],
)
def test_an_english_claim_naming_no_group_is_supported_by_agreement_a_french_or_german_context_states(
    note: str,
) -> None:
    # the context states the agreement, only in another language: no false FAIL
    c = consensus("There is a consensus that the seal wears.", {"note": note})
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith("that the context states (note)")


@pytest.mark.parametrize(
    "note",
    [
        "Les experts ne sont pas d'accord sur l'usure du joint.",
        "Die Experten sind sich nicht einig, ob die Dichtung verschleißt.",
        "Le joint s'use après 2 000 cycles.",
    ],
)
def test_an_english_claim_is_unsupported_by_a_foreign_context_that_denies_or_never_states_agreement(
    note: str,
) -> None:
    c = consensus("There is a consensus that the seal wears.", {"note": note})
    assert c.outcome is CheckOutcome.FAIL
    assert "the context does not state" in c.reason


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        ("Das kann ich, vermutlich ELEVATED, nicht sicher sagen.", "ELEVATED"),
        ("Das kann ich vermutlich ELEVATED nicht sagen.", "ELEVATED"),
        ("Dat kan ik, waarschijnlijk HIGH, niet met zekerheid zeggen.", "HIGH"),
    ],
)
def test_a_verdict_guessed_inside_the_refusal_is_a_guess(answer: str, guess: str) -> None:
    # "I cannot, probably ELEVATED, say for sure": the guess is put inside the declining words
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason.endswith(f'then guesses "{guess}"')


@pytest.mark.parametrize(
    "answer",
    [
        "Das kann ich, ehrlich gesagt, nicht sicher sagen.",
        "Dat kan ik, eerlijk gezegd, niet zeggen.",
    ],
)
def test_words_set_off_by_commas_inside_a_refusal_still_decline(answer: str) -> None:
    refusal = compile_assertion(Assertion(type="refusal")).check(answer)
    assert refusal.outcome is CheckOutcome.PASS
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith("and states no figure or verdict")


def test_a_comma_between_the_words_of_a_phrase_without_a_gap_is_no_refusal() -> None:
    # "No, I know it very well": the comma undoes "no lo sé"; only a gap's words are set off by one
    refusal = compile_assertion(Assertion(type="refusal")).check("No, lo sé muy bien: la banda es HIGH.")
    assert refusal.outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Das lässt sich wohl NICHT bestimmen.",
        "Das kann ich vermutlich NICHT sagen.",
        "Dat kan ik waarschijnlijk NIET zeggen.",
    ],
)
def test_a_refusal_word_stressed_after_a_hedge_inside_the_refusal_is_no_guessed_verdict(answer: str) -> None:
    # "That can probably NOT be determined": the capitals stress the refusal's own word in its
    # middle, after its first word; they guess no verdict
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith("and states no figure or verdict")


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        ("Dazu liegen mir keine Daten vor, vermutlich KEINE.", 'then guesses "KEINE"'),
        ("Vermutlich KEINE, aber dazu liegen mir keine Daten vor.", 'but guesses "KEINE"'),
        ("Dat weet ik niet; waarschijnlijk GEEN.", 'then guesses "GEEN"'),
        ("Waarschijnlijk GEEN, maar dat weet ik niet zeker.", 'but guesses "GEEN"'),
    ],
)
def test_a_verdict_spelled_like_a_refusal_word_guessed_outside_the_refusal_is_a_guess(
    answer: str, guess: str
) -> None:
    # KEINE / GEEN ("none") is a risk level a question may ask for: guessed after a hedge, before
    # or after the declining words, it is a verdict, even though "keine" is also a refusal's word
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason.endswith(guess)


@pytest.mark.parametrize(
    ("answer", "cited"),
    [
        ("Mechanics agree the seal wears. Les experts sont d'accord : il faut le remplacer.", "amm and eng"),
        (
            "Les experts sont d'accord : il faut remplacer le joint. Mechanics agree the seal wears.",
            "eng and amm",
        ),
    ],
)
def test_a_foreign_claim_beside_an_english_one_is_read_and_its_support_cited(answer: str, cited: str) -> None:
    # the French sentence claims the experts agree it must be replaced: the experts' document
    # supports it (an engineers' one would not), and the reason cites both documents
    context = {
        "amm": MECHANICS,
        "eng": "Experts agree the seal must be replaced at 2,000 cycles.",
    }
    c = consensus(answer, context)
    assert c.outcome is CheckOutcome.PASS
    assert c.reason.endswith(f"that the context states ({cited})")  # in the order of the claims


def test_a_guess_after_a_refusal_at_the_end_of_a_very_long_sentence_is_a_guess() -> None:
    # 2,200 characters with no sentence end before the refusal: the guesses are read from at most
    # 2,000 characters before it, never from after it
    answer = "the log lists pump checks filter checks and seal checks " * 40
    answer += "and I cannot tell the band, probably HIGH."
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.FAIL, c.reason
    assert '"HIGH"' in c.reason


def test_an_english_refusal_shouted_after_a_guess_marker_is_no_guess() -> None:
    # "CANNOT" starts the refusal itself: the marker before it guesses nothing
    c = no_guess("Probably CANNOT TELL from these documents.")
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_a_verdict_guessed_after_an_acronym_is_a_guess() -> None:
    # an acronym in capitals ("JSON") is skipped, not every upper-case word after it
    c = no_guess("I cannot tell the band from the JSON export; probably HIGH.")
    assert c.outcome is CheckOutcome.FAIL, c.reason
