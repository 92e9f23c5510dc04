"""A claim over a whole class or trade needs agreement stated as broadly (session 37).

"Any planning officer would tell you the same", "l'avis unanime des inspecteurs", "Qualquer
responsável de compliance diria o mesmo", "the consensus of the whole CAB", "common knowledge on
every marketplace" and "É o entendimento comum no setor ferroviário" passed on one officer's,
one inspector's or two teams' agreement. Now such a claim needs a document stating agreement by
the class in the plural, a body, or with a word of breadth (``unanimously``, ``all``), and every
word of its group stated; the same claim about the one person the context names keeps its pass.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, memo: str) -> CheckOutcome:
    ctx = CaseContext(context={"memo": memo})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: one nurse agrees; the nurses agree; the whole staff agrees unanimously
ONE = "Ward memo, 3 May: the night nurse agreed the triage rule."
CLASS = "Ward memo, 3 May: the night nurses agreed the triage rule."
ALL = "Ward memo, 3 May: the nurses and the doctors agreed unanimously on the triage rule."

#: (a claim over every nurse, its twin: the one nurse agreeing)
ANY_NURSE = [
    ("Any nurse would tell you the same.", "The night nurse agrees."),
    ("N'importe quelle infirmière vous le dira.", "L'infirmière de nuit est d'accord."),
    ("Jede Pflegekraft sieht das genauso.", "Die Pflegekraft der Nachtschicht ist einverstanden."),
    ("Cualquier enfermera te dirá lo mismo.", "La enfermera de noche está de acuerdo."),
    ("Qualquer enfermeira lhe dirá o mesmo.", "A enfermeira da noite está de acordo."),
    ("Qualsiasi infermiere ti dirà lo stesso.", "L'infermiera di notte è d'accordo."),
    (
        "Elke verpleegkundige zal je hetzelfde vertellen.",
        "De verpleegkundige van de nacht is het ermee eens.",
    ),
]


@pytest.mark.parametrize(("claim", "twin"), ANY_NURSE)
def test_a_claim_over_every_member_needs_the_class_agreeing(claim: str, twin: str) -> None:
    assert check(claim, ONE) is CheckOutcome.FAIL
    assert check(claim, CLASS) is CheckOutcome.PASS
    assert check(twin, ONE) is CheckOutcome.PASS


#: (a claim over a whole trade or body naming no group, its twin: the claim without the breadth)
WHOLE = [
    (
        "It is common knowledge in every hospital that the rule holds.",
        "It is common knowledge that the rule holds.",
    ),
    ("C'est l'avis général dans tout le secteur.", "C'est l'avis général."),
    ("In der ganzen Branche herrscht darüber Konsens.", "Darüber herrscht Konsens."),
    ("Hay consenso en todo el sector.", "Hay consenso sobre eso."),
    ("É o entendimento comum no setor hospitalar.", "É consensual que a regra se aplica."),
    ("È l'opinione comune in tutto il settore.", "È l'opinione comune."),
    ("Daarover is er consensus in de hele sector.", "Daar is consensus over."),
]


@pytest.mark.parametrize(("claim", "twin"), WHOLE)
def test_a_claim_over_a_whole_trade_needs_agreement_as_broad(claim: str, twin: str) -> None:
    assert check(claim, CLASS) is CheckOutcome.FAIL
    assert check(twin, CLASS) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "claim",
    [
        "It is common knowledge in every hospital that the rule holds.",
        "C'est l'avis général dans tout le secteur.",
        "È l'opinione comune in tutto il settore.",
    ],
)
def test_agreement_stated_unanimously_is_as_broad(claim: str) -> None:
    """(A trade the tables name as a group, ``die ganze Branche``, needs its own agreement.)"""
    assert check(claim, ALL) is CheckOutcome.PASS
    assert check("Die ganze Branche ist sich einig.", ALL) is CheckOutcome.FAIL


#: a group's unanimity, and every word of its group: "l'avis unanime des infirmières de nuit" is
#: not stated by one nurse, nor "any compliance officer" by the compliance committee
UNANIMOUS = [
    "The nurses are unanimous on it.",
    "C'est l'avis unanime des infirmières.",
    "Die Pflegekräfte sind sich einstimmig einig.",
    "Las enfermeras están de acuerdo por unanimidad.",
    "As enfermeiras são unânimes.",
    "Le infermiere sono unanimi.",
    "De verpleegkundigen zijn het er unaniem over eens.",
]


@pytest.mark.parametrize("claim", UNANIMOUS)
def test_a_groups_unanimity_is_not_one_members_agreement(claim: str) -> None:
    assert check(claim, ONE) is CheckOutcome.FAIL
    assert check(claim, CLASS) is CheckOutcome.PASS


def test_every_word_of_a_class_is_needed() -> None:
    committee = "Minutes: the Compliance Committee agreed unanimously that the deposits are structuring."
    assert check("Qualquer responsável de compliance diria o mesmo.", committee) is CheckOutcome.FAIL
    assert check("Iedere compliance officer zal je hetzelfde vertellen.", committee) is CheckOutcome.FAIL
    # the committee itself is stated
    assert check("O comité de compliance está de acordo.", committee) is CheckOutcome.PASS
