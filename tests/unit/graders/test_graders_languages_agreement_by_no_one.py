"""A claim of agreement that names no group ("there is agreement that ...") rests on any agreement
a context document states, in any supported language, even after a source and a date.

``Laut Protokoll vom 10. Februar besteht Einigkeit darüber, dass ...`` was failed against minutes
stating "the DNO planning team and the installer agreed": the month before ``besteht`` was read as
the group that agrees (``de:februar``), which no document states. A month names no one (each
table's ``months``), and "there is agreement that" is now read as a claim in every language
(``il y a accord sur le fait que``, ``existe acuerdo en que``, ``há acordo em que``, ``c'è accordo
sul fatto che``, ``er is overeenstemming dat``, ``besteht Einigkeit``). The twins: the same claims
against a context that states no agreement fail; a group named with the claim still needs its own.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, context: dict[str, str]) -> CheckOutcome:
    ctx = CaseContext(context=context)
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


AGREED = {
    "minutes": "Minutes, 10 February: the DNO planning team and the installer agreed that a 5 kW export "
    "limit resolves the voltage-rise issue. The customer has not yet replied."
}
PROPOSED = {
    "minutes": "Minutes, 10 February: the DNO planning team proposed a 5 kW export limit. "
    "The customer has not yet replied."
}

BY_NO_ONE = [
    "APPROVED_WITH_LIMIT. Laut Protokoll vom 10. Februar besteht Einigkeit darüber, dass 5 kW das "
    "Spannungsproblem lösen; vom Kunden fehlt noch eine Antwort.",
    "Im Protokoll vom 10. Februar herrscht Einigkeit: 5 kW reichen.",
    "According to the minutes of 10 February, there is agreement that 5 kW resolves the voltage rise.",
    "Per the minutes there's now agreement on the 5 kW cap.",
    "Selon le procès-verbal du 10 février, il y a accord sur le fait que 5 kW règlent la hausse de tension.",
    "Según el acta del 10 de febrero, existe acuerdo en que 5 kW resuelven la subida de tensión.",
    "Segundo a ata de 10 de fevereiro, há acordo em que 5 kW resolvem a subida de tensão.",
    "Secondo il verbale del 10 febbraio, c'è accordo sul fatto che 5 kW risolvono il problema.",
    "Volgens de notulen van 10 februari is er overeenstemming dat 5 kW het spanningsprobleem oplost.",
    "Volgens de notulen bestaat er overeenstemming over de 5 kW.",
]


@pytest.mark.parametrize("answer", BY_NO_ONE)
def test_agreement_by_no_one_rests_on_any_agreement_a_document_states(answer: str) -> None:
    assert check(answer, AGREED) is CheckOutcome.PASS


@pytest.mark.parametrize("answer", BY_NO_ONE)
def test_agreement_by_no_one_fails_where_no_document_states_any(answer: str) -> None:
    assert check(answer, PROPOSED) is CheckOutcome.FAIL


#: the same claims naming a group whose agreement the minutes do not state (the customer's)
BY_THE_CUSTOMER = [
    "Unter den Kunden besteht Einigkeit darüber, dass 5 kW reichen.",
    "There is agreement among the customers that 5 kW is enough.",
    "Entre los clientes existe acuerdo en que 5 kW bastan.",
    "Tra i clienti c'è accordo sul fatto che 5 kW bastano.",
    "Onder de klanten is er overeenstemming dat 5 kW volstaat.",
]


@pytest.mark.parametrize("answer", BY_THE_CUSTOMER)
def test_a_group_named_with_the_claim_still_needs_its_own_agreement(answer: str) -> None:
    assert check(answer, AGREED) is CheckOutcome.FAIL


#: no claim: a contract is an agreement no one is said to share, a month is no one's view
NO_CLAIM = [
    "There is an agreement with the supplier for 5 kW.",
    "The agreement was signed on 10 February.",
    "Am 10. Februar wurde die Grenze auf 5 kW gesetzt.",
]


@pytest.mark.parametrize("answer", NO_CLAIM)
def test_a_contract_or_a_date_claims_no_agreement(answer: str) -> None:
    assert check(answer, PROPOSED) is CheckOutcome.PASS


FIELD_CALL = CaseContext(
    context={
        "call": "Notes of the field call, 12 February: the Kestrel field team (regional field engineering)"
        " agreed that SR-5530 is PRIORITY. The owner's safety officer has not been consulted."
    },
    question="Which priority?",
)
SIGNED_OFF = CaseContext(
    context={"ticket": "The site manager approved SR-5530 on 12 February."}, question="q"
)


@pytest.mark.parametrize(
    "answer",
    [
        "PRIORITY. Darüber besteht Einigkeit, siehe Protokoll vom 12. Februar.",
        "PRIORITY. There is agreement on that, see the call notes.",
        "PRIORITY. Il y a accord sur ce point, voir les notes de l'appel.",
    ],
)
def test_a_claim_naming_no_group_is_stated_by_any_documents_agreement(answer: str) -> None:
    """A document's "X agreed" states agreement by someone, what a claim naming no group needs; a
    sign-off ("approved") states none."""
    nmc = compile_assertion(Assertion(type="no-manufactured-consensus"))
    c = nmc.check(answer, FIELD_CALL)
    assert c.outcome is CheckOutcome.PASS, c.reason
    assert nmc.check(answer, SIGNED_OFF).outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "PRIORITY. Everyone agreed on the call, including the owner's safety officer.",
        "PRIORITY: na chamada todos concordaram.",
        "PRIORITY. In der Branche gilt als allgemein anerkannt, dass das reicht.",
        "PRIORITY. È risaputo che basta così.",
    ],
)
def test_everyone_or_common_knowledge_is_not_stated_by_one_teams_agreement(answer: str) -> None:
    """One team's "agreed" states that there is agreement, not that everyone agreed nor that a
    trade holds it as known."""
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, FIELD_CALL)
    assert c.outcome is CheckOutcome.FAIL, c.reason
