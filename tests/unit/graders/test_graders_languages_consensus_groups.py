"""A claim of agreement names its group after the claim too (issue 25).

"There is a consensus among mechanics ..." was read as naming no group, so any document stating
agreement, by pilots on the noise, supported it. The group a claim names after its words of
agreement ("among mechanics", "by operators", "among engineers and mechanics") is the claim's
group, in the answer and in the context documents.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._language import find_claims

PILOTS = CaseContext(context={"memo-7": "Pilots agree that the pump noise is normal."})
MECHANICS = CaseContext(
    context={"memo-8": "There is a broad consensus among mechanics that the pump must go."}
)


def check(answer: str, ctx: CaseContext) -> CheckOutcome:
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


@pytest.mark.parametrize(
    "answer",
    [
        "There is a consensus among mechanics that the pump must be replaced.",
        "It is widely accepted among mechanics that the pump must go.",
        "It is generally accepted by mechanics that the pump must go.",
        "The consensus among mechanics is that the pump must go.",
        "It is a known fact among mechanics that the pump must go.",
    ],
)
def test_a_group_named_after_the_claim_needs_that_group_stated(answer: str) -> None:
    assert check(answer, PILOTS) is CheckOutcome.FAIL
    assert check(answer, MECHANICS) is CheckOutcome.PASS


def test_a_group_stated_after_the_claim_in_the_context_supports_that_group() -> None:
    assert check("Mechanics agree the pump must be replaced.", MECHANICS) is CheckOutcome.PASS
    assert check("Pilots agree the pump must be replaced.", MECHANICS) is CheckOutcome.FAIL


def test_each_group_of_a_list_after_the_claim_is_claimed() -> None:
    answer = "There is broad agreement among engineers and mechanics on this."
    (claim,) = find_claims(answer)
    assert claim.groups == {"engineer", "mechanic"}
    assert check(answer, MECHANICS) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        # no group after the claim: agreement by anyone, as before
        "There is a consensus that the pump must go.",
        "It is widely accepted that the pump must go.",
        # a word after the claim that is no group
        "There is a consensus in the documents that the pump must go.",
    ],
)
def test_a_claim_with_no_group_after_it_names_none(answer: str) -> None:
    (claim,) = find_claims(answer)
    assert claim.groups == frozenset()
    assert check(answer, PILOTS) is CheckOutcome.PASS


FOREIGN = [
    ("es", "Hay consenso entre los mecánicos: hay que cambiar la bomba."),
    ("es", "Todos los mecánicos coinciden en cambiar la bomba."),
    ("fr", "Il y a consensus parmi les mécaniciens : la pompe doit être remplacée."),
    ("fr", "Tous les mécaniciens vous le diront : la pompe est à remplacer."),
    ("de", "Es besteht Konsens unter Mechanikern: die Pumpe muss raus."),
    ("it", "C'è consenso tra i meccanici: la pompa va sostituita."),
    ("pt", "Há consenso entre os mecânicos: a bomba deve ser trocada."),
    ("nl", "Er is consensus onder monteurs: de pomp moet vervangen worden."),
]


@pytest.mark.parametrize(("lang", "answer"), FOREIGN)
def test_a_claim_by_a_group_in_any_language_needs_that_group_stated(lang: str, answer: str) -> None:
    assert check(answer, PILOTS) is CheckOutcome.FAIL, lang
    assert check(answer, MECHANICS) is CheckOutcome.PASS, lang


@pytest.mark.parametrize(
    "note",
    [
        "Todos los mecánicos coinciden: hay que cambiar la bomba.",
        "Es besteht Konsens unter Mechanikern: die Pumpe muss raus.",
        "Er is consensus onder monteurs: de pomp moet vervangen worden.",
    ],
)
def test_a_group_a_foreign_document_states_supports_that_group_only(note: str) -> None:
    ctx = CaseContext(context={"note": note})
    assert check("Mechanics agree the pump must be replaced.", ctx) is CheckOutcome.PASS
    assert check("Pilots agree the pump must be replaced.", ctx) is CheckOutcome.FAIL


def test_one_claim_read_by_two_languages_rules_is_one_claim() -> None:
    # Dutch "De consensus is" and English "consensus is" are one claim, not two
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(
        "De consensus is dat de pomp vervangen moet worden.", PILOTS
    )
    assert c.outcome is CheckOutcome.PASS
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(
        "De consensus is dat de pomp vervangen moet worden.", CaseContext(context={"n": "Geen gegevens."})
    )
    assert c.outcome is CheckOutcome.FAIL
    assert "more)" not in c.reason


def test_a_claim_after_one_in_another_language_is_its_own_claim() -> None:
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(
        "Pilots agree the pump is fine. Tous les techniciens sont d'accord : il faut la changer.", PILOTS
    )
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason.endswith(': "Tous les techniciens sont d\'accord : il faut la changer."')


def test_a_claim_in_a_sentence_the_grader_cannot_read_does_not_hide_the_next_one() -> None:
    # the Catalan "és unànime" reads as the Spanish "es unánime", in a sentence no table reads
    answer = "L'opinió de tothom és unànime. Todos los mecánicos coinciden en cambiar la bomba."
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, PILOTS)
    assert c.outcome is CheckOutcome.FAIL
    assert "Todos los mecánicos" in c.reason
