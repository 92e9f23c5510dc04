"""A person listed by role and name, whose agreement a document states under the role (session 37).

"Present: PSCO Marten, Master Silva, Chief Engineer Okafor. The Master agreed ..." named Silva
without crediting him, so "Master Silva agreed" was left undetermined. The role credits the
name only when one listed person holds it.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


DEBRIEF = (
    "Site debrief, 9 May. Present: {present}. The surveyor agreed that the crane base is cracked. "
    "The inspector asked for a second test."
)
ONE = "inspector Brandt, surveyor Nkemelu, foreman Hale"
#: the twin: two surveyors are listed, so the surveyor who agreed is not known
TWO = "inspector Brandt, surveyor Nkemelu, surveyor Hale"


@pytest.mark.parametrize(
    "answer",
    [
        "Nkemelu agreed that the crane base is cracked.",
        "Nkemelu est d'accord : le socle de la grue est fissuré.",
        "Nkemelu ist einverstanden: der Kranfuß ist gerissen.",
        "Nkemelu está de acuerdo en que la base de la grúa está agrietada.",
        "Nkemelu está de acordo que a base da grua está rachada.",
        "Nkemelu è d'accordo che la base della gru è incrinata.",
        "Nkemelu is het ermee eens dat de kraanvoet gescheurd is.",
    ],
)
def test_a_listed_role_credits_its_one_holder(answer: str) -> None:
    assert check(answer, DEBRIEF.format(present=ONE)) is CheckOutcome.PASS
    assert check(answer, DEBRIEF.format(present=TWO)) is not CheckOutcome.PASS
