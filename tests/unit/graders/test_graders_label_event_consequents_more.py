"""A label after a condition on an event still to come is hypothetical when a verb of change
reaches it ("Se a reinspeção correr bem, passa a PASS") or a modal of possibility in the
conditional does ("Si ..., podría estudiarse un APPROVED_WITH_LIMIT más adelante"); so is the
consequent of a past counterfactual whose condition is a prepositional phrase ("Bij een melding
binnen 7 dagen was het PAY geweest") and of a verb-first condition whose consequent is another
verb in the conditional ("Wäre die Taxifahrt erstattungsfähig, käme man fast auf X"). Twins: the
same band given plainly, or after a caveat with a verb of being, is still named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
INSPECTION = ["PASS", "CONDITIONAL_PASS", "FAIL", "CLOSED"]
EXPORT = ["APPROVED", "APPROVED_WITH_LIMIT", "REJECTED"]
CLAIM = ["PAY", "PAY_PARTIAL", "PAY_IN_FULL", "DECLINE"]


@pytest.mark.parametrize(
    "answer",
    [
        "If the reinspection goes well, it moves to PASS. For now it stays CONDITIONAL_PASS.",
        "Si la contre-visite se passe bien, on passe à PASS. Pour l'instant, CONDITIONAL_PASS.",
        "Wenn die Nachkontrolle gut läuft, geht es auf PASS. Vorerst bleibt es bei CONDITIONAL_PASS.",
        "Si la reinspección sale bien, pasa a PASS. De momento queda en CONDITIONAL_PASS.",
        "Se a reinspeção correr bem, passa a PASS. Por agora fica CONDITIONAL_PASS.",
        "Se la reispezione va bene, si passa a PASS. Per ora resta CONDITIONAL_PASS.",
        "Als de herinspectie goed gaat, gaat het naar PASS. Voorlopig blijft het CONDITIONAL_PASS.",
    ],
)
def test_where_a_band_goes_if_an_event_comes_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "CONDITIONAL_PASS", INSPECTION)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: REJECTED. The inverter certificate is missing. If the installer sends it and the"
        " transformer is reinforced, an APPROVED_WITH_LIMIT could be looked at later.",
        "Décision : REJECTED. Il manque le certificat de l'onduleur. Si l'installateur l'envoie, on"
        " pourrait envisager un APPROVED_WITH_LIMIT plus tard.",
        "Entscheidung: REJECTED. Das Wechselrichterzertifikat fehlt. Wenn der Installateur es schickt,"
        " könnte man später ein APPROVED_WITH_LIMIT prüfen.",
        "Veredicto: REJECTED. Falta el certificado del inversor. Si el instalador manda el certificado y"
        " se refuerza el transformador, podría estudiarse un APPROVED_WITH_LIMIT más adelante.",
        "Decisão: REJECTED. Falta o certificado do inversor. Se o instalador o enviar, poderia"
        " avaliar-se um APPROVED_WITH_LIMIT mais tarde.",
        "Esito: REJECTED. Manca il certificato dell'inverter. Se l'installatore lo manda, potrebbe"
        " valutarsi un APPROVED_WITH_LIMIT più avanti.",
        "Besluit: REJECTED. Het certificaat van de omvormer ontbreekt. Als de installateur het stuurt,"
        " zou later een APPROVED_WITH_LIMIT kunnen.",
    ],
)
def test_a_band_possible_later_under_a_condition_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "REJECTED", EXPORT)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "With a report within 7 days it would have been PAY. Now: DECLINE.",
        "With a timely report it would have been PAY. Now: DECLINE.",
        "Avec une déclaration sous 7 jours, c'aurait été PAY. Maintenant : DECLINE.",
        "Avec une déclaration à temps, ç'aurait été PAY. Maintenant : DECLINE.",
        "Bei einer Meldung innerhalb von 7 Tagen wäre es PAY gewesen. Jetzt: DECLINE.",
        "Bei rechtzeitiger Meldung wäre es PAY gewesen. Jetzt: DECLINE.",
        "Con un aviso dentro de los 7 días habría sido PAY. Ahora: DECLINE.",
        "Con un aviso a tiempo habría sido PAY. Ahora: DECLINE.",
        "Com uma participação dentro de 7 dias teria sido PAY. Agora: DECLINE.",
        "Com uma participação a tempo teria sido PAY. Agora: DECLINE.",
        "Con una denuncia entro 7 giorni sarebbe stato PAY. Ora: DECLINE.",
        "Con una denuncia tempestiva sarebbe stato PAY. Ora: DECLINE.",
        "Bij een melding binnen 7 dagen was het PAY geweest. Nu: DECLINE.",
        "Bij een tijdige melding was het PAY geweest. Nu: DECLINE.",
    ],
)
def test_a_counterfactual_under_a_prepositional_condition_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "DECLINE", CLAIM)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Wäre die Taxifahrt erstattungsfähig, käme man fast auf PAY_IN_FULL. Ist sie aber nicht"
        " (Art. 14.3). Also PAY_PARTIAL.",
        "Wären die Taxikosten gedeckt, fiele es unter PAY_IN_FULL. Sind sie nicht. Also PAY_PARTIAL.",
        "Zou de taxirit vergoed worden, dan zou je bijna op PAY_IN_FULL uitkomen. Dat is niet zo."
        " Dus PAY_PARTIAL.",
        "Si le taxi était remboursable, on arriverait presque à PAY_IN_FULL. Il ne l'est pas. Donc"
        " PAY_PARTIAL.",
        "Si el taxi fuera reembolsable, se llegaría casi a PAY_IN_FULL. No lo es. Así que PAY_PARTIAL.",
        "Se o táxi fosse reembolsável, chegaria quase a PAY_IN_FULL. Não é. Logo PAY_PARTIAL.",
        "Se il taxi fosse rimborsabile, si arriverebbe quasi a PAY_IN_FULL. Non lo è. Quindi PAY_PARTIAL.",
        "If the taxi were covered, it would come close to PAY_IN_FULL. It isn't. So PAY_PARTIAL.",
    ],
)
def test_a_conditional_consequent_of_a_conditional_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "PAY_PARTIAL", CLAIM)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # plainly moved, no condition: where it went is the verdict
        ("Passou a PASS depois da reinspeção.", "PASS"),
        ("Nach der Nachkontrolle geht es auf PASS.", "PASS"),
        ("After the reinspection it moves to PASS.", "PASS"),
        ("Na de herinspectie gaat het naar PASS.", "PASS"),
        # a caveat with a verb of being names the band
        ("Se o relatório estiver certo, a inspeção é CONDITIONAL_PASS.", "CONDITIONAL_PASS"),
        ("Si le rapport est exact, l'inspection est CONDITIONAL_PASS.", "CONDITIONAL_PASS"),
        ("Als het rapport klopt, is de inspectie CONDITIONAL_PASS.", "CONDITIONAL_PASS"),
        # a preposition with no counterfactual: the band now
        ("Bij een melding binnen 7 dagen is het PAY.", "PAY"),
        ("Bei einer Meldung innerhalb von 7 Tagen ist es PAY.", "PAY"),
        ("With a report within 7 days it is PAY.", "PAY"),
        ("Con un aviso dentro de los 7 días es PAY.", "PAY"),
        ("Avec une déclaration sous 7 jours, c'est PAY.", "PAY"),
        ("Com uma participação dentro de 7 dias, é PAY.", "PAY"),
        ("Con una denuncia entro 7 giorni è PAY.", "PAY"),
        # a hedge in the conditional with no condition stays the answer's band
        ("Podría ser PAY_PARTIAL, a mi juicio.", "PAY_PARTIAL"),
        ("Es könnte PAY_PARTIAL sein, meiner Meinung nach.", "PAY_PARTIAL"),
    ],
)
def test_the_band_given_plainly_stands(answer: str, expected: str) -> None:
    labels = INSPECTION if expected in INSPECTION else CLAIM
    outcome, reason = label(answer, expected, labels)
    assert outcome is P, reason
