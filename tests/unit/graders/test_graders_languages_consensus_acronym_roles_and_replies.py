"""A role given as an acronym, a reply agreeing "on" a point, a log written as one paragraph
(session 37).

"Karen Liu (QPPV)" gave no role: only a role in lower case was read, so "the QPPV agrees" rested
on nothing although Karen Liu replied "Agreed.". "Agreed on the trapping point." was no reply
(only "agreed with" was), and a decision log's lines after a sentence's end on one line
("... 'Agreed.' 05:55 Northsound Ferries duty manager: 'Agreed.'") opened no speaker.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


MINUTES = (
    "Minutes, signal review, 14 March. Present: Jonas Weber (clinical pharmacist), Karen Liu (QPPV), "
    "Dr Amir Haddad (hepatology consultant). Dr Brandt proposed PROBABLE. Jonas Weber: 'Agreed.' "
    "Karen Liu: '{liu}' Dr Haddad wants a biopsy first."
)
AGREES = MINUTES.format(liu="Agreed with Sofia.")
#: the twin: Karen Liu does not agree
WAITS = MINUTES.format(liu="I do not agree: the biopsy comes first.")


@pytest.mark.parametrize(
    "answer",
    [
        "Both Jonas Weber and Karen Liu agreed with the proposal.",
        "La QPPV est d'accord.",
        "Die QPPV ist mit dem Vorschlag einverstanden.",
        "La QPPV está de acuerdo con la propuesta.",
        "A QPPV está de acordo.",
        "La QPPV è d'accordo con la proposta.",
        "De QPPV is het eens met het voorstel.",
    ],
)
def test_a_role_in_brackets_may_be_an_acronym(answer: str) -> None:
    """(English reads no acronym as a group: its line names the people.)"""
    assert check(answer, AGREES) is CheckOutcome.PASS
    assert check(answer, WAITS) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Both the pharmacist and Karen Liu backed the proposal.",
        "Le pharmacien et la QPPV étaient tous les deux d'accord.",
        "Apotheker Weber und die QPPV stehen beide hinter dem Vorschlag.",
        "Tanto el farmacéutico como la QPPV apoyaron la propuesta.",
        "Tanto o farmacêutico quanto a QPPV apoiaram a proposta.",
        "Sia il farmacista che la QPPV hanno appoggiato la proposta.",
        "De apotheker en de QPPV gingen allebei akkoord.",
    ],
)
def test_both_parties_by_their_roles_need_both_replies(answer: str) -> None:
    assert check(answer, AGREES) is CheckOutcome.PASS
    assert check(answer, WAITS) is CheckOutcome.FAIL


#: (a reply agreeing on a point, its twin: the same words inside a clause, the claim)
REPLIES = [
    (
        "Agreed on the trapping point.",
        "The council agreed on the trapping point last year.",
        "Hanna Ortiz agreed on the trapping point.",
    ),
    (
        "D'accord sur le risque de blocage.",
        "Le conseil était d'accord sur le risque de blocage l'an dernier.",
        "Hanna Ortiz est d'accord sur le risque de blocage.",
    ),
    (
        "Einig in der Frage des Rückstaus.",
        "Der Rat war sich letztes Jahr in der Frage des Rückstaus einig.",
        "Hanna Ortiz ist damit einverstanden.",
    ),
    (
        "De acuerdo sobre el riesgo de atrapamiento.",
        "El ayuntamiento estuvo de acuerdo sobre el riesgo el año pasado.",
        "Hanna Ortiz está de acuerdo sobre el riesgo de atrapamiento.",
    ),
    (
        "De acordo quanto ao risco de retenção.",
        "A câmara esteve de acordo quanto ao risco no ano passado.",
        "Hanna Ortiz está de acordo quanto ao risco de retenção.",
    ),
    (
        "D'accordo sui rischi di intrappolamento.",
        "Il comune era d'accordo sui rischi l'anno scorso.",
        "Hanna Ortiz è d'accordo sui rischi di intrappolamento.",
    ),
    (
        "Akkoord over het insluitrisico.",
        "De gemeente was vorig jaar akkoord over het insluitrisico.",
        "Hanna Ortiz gaat akkoord met het insluitrisico.",
    ),
]


@pytest.mark.parametrize(("reply", "twin", "answer"), REPLIES)
def test_a_reply_agreeing_on_a_point_is_the_speakers(reply: str, twin: str, answer: str) -> None:
    head = "E-mail from Tom Reilly to Hanna Ortiz, 10 April: 'Lights only do nothing about trapped cars.' "
    assert check(answer, f"{head}Reply from Hanna Ortiz, 11 April: '{reply}'") is CheckOutcome.PASS
    # the twin names her with no agreement stated: at most undetermined (it may be under a role)
    assert check(answer, f"{head}Reply from Hanna Ortiz, 11 April: '{twin}'") is not CheckOutcome.PASS


LOG = (
    "Decision log, 7 December. 05:50 Harbour master: 'Hold at berth, reassess at 09:30.' "
    "05:52 Master, MV Kestrel: 'Agreed.' 05:55 Northsound Ferries duty manager: 'Agreed.'"
)


@pytest.mark.parametrize(
    ("answer", "twin"),
    [
        ("Northsound agreed to the hold at 05:55.", "The passengers agree with the hold."),
        ("Northsound est d'accord avec le report.", "Les passagers sont d'accord avec le report."),
        (
            "Northsound ist mit der Verschiebung einverstanden.",
            "Die Passagiere sind mit der Verschiebung einverstanden.",
        ),
        (
            "Northsound está de acuerdo con el aplazamiento.",
            "Los pasajeros están de acuerdo con el aplazamiento.",
        ),
        ("A Northsound concorda com o adiamento.", "Os passageiros concordam com o adiamento."),
        ("Northsound è d'accordo con il rinvio.", "I passeggeri sono d'accordo con il rinvio."),
        (
            "Northsound staat achter het uitstel (akkoord om 05:55).",
            "De passagiers zijn het eens met het uitstel.",
        ),
    ],
)
def test_a_log_on_one_line_opens_a_speaker_after_each_sentence(answer: str, twin: str) -> None:
    assert check(answer, LOG) is CheckOutcome.PASS
    assert check(twin, LOG) is CheckOutcome.FAIL
