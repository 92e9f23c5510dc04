"""A band someone else gave that the answer then disputes ("The committee rated it HIGH, but I
disagree: MEDIUM"), one others would argue for ("though some analysts might argue for HIGH"),
or one the answer will not give ("I wouldn't rate it HIGH", "No lo calificaría de HIGH") is not
the answer's verdict, in every supported language. A rating reported, or agreed with, is
(``_lexicon``'s ``rating_verbs``, ``disowned_before``, ``disputed_after``; ``_language``'s
rating verbs and disputes)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
RISK = ["LOW", "MEDIUM", "HIGH"]


@pytest.mark.parametrize(
    "answer",
    [
        # disputed
        "The committee rated it HIGH, but I disagree: MEDIUM.",
        "Der Ausschuss hat es als HIGH eingestuft, aber ich sehe das anders: MEDIUM.",
        "Le comité l'a classé HIGH, mais je ne suis pas d'accord : MEDIUM.",
        "El comité lo calificó de HIGH, pero no estoy de acuerdo: MEDIUM.",
        "O comitê classificou como HIGH, mas discordo: MEDIUM.",
        "Il comitato l'ha classificato HIGH, ma non sono d'accordo: MEDIUM.",
        "De commissie gaf het HIGH, maar daar ben ik het niet mee eens: MEDIUM.",
        # argued for by others
        "I'd say MEDIUM, though some analysts might argue for HIGH.",
        "MEDIUM, aunque algunos analistas defenderían HIGH.",
        "MEDIUM, embora alguns analistas defendessem HIGH.",
        "MEDIUM, al zouden sommige analisten voor HIGH pleiten.",
        # refused
        "I wouldn't rate it HIGH. MEDIUM.",
        "I wouldn't call it HIGH; MEDIUM.",
        "Als HIGH würde ich es nicht einstufen; eher MEDIUM.",
        "No lo calificaría de HIGH; más bien MEDIUM.",
        "Não o classificaria como HIGH; mais para MEDIUM.",
        "Non lo definirei HIGH; piuttosto MEDIUM.",
        "HIGH zou ik het niet noemen; veeleer MEDIUM.",
        "I wouldn't go as far as HIGH. MEDIUM.",
        "I'm not comfortable calling it HIGH; MEDIUM.",
        "No me atrevería a decir HIGH; MEDIUM.",
        "Je n'irais pas jusqu'à HIGH ; MEDIUM.",
        # too strong a word for the case
        "HIGH would be too harsh; MEDIUM.",
        "Calling it HIGH would overstate it; MEDIUM.",
        # others' word, then the answer's own
        "The vendor's tool flags it HIGH; I think that overstates it. MEDIUM.",
        "Le rapport dit HIGH, je dirais plutôt MEDIUM.",
        "Certains parleraient de HIGH ; pour moi, c'est MEDIUM.",
        "Manche würden HIGH sagen, ich sage MEDIUM.",
        "Qualcuno direbbe HIGH; io direi MEDIUM.",
        "Sommigen zouden HIGH zeggen; ik zeg MEDIUM.",
    ],
)
def test_a_band_disputed_argued_by_others_or_refused_is_not_the_verdict(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P and "negated: HIGH" in reason, reason
    assert _label(answer, "HIGH", RISK)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        "The committee rated it HIGH, and I agree.",
        "The committee rated it HIGH.",
        "Der Ausschuss hat es als HIGH eingestuft, und ich stimme zu.",
        "Le comité l'a classé HIGH, et je suis d'accord.",
        "El comité lo calificó de HIGH, y estoy de acuerdo.",
        "Il comitato l'ha classificato HIGH.",
        "De commissie gaf het HIGH, en daar ben ik het mee eens.",
        "Ich würde es HIGH nennen.",
        "Lo calificaría de HIGH.",
        "Lo definirei HIGH.",
        "I would go as far as HIGH.",
        "Ik zou HIGH zeggen.",
        "Io direi HIGH.",
        "Diría HIGH.",
        "The tool flags it HIGH; that is correct.",
        "HIGH is appropriate here.",
        "HIGH is too important a band to ignore.",
    ],
)
def test_a_rating_reported_or_agreed_with_names_its_band(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH", RISK)
    assert outcome is P, reason


def test_a_dispute_of_something_else_leaves_the_verdict_named() -> None:
    # the answer's own band, then a disagreement with others: still its verdict
    outcome, reason = _label("MEDIUM, but I disagree with the committee's reasoning.", "MEDIUM", RISK)
    assert outcome is P, reason
    # the answer's own rating, then a disagreement with someone else's reasoning
    outcome, reason = _label(
        "We rate it MEDIUM, but I disagree with the committee's reasoning.", "MEDIUM", RISK
    )
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # "antes" / "eerder" after a clause that negates a band is "rather", not "before"
        "Não o classificaria como HIGH; antes MEDIUM.",
        "No es HIGH; antes bien MEDIUM.",
        "Ik zou het niet HIGH noemen; eerder MEDIUM.",
        "HIGH zou ik het niet noemen, eerder MEDIUM.",
    ],
)
def test_rather_after_a_refused_band_names_the_band(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P and "negated: HIGH" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        # the same words after no negated band are "before": the band is past
        "Antes HIGH, agora MEDIUM.",
        "Eerder HIGH, nu MEDIUM.",
        "Het was niet duidelijk; eerder HIGH, nu MEDIUM.",
    ],
)
def test_before_a_band_with_no_negated_band_is_the_past(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P, reason


def test_before_after_a_band_not_negated_is_the_past() -> None:
    outcome, reason = _label("Gisteren HIGH; eerder MEDIUM, nu LOW.", "LOW", RISK)
    assert outcome is P, reason
    # and a word of the past that is never "rather" stays the past after a negated band
    outcome, reason = _label("Não é HIGH; ontem MEDIUM, hoje LOW.", "LOW", RISK)
    assert outcome is P, reason
