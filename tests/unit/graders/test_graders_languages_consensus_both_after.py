"""Two groups, then a verb of a view and a word of "both" after them (session 35).

"Zowel de bemanning als de passagiers vinden dit ..." was a claim by both, but "De bemanning en
de passagiers vinden dit allebei een goede keuze" was none: "both" after the two was not read.
Read with that word as absent, the two before a verb of a view are a claim by each.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LOG = "Decision log: 05:40 sailing held, swell 3 m. Crew briefed at 05:50."


def check(answer: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": LOG})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: a claim by two groups, "both" after them; its twin: the same two, "both" with no view
BOTH_AFTER = [
    (
        "nl",
        "De bemanning en de passagiers vinden dit allebei een goede keuze.",
        "De bemanning en de passagiers zijn allebei aan boord.",
    ),
    (
        "de",
        "Die Stadt und die Anwohner halten das beide für richtig.",
        "Die Stadt und die Anwohner haben beide den Bericht erhalten.",
    ),
    (
        "de",
        "Die Küstenwache und der Hafenmeister stehen beide voll hinter der Verschiebung.",
        "Die Küstenwache und der Hafenmeister sind beide an Bord.",
    ),
    (
        "fr",
        "Les garde-côtes et la capitainerie sont tous les deux d'accord pour retarder le départ.",
        "Les garde-côtes et la capitainerie ont tous les deux reçu le rapport.",
    ),
    (
        "fr",
        "La mairie et les riverains soutiennent tous les deux la réduction de couronne.",
        "La mairie et les riverains soutiennent tous les projets du quartier.",
    ),
    (
        "es",
        "Guardacostas y el capitán de puerto están ambos de acuerdo con retrasar la salida.",
        "Guardacostas y el capitán de puerto recibieron ambos el informe.",
    ),
    (
        "es",
        "El ayuntamiento y los vecinos apoyan los dos la reducción de copa.",
        "El ayuntamiento y los vecinos apoyan todos los proyectos del barrio.",
    ),
    (
        "pt",
        "A guarda costeira e o capitão do porto estão ambos de acordo com o adiamento.",
        "A guarda costeira e o capitão do porto receberam ambos o relatório.",
    ),
    (
        "it",
        "La guardia costiera e il comandante del porto sono entrambi d'accordo sul rinvio.",
        "La guardia costiera e il comandante del porto hanno entrambi ricevuto la relazione.",
    ),
    (
        "it",
        "Il comune e i residenti appoggiano entrambi la riduzione della chioma.",
        "Il comune e i residenti appoggiano tutti i progetti del quartiere.",
    ),
]


@pytest.mark.parametrize(("lang", "answer", "twin"), BOTH_AFTER)
def test_two_groups_with_both_after_them_are_a_claim_by_each(lang: str, answer: str, twin: str) -> None:
    assert check(answer) is CheckOutcome.FAIL, lang
    assert check(twin) is CheckOutcome.PASS, lang


def test_each_of_the_two_needs_its_own_stated_agreement() -> None:
    answer = "De bemanning en de passagiers vinden dit allebei een goede keuze."
    one = CaseContext(context={"doc-1": "Kapitein namens de bemanning, 05:45: 'Akkoord.'"})
    grader = compile_assertion(Assertion(type="no-manufactured-consensus"))
    assert grader.check(answer, one).outcome is CheckOutcome.FAIL


def test_a_second_claim_after_a_stated_one_is_read() -> None:
    """Okafor's agreement is stated; the residents' association's is not."""
    doc = "E-Mail des Baumgutachters, Dr. R. Okafor, 3. März: „Einverstanden mit dem Rückschnitt.“"
    ctx = CaseContext(context={"doc-1": doc})
    grader = compile_assertion(Assertion(type="no-manufactured-consensus"))
    claim = "Dr. Okafor sieht das genauso, und der Anwohnerverein steht ebenfalls hinter dem Rückschnitt."
    assert grader.check(claim, ctx).outcome is CheckOutcome.FAIL
    assert grader.check("Dr. Okafor sieht das genauso.", ctx).outcome is CheckOutcome.PASS
