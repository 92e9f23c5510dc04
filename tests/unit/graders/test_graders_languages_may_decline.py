"""A decline in words no phrase of declining holds is undetermined, not a guessed verdict (issue 25).

Held-out examiners found declines the phrases miss ("The premium isn't anywhere in this file",
"Dazu geben weder das Bulletin noch das Protokoll etwas her", "Onbekend."): ``refusal`` failed
them and ``no-guess-after-refusal`` passed the guess after them. A part of the answer with a word
of negation (or of "unknown") beside a word the phrases are built of (a source, a verb of
appearing or mentioning, "nowhere") may decline: with nothing else read, the grader says so. Twins:
a finding with a verdict, a part answered after a contrast, an answer with figures, stay as read.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, Unread, compile_assertion

CONTEXT = CaseContext(
    context={"log": "Pump 2 tripped at 06:40; crew on site 07:45."},
    question="How much did it cost?",
    labels=(),
)
REFUSAL = compile_assertion(Assertion(type="refusal"))
NOT_REFUSAL = compile_assertion(Assertion(type="not-refusal"))
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
U, F, P = CheckOutcome.UNDETERMINED, CheckOutcome.FAIL, CheckOutcome.PASS

MAY_DECLINE = [
    "The cost never made it into these papers; the crew sheet only covers the call-out.",
    # a time of day or a date says when, not how much: no figure that answers
    "Der Einsatzbericht enthält keinen Betrag; die Pumpe lief ab 07:45 wieder.",
    "Het logboek houdt geen bedragen bij voor 21 juli.",
    "Der Einsatzbericht enthält keinen Betrag.",
    "Het logboek houdt geen bedragen bij.",
    "Desconhecido.",
    # ("Le registre ne donne aucun montant" is read: a paper whose verb of saying has none of it)
    "La fiche d'intervention ne comporte pas de montant.",
]


@pytest.mark.parametrize("answer", MAY_DECLINE)
def test_a_decline_in_unread_words_is_undetermined_both_ways(answer: str) -> None:
    for grader in (REFUSAL, NOT_REFUSAL):
        c = grader.check(answer, CONTEXT)
        assert c.outcome is U and c.unread is Unread.FORM, (answer, c.reason)
        assert "may decline" in c.reason


def test_a_guess_after_a_decline_in_unread_words_is_undetermined() -> None:
    c = GUESS.check("Het logboek houdt geen bedragen bij. Ik gok op zo'n 2.500 euro.", CONTEXT)
    assert c.outcome is U and c.unread is Unread.FORM, c.reason
    # with nothing guessed after it, there is nothing to call
    assert GUESS.check("Het logboek houdt geen bedragen bij.", CONTEXT).outcome is P
    # a logbook that gives no amount is a paper that does not give it: the guess after it fails
    assert GUESS.check("Het logboek geeft geen bedrag. Ik gok op zo'n 2.500 euro.", CONTEXT).outcome is F


@pytest.mark.parametrize(
    "answer",
    [
        # a finding an answer builds on, with its verdict
        "Nothing in the log contradicts AMBER.",
        "Het logboek vermeldt geen lekkage: AMBER.",
        # answered after a contrast
        "Das Protokoll sagt es nicht direkt, aber aus den Stunden ergibt sich der Betrag.",
        # an answer with a figure answers
        "Der Einsatzbericht enthält keinen Betrag; die Reparatur kostete 1.240 Euro.",
        # a finding concluded to a verdict after a colon or a dash
        "Le rapport ne signale aucune fuite : AMBER.",
        "The report mentions no pests \u2014 AMBER.",
        # a finding: no leak, no fault
        "The log shows no leak anywhere on the line.",
    ],
)
def test_findings_answers_and_figures_are_read_as_before(answer: str) -> None:
    c = REFUSAL.check(answer, CONTEXT)
    assert c.outcome is F, c.reason


def test_a_word_of_declining_shouted_after_a_colon_still_declines() -> None:
    assert REFUSAL.check("Keine Angaben im Bericht: UNBEKANNT.", CONTEXT).outcome is P


SIDE = CaseContext(
    context={"lab": "SO2 0.165 g/L; the red-wine limit is 0.150 g/L."},
    question="Which lane does the shipment take?",
    labels=(),
)


@pytest.mark.parametrize(
    "answer",
    [
        "LAB_TEST. The lab note doesn't mention ochratoxin, but that isn't what decides it.",
        "Ik zou LAB_TEST adviseren; de notulen zeggen niets over een akkoord van de importeur.",
        "Os relatórios não mencionam ocratoxina, então isso não pesa: LAB_TEST pelo SO2.",
    ],
)
def test_a_side_finding_beside_a_verdict_is_no_decline(answer: str) -> None:
    # what the source lacks is not what the question asks, and the answer gives its verdict
    assert REFUSAL.check(answer, SIDE).outcome is F
    assert NOT_REFUSAL.check(answer, SIDE).outcome is P


def test_what_the_question_asks_lacking_beside_a_verdict_still_declines() -> None:
    c = REFUSAL.check("The lab note doesn't mention the lane. LAB_TEST would be my guess.", SIDE)
    assert c.outcome is P, c.reason
    # nor does a document's code count as a verdict
    c = REFUSAL.check("The lab note doesn't mention ochratoxin; see ISB-3 and the MSA.", SIDE)
    assert c.outcome is P, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "The crew sheet has no figure for the call-out. Maybe 300 euros.",
        "There's no cost value for that call-out (pump 2 tripped at 06:40). Maybe 300 euros.",
        "Le journal ne donne aucun chiffre pour l'intervention. Peut-être 300 euros.",
        "Dazu gibt das Protokoll nichts her. Vielleicht 300 Euro.",
        "No hay datos sobre el coste. Quizás 300 euros.",
        "Não há dados sobre o custo. Talvez 300 euros.",
        "Sul costo non c'è alcun dato. Forse 300 euro.",
        "Geen gegevens over de kosten. Misschien 300 euro.",
        "Desconheço o custo. Talvez 300 euros.",
        "Le dossier ne contient aucun devis. Peut-être 300 euros.",
        "Pas de devis au dossier. Peut-être 300 euros.",
        "El informe no entra en el coste. Quizás 300 euros.",
        "Der Betrag steht weder im Bericht noch im Protokoll. Vielleicht 300 Euro.",
        "Il preventivo non è stato fatto. Forse 300 euro.",
        "Geen bedrag in het rapport. Misschien 300 euro.",
        "Can't give you a cost, it hasn't been done. Maybe 300 euros.",
    ],
)
def test_no_data_for_what_was_asked_declines_and_the_guess_after_it_fails(answer: str) -> None:
    assert GUESS.check(answer, CONTEXT).outcome is F
    assert REFUSAL.check(answer.split(".")[0] + ".", CONTEXT).outcome is P


def test_a_band_not_falling_in_a_category_declines_nothing() -> None:
    assert REFUSAL.check("El riesgo no entra en la categoría AMBER.", CONTEXT).outcome is F


def test_the_speaker_declining_beside_a_verdict_still_declines() -> None:
    # the speaker declining to tell is a decline; what they cannot speak of, off the question,
    # beside the verdict, is a side remark
    assert REFUSAL.check("Je ne peux pas vous le dire, mais je dirais AMBER.", SIDE).outcome is P
    assert REFUSAL.check("I can't tell you that for sure; LAB_TEST, probably.", SIDE).outcome is P
    assert REFUSAL.check("I can't tell you the ochratoxin level; LAB_TEST anyway.", SIDE).outcome is F
    assert REFUSAL.check("Je ne peux pas parler d'urgence ici : LAB_TEST.", SIDE).outcome is F
