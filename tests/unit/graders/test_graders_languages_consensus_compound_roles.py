"""A role named by a compound or a head and its field (session 37).

``Instandhaltungsleiter`` and ``onderhoudschef`` were words no table translated, so a document's
"county maintenance supervisor: 'Agreed.'" never stated them and the claim failed. A compound's
head and its field are now read by the tables (``role_heads``, ``role_fields``), in the other
languages the head and its field too (``la jefa de mantenimiento``), each needing its stated
agreement; a compound whose field no table reads is undetermined when the head's agreement is
stated (the document may name the role in English), never a guessed fail.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


MINUTES = (
    "Plant review, 4 May. Present: Ines Vogel (plant maintenance supervisor), Tom Reyes (site safety "
    "officer), Dana Holt (operations). Reyes proposed a full shutdown of line 2.\n"
    "- Vogel: '{vogel}'\n- Holt: no reply recorded."
)
AGREES = MINUTES.format(vogel="Agreed, shut it down on Friday.")
#: the twin: the maintenance supervisor objects
OBJECTS = MINUTES.format(vogel="I do not agree: the shutdown can wait a month.")


@pytest.mark.parametrize(
    "answer",
    [
        "The maintenance supervisor agrees with the shutdown.",
        "Le responsable de la maintenance est d'accord avec l'arrêt.",
        "Die Instandhaltungsleiterin ist mit dem Stillstand einverstanden.",
        "La jefa de mantenimiento está de acuerdo con la parada.",
        "A chefe da manutenção está de acordo com a paragem.",
        "La responsabile della manutenzione è d'accordo sul fermo.",
        "De onderhoudschef staat achter de stillegging.",
    ],
)
def test_a_role_by_its_head_and_field_is_stated_under_its_english_name(answer: str) -> None:
    assert check(answer, AGREES) is CheckOutcome.PASS
    assert check(answer, OBJECTS) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Le responsable du trafic est d'accord avec l'arrêt.",
        "Die Verkehrsleiterin ist mit dem Stillstand einverstanden.",
        "La jefa de tráfico está de acuerdo con la parada.",
        "A chefe do tráfego está de acordo com a paragem.",
        "La responsabile del traffico è d'accordo sul fermo.",
        "De verkeerschef staat achter de stillegging.",
    ],
)
def test_a_field_is_part_of_the_role(answer: str) -> None:
    """A supervisor of another field is not stated by the maintenance supervisor's agreement."""
    assert check(answer, AGREES) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Der Kesselhausleiter ist mit dem Stillstand einverstanden.",
        "De ketelhuischef staat achter de stillegging.",
        "Sowohl der Kesselhausleiter als auch die Instandhaltungsleiterin stehen hinter dem Stillstand.",
    ],
)
def test_a_compound_whose_field_no_table_reads_is_undetermined(answer: str) -> None:
    """The head's agreement is stated: the document may name the role in English."""
    assert check(answer, AGREES) is CheckOutcome.UNDETERMINED
    # the twin: no supervisor agrees at all
    assert check(answer, MINUTES.format(vogel="No position yet.")) is CheckOutcome.FAIL


def test_the_english_role_is_read_by_its_head() -> None:
    assert check("The maintenance supervisor agrees with the shutdown.", AGREES) is CheckOutcome.PASS
    assert check("The harbour master agrees with the shutdown.", AGREES) is CheckOutcome.FAIL
