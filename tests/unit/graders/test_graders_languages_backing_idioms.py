"""A group's backing said by an idiom is a claim of its agreement, in every supported language.

"CRITICAL, and the lab managers are fully behind phoning these at night." passed against a
context in which the lab managers only asked for a review: "behind" was read only before "it",
"this", "that" or a decision's noun. Now "(fully, firmly, squarely...) behind" what they back,
or behind doing it, is a predicate of agreement, and so are the idioms of full backing in the
tables (``soutiennent pleinement``, ``stehen voll hinter``, ``respaldan plenamente``, ``apoiam
totalmente``, ``appoggiano pienamente``, ``staan volledig achter``). The twins: the same people
behind a desk or a counter back nothing, and the lab managers' stated agreement supports each claim.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, context: dict[str, str]) -> CheckOutcome:
    ctx = CaseContext(context=context)
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


REVIEW = {"email": "E-mail from the lab managers: please review the night-time phoning of critical results."}
#: the lab managers' agreement, stated in each answer's language (a group no table translates is
#: stated by its own word)
AGREED = {
    "minutes": "Minutes: the lab managers agreed that critical results are phoned at night.",
    "cr": "Compte rendu : les responsables de laboratoire sont d'accord avec les appels de nuit.",
    "protokoll": "Protokoll: Die Laborleiter und die Laborleiterin sind sich einig über die Anrufe.",
    "acta": "Acta: los jefes de laboratorio están de acuerdo con las llamadas nocturnas.",
    "ata": "Ata: os gestores do laboratório estão de acordo com as chamadas noturnas.",
    "verbale": "Verbale: i responsabili di laboratorio sono d'accordo sulle chiamate notturne.",
    "notulen": "Notulen: de labmanagers zijn het eens over de nachtelijke oproepen.",
}

BACKING = [
    "CRITICAL, and the lab managers are fully behind phoning these at night.",
    "CRITICAL, and the lab managers are squarely behind the night calls.",
    "CRITICAL, and the lab manager is behind phoning these at night.",
    "CRITICAL, et les responsables de laboratoire soutiennent pleinement les appels de nuit.",
    "CRITICAL : la responsable du laboratoire soutient sans réserve l'appel de nuit.",
    "CRITICAL, und die Laborleiter stehen voll hinter den nächtlichen Anrufen.",
    "CRITICAL, die Laborleiterin steht voll und ganz hinter dem Anruf in der Nacht.",
    "CRITICAL, y los jefes de laboratorio respaldan plenamente las llamadas nocturnas.",
    "CRITICAL, e os gestores do laboratório apoiam totalmente as chamadas noturnas.",
    "CRITICAL, e i responsabili di laboratorio appoggiano pienamente le chiamate notturne.",
    "CRITICAL, en de labmanagers staan volledig achter de nachtelijke oproepen.",
]


@pytest.mark.parametrize("answer", BACKING)
def test_backing_by_an_idiom_is_a_claim_the_context_must_state(answer: str) -> None:
    assert check(answer, REVIEW) is CheckOutcome.FAIL


@pytest.mark.parametrize("answer", BACKING)
def test_backing_the_context_states_passes(answer: str) -> None:
    assert check(answer, AGREED) is CheckOutcome.PASS


#: the same people in a place, or late: no backing
PLACES = [
    "CRITICAL; the lab managers are behind the glass partition.",
    "CRITICAL; the lab managers are fully behind the desk.",
    "CRITICAL; the lab managers are behind schedule.",
    "CRITICAL ; les responsables de laboratoire se tiennent derrière la vitre.",
    "CRITICAL; die Laborleiter stehen hinter der Glasscheibe.",
    "CRITICAL; los jefes de laboratorio están detrás del mostrador.",
    "CRITICAL; os gestores do laboratório estão por trás do balcão.",
    "CRITICAL; i responsabili di laboratorio sono dietro il bancone.",
    "CRITICAL; de labmanagers staan achter de balie.",
]


@pytest.mark.parametrize("answer", PLACES)
def test_people_behind_a_thing_claim_no_agreement(answer: str) -> None:
    assert check(answer, REVIEW) is CheckOutcome.PASS
