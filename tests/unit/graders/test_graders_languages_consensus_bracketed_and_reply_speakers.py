"""A role line with the name in brackets after a time's full stop, a reply from a titled name with
an initial, and a ski area's patrol as a role (session 37).

"... until 09:00. Ski patrol (Tom Ruiz): 'Agreed.'" opened no speaker (a full stop after a digit
opened no line), "Reply from Prof. H. Okoro, 10 March 11:05: 'Agreed.'" gave "Prof. H" (an
initial's point ended the name), and no table named a patrol, so true statements of who agreed
failed.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


BRIEFING = (
    "Handover, 06:30, 4 May. Present: harbour master Ana Costa, inspector Erik Holm, ski patrol lead "
    "Lea Brun. Costa proposed delaying the berthing until 09:00. Inspector (Erik Holm): '{holm}' "
    "Ski patrol (Lea Brun): '{brun}'"
)
AGREED = "Agreed."
OBJECTS = "I do not agree: berth now."


@pytest.mark.parametrize(
    "answer",
    [
        "Holm backed the delay.",
        "L'inspecteur est d'accord avec le report.",
        "Der Inspektor ist mit der Verschiebung einverstanden.",
        "Holm está de acuerdo con el aplazamiento.",
        "O inspetor está de acordo com o adiamento.",
        "L'ispettore è d'accordo con il rinvio.",
        "De inspecteur is het eens met het uitstel.",
    ],
)
def test_a_role_line_after_a_time_names_its_speaker_in_brackets(answer: str) -> None:
    assert check(answer, BRIEFING.format(holm=AGREED, brun=AGREED)) is CheckOutcome.PASS
    assert check(answer, BRIEFING.format(holm=OBJECTS, brun=AGREED)) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Both Brun and Holm backed the delay.",
        "La patrouille est d'accord avec le report.",
        "Die Pistenrettung und der Inspektor stehen beide hinter der Verschiebung.",
        "La patrulla está de acuerdo con el aplazamiento.",
        "A patrulha está de acordo com o adiamento.",
        "La pattuglia è d'accordo con il rinvio.",
        "De pistepatrouille staat erachter.",
    ],
)
def test_a_ski_patrol_is_a_role(answer: str) -> None:
    assert check(answer, BRIEFING.format(holm=AGREED, brun=AGREED)) is CheckOutcome.PASS
    assert check(answer, BRIEFING.format(holm=AGREED, brun=OBJECTS)) is CheckOutcome.FAIL


EMAILS = (
    "Panel e-mails. Dr L. Moreau (chair), 2 June 09:00: 'I propose a written warning.' "
    "Reply from Dr. K. Mensah, 2 June 14:20: '{mensah}' Reply from N. Roy, 3 June: 'I abstain.'"
)


@pytest.mark.parametrize(
    "answer",
    [
        "Mensah backed the chair's proposal.",
        "Mensah est d'accord avec la proposition.",
        "Mensah ist mit dem Vorschlag einverstanden.",
        "Mensah está de acuerdo con la propuesta.",
        "Mensah está de acordo com a proposta.",
        "Mensah è d'accordo con la proposta.",
        "Mensah is het eens met het voorstel.",
    ],
)
def test_a_reply_from_a_name_with_an_initial_is_that_person_s(answer: str) -> None:
    assert check(answer, EMAILS.format(mensah=AGREED)) is CheckOutcome.PASS
    assert check(answer, EMAILS.format(mensah=OBJECTS)) is CheckOutcome.FAIL
