"""An elliptical reply on a speaker's line states that speaker's agreement, a date between them.

"Facility manager, 15 March: 'Agreed. We'll book the levelling adjustment for next week.'" is the
facility manager agreeing, as "E-mail from the facility manager: 'Agreed.'" is; so is "Bus
operator Greenline: 'Agreed.'" for Greenline and for the operator. A reply counted only after an
author's header ("E-mail from ...", "... wrote:"), so answers reporting that agreement, in any of
the seven languages, failed. The name that opens the line's clause, a date, a time or a place
after a comma aside, is the speaker of a quoted reply after its colon; a field's value ("Status:
agreed.") stays none, and so do a reply asked or denied.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"mails": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


MAILS = (
    "Inspection of lift L-2: levelling error 14 mm at floor 3.\n"
    "Facility manager, 15 March: 'Agreed. We'll book the levelling adjustment for next week.'\n"
    "The inspector returns in April."
)

#: language -> (the facility manager agreeing, the twin: another party said to agree)
CASES = {
    "en": (
        "The facility manager agreed to book the adjustment for next week.",
        "The inspector agreed to the adjustment.",
    ),
    "fr": (
        "Côté hôtel, le facility manager est d'accord pour caler le réglage la semaine prochaine.",
        "L'inspecteur est d'accord pour caler le réglage la semaine prochaine.",
    ),
    "de": (
        "Der Facility Manager ist einverstanden, die Justierung nächste Woche einzuplanen.",
        "Der Prüfer ist einverstanden, die Justierung nächste Woche einzuplanen.",
    ),
    "es": (
        "El facility manager está de acuerdo en programar el ajuste la semana que viene.",
        "El inspector está de acuerdo en programar el ajuste la semana que viene.",
    ),
    "pt": (
        "O facility manager está de acordo em marcar o ajuste para a próxima semana.",
        "O inspetor está de acordo em marcar o ajuste para a próxima semana.",
    ),
    "it": (
        "Il facility manager è d'accordo a fissare la regolazione la settimana prossima.",
        "L'ispettore è d'accordo a fissare la regolazione la settimana prossima.",
    ),
    "nl": (
        "De facility manager gaat akkoord met de afstelling volgende week.",
        "De inspecteur gaat akkoord met de afstelling volgende week.",
    ),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_reply_on_a_dated_speaker_line_is_the_speakers(lang: str) -> None:
    speaker, other = CASES[lang]
    assert check(speaker, MAILS) is CheckOutcome.PASS
    assert check(other, MAILS) is CheckOutcome.FAIL


MINUTES = (
    "Minutes, 12 March: the transport committee and the head teacher agreed that stop 7 will move "
    "150 m north. Bus operator Greenline: 'Agreed.' Parents' association: no reply yet."
)

#: the operator named by its proper name and by its trade word; the twin: the parents
OPERATOR = [
    ("en", "Greenline, the bus operator, agrees with moving stop 7.", "The parents' association agrees."),
    (
        "fr",
        "Le transporteur Greenline est d'accord pour déplacer l'arrêt 7.",
        "L'association des parents est d'accord.",
    ),
    (
        "de",
        "Das Busunternehmen Greenline ist mit der Verlegung einverstanden.",
        "Der Elternverein ist einverstanden.",
    ),
    (
        "es",
        "El transportista Greenline está de acuerdo con mover la parada 7.",
        "La asociación de padres está de acuerdo.",
    ),
    (
        "pt",
        "A transportadora Greenline concorda com a mudança da paragem 7.",
        "A associação de pais concorda.",
    ),
    (
        "it",
        "Il vettore Greenline è d'accordo sullo spostamento della fermata 7.",
        "L'associazione dei genitori è d'accordo.",
    ),
    (
        "nl",
        "Vervoerder Greenline staat achter het verplaatsen van halte 7 ('Agreed.').",
        "De ouderraad staat achter het verplaatsen van halte 7.",
    ),
]


@pytest.mark.parametrize(("lang", "operator", "parents"), OPERATOR)
def test_a_party_named_by_its_name_and_its_trade(lang: str, operator: str, parents: str) -> None:
    assert check(operator, MINUTES) is CheckOutcome.PASS, lang
    assert check(parents, MINUTES) is CheckOutcome.FAIL, lang


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("Facility manager, Hotel Marina, 15 March, 14:30: 'Agreed.'", CheckOutcome.PASS),
        ('Facility manager (on site), 15 March: "Fine by me."', CheckOutcome.PASS),
        # asked, denied, or a field's value: no agreement
        ("Facility manager, 15 March: 'Agreed?' Inspector: 'Yes.'", CheckOutcome.FAIL),
        ("Facility manager, 15 March: 'Not agreed.'", CheckOutcome.FAIL),
        ("Note from the inspector, 15 March\nFacility manager status: agreed.", CheckOutcome.FAIL),
    ],
)
def test_what_a_dated_speaker_line_states(document: str, expected: CheckOutcome) -> None:
    assert check("The facility manager agreed.", document) is expected
