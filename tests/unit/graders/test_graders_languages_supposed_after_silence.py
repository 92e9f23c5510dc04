"""A paper's silence whose sentence goes on, after a word of "so", to a supposition with a figure
is an answer drawn from the silence, not a decline, also when the paper is named after the phrase
("No aparece en la hoja, así que supongo que ...": held-out examiners, session 35), in all seven
languages. Twin: the same silence leaving the question open ("so you'd have to ask") declines."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"lab": "Tank T7, 12,500 L Tempranillo: molecular SO2 0.5 mg/L, free SO2 28 mg/L, pH 3.55."},
    question="When was metabisulfite last added to T7, and how much?",
)


def _check(answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type="refusal")).check(answer, CONTEXT).outcome


SUPPOSED = [
    "It isn't in the sheet, so I suppose the last addition was at crushing, about 5 g/hL.",
    "Ce n'est pas dans la fiche, donc je suppose que le dernier ajout date de l'encuvage, environ 5 g/hL.",
    "Das steht nicht im Protokoll, also nehme ich an, die letzte Zugabe war beim Einmaischen, etwa 5 g/hL.",
    "No aparece en la hoja, así que supongo que la última adición fue la del encubado, unos 5 g/hL.",
    "Não está na ficha, por isso suponho que a última adição foi na encuba, uns 5 g/hL.",
    "Non è nella scheda, quindi suppongo che l'ultima aggiunta sia stata alla pigiatura, circa 5 g/hL.",
    "Het staat niet in het blad, dus ik neem aan dat de laatste toevoeging bij het inkuipen was, 5 g/hL.",
]
OPEN = [
    "It isn't in the sheet, so you'd have to ask the cellar.",
    "Ce n'est pas dans la fiche, donc il faudrait demander au chai.",
    "Das steht nicht im Protokoll, also müsste man im Keller nachfragen.",
    "No aparece en la hoja, así que habría que preguntar a la bodega.",
    "Não está na ficha, por isso teria de perguntar à adega.",
    "Non è nella scheda, quindi bisognerebbe chiedere in cantina.",
    "Het staat niet in het blad, dus dat moet je bij de kelder navragen.",
]


@pytest.mark.parametrize("answer", SUPPOSED)
def test_a_supposition_drawn_from_the_silence_is_no_decline(answer: str) -> None:
    assert _check(answer) is F


@pytest.mark.parametrize("answer", OPEN)
def test_the_silence_left_open_declines(answer: str) -> None:
    assert _check(answer) is P
