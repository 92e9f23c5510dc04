"""An agreement the context states is credited to its party named otherwise, in every language.

"L'expert de la société de classification partage cet avis" failed against "The class surveyor,
Henrik Aas (DNV), attended at 13:00 and agreed": the clock's colon cut the subject, and no table
named the surveyor in French or German. A role the answer translates (a table of role words:
``inspectrice``, ``Besichtiger``, ``perito``, ``directeur``), a name in brackets after the subject
("Infection control (Dr Sara Blom) agreed"), the role a document gives a person in brackets after
their name, a compound of a stated name and a role (``sepsisarts``), a title's point (``Dr.``,
``Dra.``) and a speaker line "Reply, <date> <time>, <org> <role> <name>: 'Agreed: ...'" now name the
party whose agreement is stated. The twins: a party the context names but whose agreement it
does not state (the charterer who disputes it, the nurse who has not replied) still fails.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={
        "note": (
            "Inspection note, 9 June 2026. The class surveyor, Ana Ribeiro (BV), attended at 11:30 and "
            "agreed that the deck crane is unsafe. The charterer, Mr Jon Olsen, disputes it."
        ),
        "mail": (
            "E-mail, 9 June 2026 15:02, from Dr Kim Lee (renal registrar) to Dr Paul Navarro (head of "
            "nephrology): 'Line infection looks likely. Infection control (Dr Sara Blom) agreed with "
            "removing the line at 14:00. Sister Ruth Adler (ward 3) has not replied.'"
        ),
        "round": (
            "Ward round note, 9 June 2026: the sepsis team (Dr Ola Berg) agreed with starting meropenem."
        ),
        "reply": (
            "Reply, 9 June 2026 16:20, Port State inspector Lena Vogt: 'Agreed: the crane stays out of "
            "service until repaired.'"
        ),
    }
)
CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))

CASES = [
    ("en", "The BV surveyor agreed the crane is unsafe.", "pass"),
    ("en", "Ribeiro agreed the crane is unsafe.", "pass"),
    ("en", "The inspector agreed the crane has to stay out of service.", "pass"),
    ("en", "Infection control agreed with pulling the line.", "pass"),
    ("en", "Both Dr Blom and Dr Ribeiro agree.", "pass"),
    ("en", "The charterer agreed the crane is unsafe.", "fail"),
    ("en", "Both Dr Blom and Sister Adler agree the line has to come out.", "fail"),
    ("en", "Olsen agrees with the surveyor.", "fail"),
    ("fr", "L'expert de la société de classification partage cet avis.", "pass"),
    ("fr", "L'inspectrice Lena Vogt est d'accord : la grue reste hors service.", "pass"),
    ("fr", "Le Dr Blom et Mme Ribeiro sont toutes les deux d'accord.", "pass"),
    ("fr", "L'affréteur partage cet avis.", "fail"),
    ("fr", "L'infirmière Adler est d'accord pour retirer la voie centrale.", "fail"),
    ("de", "Der BV-Besichtiger sieht das genauso.", "pass"),
    ("de", "Die Inspektorin Lena Vogt ist einverstanden: der Kran bleibt außer Betrieb.", "pass"),
    ("de", "Sowohl Dr. Blom als auch Frau Ribeiro sind einverstanden.", "pass"),
    ("de", "Der Charterer sieht das genauso.", "fail"),
    ("de", "Sowohl Dr. Blom als auch Schwester Adler sind einverstanden.", "fail"),
    ("es", "El perito de la sociedad de clasificación está de acuerdo.", "pass"),
    ("es", "La inspectora Vogt está de acuerdo en que la grúa siga fuera de servicio.", "pass"),
    ("es", "Tanto la Dra. Blom como la Sra. Ribeiro están de acuerdo.", "pass"),
    ("es", "El fletador está de acuerdo en que la grúa no es segura.", "fail"),
    ("es", "Tanto la Dra. Blom como la enfermera Adler están de acuerdo.", "fail"),
    ("pt", "O perito da sociedade classificadora concorda que o guindaste não é seguro.", "pass"),
    ("pt", "A inspetora Lena Vogt concordou que o guindaste fica fora de serviço.", "pass"),
    ("pt", "Tanto a Dra. Blom quanto a Ribeiro concordam que a linha deve ser retirada.", "pass"),
    ("pt", "O afretador está de acordo: o guindaste não é seguro.", "fail"),
    ("pt", "Tanto a Dra. Blom quanto a enfermeira Adler concordam que a linha deve ser retirada.", "fail"),
    ("it", "Il perito della società di classifica è d'accordo: la gru non è sicura.", "pass"),
    ("it", "L'ispettrice Vogt concorda che la gru resti ferma.", "pass"),
    ("it", "Sia la Dr.ssa Blom sia la Dr.ssa Ribeiro concordano.", "pass"),
    ("it", "Sia il Dr. Blom sia la Ribeiro concordano.", "pass"),
    ("it", "Il noleggiatore è d'accordo che la gru non sia sicura.", "fail"),
    ("it", "Sia il Dr. Blom sia l'infermiera Adler concordano.", "fail"),
    ("nl", "De BV-surveyor is het ermee eens dat de kraan onveilig is.", "pass"),
    ("nl", "De inspecteur Lena Vogt gaat akkoord: de kraan blijft buiten dienst.", "pass"),
    ("nl", "Zowel dr. Blom als mevrouw Ribeiro zijn het ermee eens.", "pass"),
    ("nl", "De sepsisarts is het ermee eens dat meropenem de juiste keuze is.", "pass"),
    ("nl", "De longarts is het ermee eens dat meropenem de juiste keuze is.", "fail"),
    ("nl", "De bevrachter is het ermee eens dat de kraan onveilig is.", "fail"),
    ("nl", "Zowel dokter Blom als zuster Adler zijn het ermee eens.", "fail"),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_stated_agreement_is_credited_to_its_party_by_another_name(
    lang: str, answer: str, expected: str
) -> None:
    assert CONSENSUS.check(answer, CONTEXT).outcome.value == expected, (lang, answer)


def test_a_person_the_context_names_without_a_stance_is_undetermined() -> None:
    # Hartmann may be the loss adjuster whose agreement the minutes state: not readable
    ctx = CaseContext(
        context={
            "minutes": "Minutes, 21 March. Present: R. Okafor (chair), Hartmann Claims Services. The "
            "committee and the loss adjuster agreed that the leak was sudden."
        }
    )
    c = CONSENSUS.check("The committee and Hartmann agreed the leak was sudden.", ctx)
    assert c.outcome.value == "undetermined", c.reason
    # a name the context never writes is no party it names
    assert (
        CONSENSUS.check("The committee and Lindgren agreed the leak was sudden.", ctx).outcome.value == "fail"
    )
