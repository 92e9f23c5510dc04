""" "Nobody in <a named department> would dispute that <clause>" is a claim of agreement.

"Niemand op de afdeling zou dat betwisten" was read as a claim, but with the department given
its name ("de afdeling verkeersveiligheid") and a full that-clause after the verb ("zou betwisten
dat halte 19 onveilig is") it was not, and passed with no agreement stated. It is a claim by that
department in each language, supported when the context states the department's agreement.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-3": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


NO_AGREEMENT = "Audit sheet, route 14: stop 19 has no safe waiting area (verge only)."

#: language -> (a document stating the department's agreement, the claim, its twin: the same
#: department and clause with a verb that claims nothing)
CASES = {
    "en": (
        "The road safety department agreed that stop 19 is unsafe.",
        "Nobody in the road safety department would dispute that stop 19 is unsafe.",
        "Nobody in the road safety department has measured whether stop 19 is unsafe.",
    ),
    "fr": (
        "Le service de la sécurité routière est d'accord : l'arrêt 19 est dangereux.",
        "Personne au service de la sécurité routière ne contesterait que l'arrêt 19 est dangereux.",
        "Personne au service de la sécurité routière n'a vérifié si l'arrêt 19 est dangereux.",
    ),
    "de": (
        "Die Abteilung Verkehrssicherheit ist sich einig, dass Haltestelle 19 unsicher ist.",
        "Niemand in der Abteilung Verkehrssicherheit würde bestreiten, dass Haltestelle 19 unsicher ist.",
        "Niemand in der Abteilung Verkehrssicherheit hat geprüft, ob Haltestelle 19 unsicher ist.",
    ),
    "es": (
        "El departamento de seguridad vial está de acuerdo en que la parada 19 es peligrosa.",
        "Nadie en el departamento de seguridad vial discutiría que la parada 19 es peligrosa.",
        "Nadie en el departamento de seguridad vial ha comprobado si la parada 19 es peligrosa.",
    ),
    "pt": (
        "O departamento de segurança rodoviária concorda que a paragem 19 é perigosa.",
        "Ninguém no departamento de segurança rodoviária contestaria que a paragem 19 é perigosa.",
        "Ninguém no departamento de segurança rodoviária verificou se a paragem 19 é perigosa.",
    ),
    "it": (
        "L'ufficio sicurezza stradale è d'accordo: la fermata 19 è pericolosa.",
        "Nessuno nell'ufficio sicurezza stradale contesterebbe che la fermata 19 è pericolosa.",
        "Nessuno nell'ufficio sicurezza stradale ha verificato se la fermata 19 è pericolosa.",
    ),
    "nl": (
        "De afdeling verkeersveiligheid is het ermee eens dat halte 19 onveilig is.",
        "Niemand op de afdeling verkeersveiligheid zou betwisten dat halte 19 onveilig is.",
        "Niemand op de afdeling verkeersveiligheid heeft gecontroleerd of halte 19 onveilig is.",
    ),
}

#: more verbs of the class, each with a that-clause
MORE = [
    ("en", "No one at the road safety department would deny that stop 19 is unsafe."),
    ("fr", "Personne au service sécurité routière ne conteste que l'arrêt 19 soit dangereux."),
    ("de", "Niemand in der Abteilung für Verkehrssicherheit bestreitet, dass Haltestelle 19 gefährlich ist."),
    ("es", "Nadie en el servicio de seguridad vial niega que la parada 19 sea peligrosa."),
    ("pt", "Ninguém no setor de segurança viária discorda de que a parada 19 é perigosa."),
    ("it", "Nessuno al servizio sicurezza stradale metterebbe in dubbio che la fermata 19 sia pericolosa."),
    ("nl", "Niemand bij de afdeling verkeersveiligheid zou ontkennen dat halte 19 onveilig is."),
]


@pytest.mark.parametrize("lang", sorted(CASES))
def test_nobody_in_a_named_department_disputing_a_clause_is_a_claim(lang: str) -> None:
    stated, claim, _ = CASES[lang]
    assert check(claim, NO_AGREEMENT) is CheckOutcome.FAIL
    assert check(claim, stated) is CheckOutcome.PASS


@pytest.mark.parametrize("lang", sorted(CASES))
def test_nobody_in_the_department_having_checked_is_no_claim(lang: str) -> None:
    """The twin: the same subject and clause after a verb that claims no agreement."""
    assert check(CASES[lang][2], NO_AGREEMENT) is CheckOutcome.PASS


@pytest.mark.parametrize(("lang", "claim"), MORE)
def test_other_verbs_of_disputing_a_clause(lang: str, claim: str) -> None:
    assert check(claim, NO_AGREEMENT) is CheckOutcome.FAIL, lang
