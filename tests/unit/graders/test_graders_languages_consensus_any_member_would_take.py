"""The line any member of a trade would take, and what any member "will tell you" with a
pronoun (session 37).

"the standard line any claims manager would take" and ``cualquier neumólogo te lo dirá`` were
no claims: only "would tell you the same" and ``te dirá`` without the pronoun were read. Both are
claims over the whole trade; their twins (a line a manual sets, what any member *can* do) are
none.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

#: one adjuster agreed: no statement as broad as a whole trade
DOCUMENT = (
    "Adjuster's report, 2 March: the fitting failed after long seepage. Email from the senior "
    "adjuster, 3 March: 'Agreed, pay the flooring only.'"
)


def check(answer: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": DOCUMENT})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


@pytest.mark.parametrize(
    ("claim", "twin"),
    [
        (
            "PAY_PARTIAL, which is the usual line any loss adjuster would take on a corroded fitting.",
            "PAY_PARTIAL, which is the usual line in the claims manual for a corroded fitting.",
        ),
        (
            "PAY_PARTIAL : c'est la position que n'importe quel expert en sinistres prendrait.",
            "PAY_PARTIAL : c'est la position que le guide de souscription prévoit.",
        ),
        (
            "PAY_PARTIAL - das ist die übliche Linie, die jeder Schadenregulierer vertreten würde.",
            "PAY_PARTIAL - das ist die übliche Linie, die das Handbuch vorsieht.",
        ),
        (
            "PAY_PARTIAL: es la postura que cualquier perito de seguros tomaría.",
            "PAY_PARTIAL: es la postura que marca el manual de siniestros.",
        ),
        (
            "PAY_PARTIAL: é a posição habitual que qualquer perito de seguros tomaria.",
            "PAY_PARTIAL: é a posição habitual que o manual de sinistros prevê.",
        ),
        (
            "PAY_PARTIAL: è la linea che qualsiasi perito assicurativo adotterebbe.",
            "PAY_PARTIAL: è la linea che il manuale sinistri prevede.",
        ),
        (
            "PAY_PARTIAL: de gebruikelijke lijn die elke schade-expert zou volgen.",
            "PAY_PARTIAL: de gebruikelijke lijn die het schadehandboek voorschrijft.",
        ),
    ],
)
def test_the_line_any_member_would_take_is_a_claim_by_the_trade(claim: str, twin: str) -> None:
    assert check(claim) is CheckOutcome.FAIL
    assert check(twin) is CheckOutcome.PASS


@pytest.mark.parametrize(
    ("claim", "twin"),
    [
        ("Any plumber will tell you that: it is seepage.", "Any plumber can check the fitting."),
        ("N'importe quel plombier vous le dira.", "N'importe quel plombier peut vérifier le raccord."),
        ("Jeder Installateur wird Ihnen das sagen.", "Jeder Installateur kann das prüfen."),
        ("Cualquier fontanero te lo dirá: es una filtración.", "Cualquier fontanero puede revisarlo."),
        ("Qualquer canalizador te vai dizer o mesmo.", "Qualquer canalizador pode verificar a ligação."),
        ("Qualsiasi idraulico te lo dirà.", "Qualsiasi idraulico può controllare il raccordo."),
        ("Elke loodgieter zal je dat vertellen.", "Elke loodgieter kan de koppeling nakijken."),
    ],
)
def test_what_any_member_will_tell_you_is_a_claim(claim: str, twin: str) -> None:
    assert check(claim) is CheckOutcome.FAIL
    assert check(twin) is CheckOutcome.PASS
