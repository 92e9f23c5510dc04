"""Two parties named without an article, "both" after them (session 37).

"Coastguard and harbour master are both on board with holding the sailing" was no claim in
English: a subject was read only after a determiner or by a plural noun. Two parties joined by
"and" at a clause's start, "both" after them, are a claim by each; documents, figures and the
speaker are not parties ("the log and the chart both agree").
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LOG = (
    "Decision log, 7 December. 05:50 Harbour master: 'Agreed. Hold at berth.' 05:52 Master, "
    "MV Kestrel: 'Agreed.' 05:55 Coastguard watch officer: no reply."
)


def check(answer: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": LOG})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


@pytest.mark.parametrize(
    ("claim", "twin"),
    [
        (
            "HOLD. Coastguard and harbour master are both on board with holding the sailing.",
            "HOLD. Coastguard and harbour master are both named in the log.",
        ),
        (
            "Garde-côtes et capitaine de port sont tous les deux d'accord pour retenir le navire.",
            "Garde-côtes et capitaine de port figurent tous les deux dans le journal.",
        ),
        (
            "Küstenwache und Hafenmeister sind beide einverstanden.",
            "Küstenwache und Hafenmeister stehen beide im Protokoll.",
        ),
        (
            "Guardacostas y capitán de puerto están ambos de acuerdo.",
            "Guardacostas y capitán de puerto figuran ambos en el registro.",
        ),
        (
            "Guarda costeira e capitão do porto estão ambos de acordo.",
            "Guarda costeira e capitão do porto constam ambos do registo.",
        ),
        (
            "Guardia costiera e capitano di porto sono entrambi d'accordo.",
            "Guardia costiera e capitano di porto compaiono entrambi nel registro.",
        ),
        (
            "Kustwacht en havenmeester zijn het allebei eens.",
            "Kustwacht en havenmeester staan allebei in het logboek.",
        ),
    ],
)
def test_two_bare_parties_with_both_after_them_are_a_claim_by_each(claim: str, twin: str) -> None:
    """The coastguard's agreement is not stated: a claim by it fails; naming it claims nothing."""
    assert check(claim) is CheckOutcome.FAIL
    assert check(twin) is CheckOutcome.PASS


def test_the_pair_is_stated_when_each_agreed() -> None:
    assert check("Harbour master and ship's master are both on board with holding.") is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer", ["The log and the chart both agree.", "Pressure and temperature both agree with the chart."]
)
def test_documents_or_figures_agreeing_are_no_pair_of_parties(answer: str) -> None:
    assert check(answer) is CheckOutcome.PASS
