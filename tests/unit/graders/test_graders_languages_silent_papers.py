"""A paper silent on the asked thing in forms the tables did not read (held-out examiners, session
35), in all seven languages: nothing in it records the thing, it keeps silent on it, nothing is
drawn from it, or the thing is not in it. Each beside a twin that stays an answer: the paper records
the thing, a person keeps silent, something is drawn from it, the thing is in it."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"report": "Dog bite on 4 May, left calf, wound cleaned. The dog is in a 10-day quarantine."},
    question="How many stitches did she get, and what did the emergency visit cost?",
)


def _check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


DECLINES = [
    # nothing in the papers records it
    "Nothing in the incident report or the vet's note records a stitch count.",
    "Rien dans le rapport ne consigne le nombre de points de suture.",
    "Nichts im Bericht verzeichnet die Zahl der Stiche.",
    "Nada en el informe registra cuántos puntos le dieron.",
    "Nada no relatório regista os pontos que levou.",
    "Nulla nel verbale riporta quanti punti le hanno dato.",
    "Niets in het rapport registreert het aantal hechtingen.",
    # the paper keeps silent on it
    "On the stitches and the ER bill the report is silent.",
    "Sur les points de suture et la facture des urgences, le rapport se tait.",
    "Zu den Stichen und den Kosten der Notaufnahme schweigt der Bericht.",
    "Sobre los puntos y lo que costó urgencias, el informe calla.",
    "Quanto aos pontos e à conta da urgência, o relatório é omisso.",
    "Sui punti e sulla spesa del pronto soccorso il verbale tace.",
    "Over de hechtingen en de rekening van de spoedeisende hulp zwijgt het rapport.",
    # nothing is drawn from it
    "The report tells us nothing about the stitches or the bill.",
    "Le rapport ne permet pas de savoir combien de points elle a eus.",
    "Aus dem Bericht geht nicht hervor, wie viele Stiche es waren.",
    "Del informe no se saca ni cuántos puntos le dieron ni lo que costó la urgencia.",
    "Do relatório não se tira quantos pontos levou nem quanto custou a urgência.",
    "Dal verbale non si ricava quanti punti le abbiano dato.",
    "Uit het rapport valt niet op te maken hoeveel hechtingen ze kreeg.",
    # it covers something else; the thing is not in it
    "The report only covers the bite itself - stitches and ER costs aren't in it.",
    "Le rapport ne traite que de la morsure ; les points et la facture n'y figurent pas.",
    "Der Bericht behandelt nur den Biss, die Stiche stehen da nicht drin.",
    "El informe solo trata la mordedura; los puntos no vienen en él.",
    "O relatório só trata da mordida; os pontos não constam dele.",
    "Il verbale riguarda solo il morso; i punti non vi figurano.",
    "Het rapport gaat alleen over de beet; de hechtingen staan er niet in.",
]

ANSWERS = [
    "The report records four stitches and a bill of 180 euros.",
    "Le rapport consigne quatre points de suture.",
    "Der Bericht verzeichnet vier Stiche.",
    "El informe registra cuatro puntos.",
    "O relatório regista quatro pontos.",
    "Il verbale riporta quattro punti.",
    "Het rapport registreert vier hechtingen.",
    "The patient is silent about the pain, but she got four stitches.",
    "La patiente se tait, mais elle a eu quatre points.",
    "La paciente calla, pero le dieron cuatro puntos.",
    "La paziente tace, ma le hanno dato quattro punti.",
    "De patiënte zwijgt, maar ze kreeg vier hechtingen.",
    "Del informe se saca que le dieron cuatro puntos.",
    "Uit het rapport blijkt dat ze vier hechtingen kreeg.",
    "The report only covers the bite itself, and the four stitches are in it.",
    "Der Bericht behandelt nur den Biss; vier Stiche stehen drin.",
]


@pytest.mark.parametrize("answer", DECLINES)
def test_a_silent_paper_declines(answer: str) -> None:
    assert _check("refusal", answer) is P
    assert _check("not-refusal", answer) is F
    assert _check("no-guess-after-refusal", answer) is P


@pytest.mark.parametrize("answer", ANSWERS)
def test_its_twin_is_no_decline(answer: str) -> None:
    assert _check("refusal", answer) is not P


@pytest.mark.parametrize(
    "answer",
    [
        "Sui punti il verbale tace; di solito sono tre o quattro.",
        "Del informe no se saca cuántos puntos le dieron; calculo que unos cuatro.",
        "Aus dem Bericht geht nicht hervor, wie viele Stiche es waren, vermutlich drei.",
    ],
)
def test_a_guess_after_a_silent_paper_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F
