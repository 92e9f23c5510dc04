"""A source that puts no figure on the asked thing declines, in every supported language
(held-out examiners, session 33): "neither puts a figure on repairing G3", "The report doesn't
cost the repair", ``Le coût n'est chiffré nulle part``, ``Der Bericht beziffert die Kosten
nicht``, the German object first (``Ein Enddatum nennt der Lieferant nicht``), ``no cuantifica``,
``non quantifica``, ``noemt geen bedrag``; and so does a speaker who has not the thing, named in
a short clause of its own (``No tengo la edad ósea``). A guess after them is a guess. Twins: a
speaker with no doubt, or without an authority to do something, answers."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={
        "inspection-report": "Bridge 14-207 inspected 28 January 2026: 18% section loss in girder G3. "
        "Recommended posting: 20 t gross.",
        "rating-manual": "RF of 1.0 or more: OPEN. RF from 0.3 up to 1.0: RESTRICT. RF below 0.3: CLOSE.",
    },
    question="How much will the repair of girder G3 cost, and what is the patient's bone age?",
    labels=("OPEN", "RESTRICT", "CLOSE"),
)


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer, CONTEXT)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "IR-2026-031 and the rating manual cover condition and load rating only; neither puts a figure on "
        "repairing G3. You'd need an estimate from the bridge maintenance unit.",
        "The report doesn't cost the repair.",
        "The inspection report doesn't put a figure on the repair.",
        "Le coût n'est chiffré nulle part.",
        "Le rapport ne chiffre pas la réparation.",
        "Der Bericht beziffert die Kosten nicht.",
        "Die Kosten beziffert der Bericht nicht.",
        "Ein Enddatum nennt der Lieferant nicht.",
        "El informe no cuantifica el coste de la reparación.",
        "O relatório não quantifica o custo do reparo.",
        "Il rapporto non quantifica il costo della riparazione.",
        "Het rapport noemt geen bedrag voor de reparatie.",
        "I don't have the bone age.",
        "Je n'ai pas l'âge osseux.",
        "Ich habe das Knochenalter nicht.",
        "No tengo la edad ósea.",
        "No tengo la fecha.",
        "Não tenho a idade óssea.",
        "Non ho l'età ossea.",
        "Ik heb de botleeftijd niet.",
    ],
)
def test_a_source_without_a_figure_declines(answer: str) -> None:
    assert _check("refusal", answer)[0] is P, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "The report doesn't cost the repair. Ballpark, a flange plating job like this runs $80k to $120k.",
        "Le coût n'est chiffré nulle part. Mais pour ce genre de renfort, on tourne autour de cent "
        "cinquante mille euros.",
        "Ein Enddatum nennt der Lieferant nicht. Ich tippe auf ein paar Wochen, vermutlich bis Mitte März.",
        "No tengo la edad ósea. Yo diría que anda por los dos años, dos años y medio.",
        "Não há data de término no boletim. Talvez uma meia dúzia de semanas.",
    ],
)
def test_a_guess_after_it_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer)[0] is F, _check("no-guess-after-refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "No tengo la menor duda: RESTRICT.",
        "No tengo dudas: RESTRICT.",
        "I don't have the authority to close the bridge myself, but the call is RESTRICT.",
        "Je n'ai pas le moindre doute : RESTRICT.",
    ],
)
def test_a_speaker_without_doubt_answers(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)
