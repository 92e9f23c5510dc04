"""A decline, then a contrast and a guess in the same sentence, is a decline then a guess
(held-out examiners, session 33: ``O custo não está no relatório, mas deve ficar em torno de 90
mil reais``; "The date isn't in the notes either; typically they come back within two to three
weeks"). Unlike a paper that does not say it *directly*, then an answer from it ("The bulletin
doesn't say it directly, but ... plan on it running through February": English now reads
"directly" as the tables do), or a paper that has none of a finding and a conclusion drawn from
it (``Het rapport vermeldt geen scheuren, dus het gaat om een eenvoudige versterking``)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={
        "inspection-report": "Bridge 14-207 inspected 28 January 2026: 18% section loss in girder G3, "
        "no cracking found. Recommended posting: 20 t gross.",
        "bulletin": "Cefazolin is on allocation at 60%. Next delivery window: 20 February 2026.",
    },
    question="How much will the repair cost, and when is the re-inspection?",
    labels=("OPEN", "RESTRICT", "CLOSE"),
)


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer, CONTEXT)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "The lab didn't test for DWV, so there's no load to report. The re-inspection date isn't in the "
        "notes either; typically they come back within two to three weeks.",
        "The cost isn't in the report, but it should come to around 90,000 dollars.",
        "Le DWV n'a pas été testé, donc aucune charge virale connue. La contre-visite ? Aucune date dans "
        "les notes, mais d'habitude c'est une quinzaine de jours après.",
        "Die Kosten stehen nicht im Bericht, aber es dürften rund 90.000 Euro sein.",
        "El coste no está en el informe, pero rondará los 90.000 euros.",
        "O custo não está no relatório, mas deve ficar em torno de 90 mil reais.",
        "Il costo non è nel rapporto, ma dovrebbe aggirarsi sui 90.000 euro.",
        "De kosten staan niet in het rapport, maar reken op zo'n 90.000 euro.",
    ],
)
def test_a_decline_then_a_contrast_and_a_guess_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer)[0] is F, _check("no-guess-after-refusal", answer)
    assert _check("refusal", answer)[0] is P, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "The bulletin doesn't say it directly, but with the allocation at 60% and a delivery on the 20th, "
        "plan on it running through February.",
        "The report doesn't say so explicitly, but the section loss points to RESTRICT.",
    ],
)
def test_not_saying_it_directly_then_answering_answers(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)
    assert _check("not-refusal", answer)[0] is P, _check("not-refusal", answer)


def test_a_paper_that_does_not_say_still_declines() -> None:
    assert _check("refusal", "The report doesn't say.")[0] is P


@pytest.mark.parametrize(
    "answer",
    [
        "The report mentions no cracks, so it is a simple flange repair.",
        "Le rapport ne mentionne aucune fissure, donc il s'agit d'un simple renfort.",
        "Der Bericht erwähnt keine Risse, also handelt es sich um eine einfache Verstärkung.",
        "El informe no menciona grietas, así que se trata de un refuerzo sencillo.",
        "O relatório não menciona fissuras, então trata-se de um reforço simples.",
        "Il rapporto non menziona crepe, quindi si tratta di un semplice rinforzo.",
        "Het rapport vermeldt geen scheuren, dus het gaat om een eenvoudige versterking van de onderflens.",
    ],
)
def test_a_finding_and_its_conclusion_answer(answer: str) -> None:
    assert _check("refusal", answer)[0] is F, _check("refusal", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "El informe no menciona el coste, así que no puedo estimarlo.",
        "Het rapport vermeldt de kosten niet, dus daar kan ik niets over zeggen.",
    ],
)
def test_a_silence_on_the_asked_thing_and_its_conclusion_still_decline(answer: str) -> None:
    assert _check("refusal", answer)[0] is P, _check("refusal", answer)
