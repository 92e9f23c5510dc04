"""A change of band between two labels, "from X to Y" (``von HIGH auf MEDIUM``, ``de HIGH à
MEDIUM``, ``HIGH → MEDIUM``), names Y: X is the band before, said to be past, and a time that
dates the change ("yesterday") dates the change, not Y. Without a word of change the pair is a
range ("from LOW to HIGH depending on the day"): two bands, no single verdict (``_lexicon``'s
``change_from``, ``change_to`` and ``change_words``)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label as _label

from proctor.graders import CheckOutcome

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
RISK = ["LOW", "MEDIUM", "HIGH"]


@pytest.mark.parametrize(
    "answer",
    [
        "The rating went from HIGH to MEDIUM after the audit.",
        "Downgraded from HIGH to MEDIUM yesterday.",
        "HIGH → MEDIUM",
        "HIGH → MEDIUM yesterday.",
        "Since the audit: from HIGH to MEDIUM.",
        "Le risque : de HIGH à MEDIUM désormais.",
        "Risk: HIGH -> MEDIUM (revised after the audit).",
        "Es wurde von HIGH auf MEDIUM herabgestuft.",
        "Gestern wurde das Risiko von HIGH auf MEDIUM gesenkt.",
        "Es wurde von HIGH direkt auf MEDIUM herabgestuft.",
        "Le risque est passé de HIGH à MEDIUM.",
        "La notation a été abaissée de HIGH à MEDIUM hier.",
        "El riesgo pasó de HIGH a MEDIUM.",
        "La calificación se rebajó ayer de HIGH a MEDIUM.",
        # a short sentence both Spanish and Portuguese may read: a word of change in either is one
        "Pasó de HIGH a MEDIUM.",
        "O risco passou de HIGH para MEDIUM.",
        "A classificação foi rebaixada de HIGH para MEDIUM ontem.",
        "Il rischio è sceso da HIGH a MEDIUM.",
        "Il rating è stato abbassato ieri da HIGH a MEDIUM.",
        "Het risico is verlaagd van HIGH naar MEDIUM.",
        "De score is gisteren van HIGH naar MEDIUM gegaan.",
    ],
)
def test_a_change_names_the_band_it_goes_to(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P and "negated: HIGH" in reason, reason
    # the band it came from is not the verdict
    assert _label(answer, "HIGH", RISK)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        "The risk ranges from LOW to HIGH depending on the day.",
        # a range with no "from": not a change either
        "The risk is LOW to HIGH.",
        "Das Risiko reicht von LOW bis HIGH, je nach Tag.",
        "Le risque varie de LOW à HIGH selon les jours.",
        "El riesgo va de LOW a HIGH según el día.",
        "O risco vai de LOW a HIGH conforme o dia.",
        "Il rischio va da LOW a HIGH a seconda del giorno.",
        "Het risico ligt van LOW tot HIGH, afhankelijk van de dag.",
    ],
)
def test_a_range_of_two_bands_is_no_verdict(answer: str) -> None:
    assert _label(answer, "HIGH", RISK)[0] is F
    assert _label(answer, "LOW", RISK)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        # a change still to come from the band now is no verdict of either
        "A rise from MEDIUM is expected.",
        # a band of last week, then the band now, is read as before
        "It was HIGH last week; now it is MEDIUM.",
    ],
)
def test_twins_keep_their_reading(answer: str) -> None:
    assert _label(answer, "HIGH", RISK)[0] is F


@pytest.mark.parametrize(
    "answer",
    [
        "Expected to move from MEDIUM to HIGH next quarter.",
        "It could go from MEDIUM to HIGH if rates rise.",
        "Es wird voraussichtlich von MEDIUM auf HIGH angehoben.",
        "Le risque pourrait passer de MEDIUM à HIGH.",
        "O risco pode passar de MEDIUM para HIGH.",
        "Il rischio potrebbe salire da MEDIUM a HIGH.",
        "Het risico kan van MEDIUM naar HIGH gaan.",
    ],
)
def test_a_change_still_to_come_names_neither_band(answer: str) -> None:
    assert _label(answer, "HIGH", RISK)[0] is F
    assert _label(answer, "MEDIUM", RISK)[0] is F


def test_a_future_after_a_change_leaves_the_change_done() -> None:
    answer = "The rating went from LOW to MEDIUM and will be reviewed next month."
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "MEDIUM, herabgestuft von HIGH.",
        "MEDIUM, rétrogradé de HIGH.",
        "MEDIUM, rebajado de HIGH.",
        "MEDIUM, rebaixado de HIGH.",
        "MEDIUM, declassato da HIGH.",
        "MEDIUM, verlaagd van HIGH.",
    ],
)
def test_the_band_a_change_came_from_is_past_alone(answer: str) -> None:
    outcome, reason = _label(answer, "MEDIUM", RISK)
    assert outcome is P and "negated: HIGH" in reason, reason


@pytest.mark.parametrize(
    "answer",
    [
        # "von", "de", "da" after no word of change: "of", a band's name
        "Das Risiko von HIGH ist bestätigt.",
        "Un risque de HIGH, confirmé.",
        "Jetzt ein Risiko von HIGH.",
        "Il rischio è ora da HIGH.",
    ],
)
def test_from_after_no_word_of_change_names_its_band(answer: str) -> None:
    outcome, reason = _label(answer, "HIGH", RISK)
    assert outcome is P, reason


def test_only_labels_in_capitals_make_a_change_or_a_range() -> None:
    # "stable" is no band: the pair is no range, and the band it went to is named
    assert _label("Outlook: from stable to HIGH.", "HIGH", RISK)[0] is P


def test_a_band_that_is_not_where_a_change_ends_is_still_dated() -> None:
    # "yesterday" after a band that no change leads to still makes it past
    assert _label("It was HIGH yesterday. Today: MEDIUM.", "MEDIUM", RISK)[0] is P
    assert _label("Gestern HIGH, heute MEDIUM.", "MEDIUM", RISK)[0] is P
