"""A change of band the answer's speakers made ("we moved from OPEN to RESTRICT") (issue 25).

A held-out examiner found "Passámos de OPEN para RESTRICT depois da inspeção" failed as a range
(neither band named): the tables knew the change verbs in the third person only. The first person
and other common forms now make a change in each language, so the band it ends in is the verdict.
Twins: a range with no verb of change, and a change still to come, name none.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LABELS = ("OPEN", "RESTRICT", "CLOSE")
BRIDGE = CaseContext(
    context={"report": "Rating factor 0.42 on girder G3."}, question="Status?", labels=LABELS
)
RESTRICT = compile_assertion(Assertion(type="label", value="RESTRICT", labels=list(LABELS)))
P, F = CheckOutcome.PASS, CheckOutcome.FAIL

CASES = [
    ("pt", "Passámos de OPEN para RESTRICT depois da inspeção de 28 de janeiro.", P),
    ("pt", "Mudámos de OPEN para RESTRICT após a inspeção.", P),
    ("it", "Siamo passati da OPEN a RESTRICT dopo l'ispezione.", P),
    ("de", "Wir sind von OPEN auf RESTRICT gegangen.", P),
    ("es", "De OPEN a RESTRICT: lo cambiamos ayer tras la inspección.", P),
    ("nl", "We zijn van OPEN naar RESTRICT gegaan na de inspectie.", P),
    ("en", "We went from OPEN to RESTRICT after the inspection.", P),
    # twins: a range, a change still to come
    ("es", "De OPEN a RESTRICT según el tráfico.", F),
    ("pt", "Vamos passar de OPEN para RESTRICT na próxima semana.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_change_we_made_names_the_band_it_ends_in(lang: str, answer: str, expected: CheckOutcome) -> None:
    assert RESTRICT.check(answer, BRIDGE).outcome is expected
