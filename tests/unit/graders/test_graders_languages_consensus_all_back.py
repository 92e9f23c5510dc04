"""A list of parties that "all back" a decision (session 37).

"The health department, the environment agency and the transport authority all back the rule"
was no claim in English ("back the" was not read, only "backs the"), nor "stehen alle hinter" in
German; and "all" after a list names those listed, not a whole class: each needs its own stated
agreement, and no more.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, minutes: str) -> CheckOutcome:
    ctx = CaseContext(context={"minutes": minutes})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


THREE = "Minutes, 3 June: the nurses, the doctors and the pharmacists agreed that the new rota stands."
#: the twin: the third party took no position
TWO = (
    "Minutes, 3 June: the nurses and the doctors agreed that the new rota stands. "
    "The pharmacists did not take a position."
)


@pytest.mark.parametrize(
    "answer",
    [
        "The nurses, the doctors and the pharmacists all back the new rota.",
        "Les infirmiers, les médecins et les pharmaciens soutiennent tous le nouveau planning.",
        "Pflegekräfte, Ärzte und Apotheker stehen alle hinter dem neuen Dienstplan.",
        "Los enfermeros, los médicos y los farmacéuticos apoyan todos el nuevo turno.",
        "Os enfermeiros, os médicos e os farmacêuticos apoiam todos a nova escala.",
        "Gli infermieri, i medici e i farmacisti appoggiano tutti il nuovo turno.",
        "De verpleegkundigen, de artsen en de apothekers staan allemaal achter het nieuwe rooster.",
    ],
)
def test_a_list_that_all_back_a_decision_needs_each(answer: str) -> None:
    assert check(answer, THREE) is CheckOutcome.PASS
    assert check(answer, TWO) is CheckOutcome.FAIL


def test_all_after_a_list_of_bodies_is_those_bodies() -> None:
    """Three bodies each stated in the singular support "all back": no whole class is claimed."""
    three = (
        "Minutes, 3 June: the health department, the environment agency and the transport authority "
        "agreed that the highest sub-index decides."
    )
    two = (
        "Minutes, 3 June: the health department and the environment agency agreed that the highest "
        "sub-index decides. The transport authority did not take a position."
    )
    answer = "The health department, the environment agency and the transport authority all back the rule."
    assert check(answer, three) is CheckOutcome.PASS
    assert check(answer, two) is CheckOutcome.FAIL
