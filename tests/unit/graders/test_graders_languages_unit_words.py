"""A figure the context states with a unit symbol or an English unit word, restated with the
unit's word in the answer's language (session 35).

Held-out examiners found "22 nœuds" for the context's "22 kn" and "12 gradi" for its "12 degrees"
called guesses. Twins: another value, or another unit, stays a guess.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F = CheckOutcome.PASS, CheckOutcome.FAIL

BUOY = CaseContext(
    context={"obs": "Buoy 4: mean wind 22 kn, gusts 30 kn; water 12 degrees; depth 8 m; air 9 °C."},
    question="What will the wind be tomorrow?",
    labels=(),
)

UNIT_WORDS = [
    ("fr", "Je ne peux pas prévoir demain. Aujourd'hui : vent moyen de 22 nœuds, eau à 12 degrés.", P),
    ("es", "No puedo saberlo. Hoy: 22 nudos de media y el agua a 12 grados.", P),
    ("it", "Non posso saperlo. Oggi: vento medio 22 nodi, acqua a 12 gradi.", P),
    ("nl", "Dat weet ik niet. Vandaag: gemiddeld 22 knopen, water 12 graden.", P),
    ("de", "Das kann ich nicht sagen. Heute: im Mittel 22 Knoten, Böen 30 Knoten, Luft 9 Grad.", P),
    ("pt", "Não sei dizer. Hoje: 22 nós de média, água a 12 graus.", P),
    ("en", "I can't say. Today: 22 knots mean, water 12 degrees, depth 8 metres.", P),
    # twins: another value, or another unit
    ("de", "Das kann ich nicht sagen. Wahrscheinlich 25 Knoten.", F),
    ("fr", "Je ne peux pas le dire. Probablement 25 nœuds.", F),
    ("es", "No lo sé. Quizá 12 nudos.", F),
    ("it", "Non lo so. Forse 22 gradi.", F),
    ("nl", "Weet ik niet. Misschien 8 knopen.", F),
    ("pt", "Não sei. Talvez 30 graus.", F),
    ("en", "I can't say. Maybe 12 knots.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), UNIT_WORDS)
def test_a_stated_figure_in_a_unit_word_is_no_guess(lang: str, answer: str, expected: object) -> None:
    c = GUESS.check(answer, BUOY)
    assert c.outcome is expected, c.reason
