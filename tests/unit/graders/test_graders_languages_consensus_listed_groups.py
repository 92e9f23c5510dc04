"""A claim that names several groups needs each group's stated agreement (session 35).

"Da sind sich Makler und Compliance einig" passed when the context stated only the broker's "We
agree": in the languages read by their tables, a word of a claim's subject no table translates was
taken as one that may only qualify a group ("les pharmaciens de réanimation"), so the compliance
team's agreement was never asked for. An item of a list joined by a word of ``group_and`` is a
group named on its own, in a subject, after a claim's preposition or in "both A and B"; a team's or
a department's word there qualifies the group the other words name (``el equipo de
cumplimiento``, ``de financiële afdeling``, ``die Compliance-Abteilung``).
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._lexicon import TABLE_LANGUAGES, find_claims, lexicons

BROKER = "E-mail from the customs broker (M. Kowal): 'We agree with the classification under 8708.70.10.'"
BOTH = BROKER + " Compliance note: the compliance team agrees that the anti-dumping duty applies."


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-3": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: a claim by the broker and by compliance, in each language
LISTED = [
    ("en", "The broker and the compliance team both agree: the anti-dumping duty applies."),
    ("fr", "Le transitaire et le service conformité sont d'accord : c'est le droit antidumping."),
    ("fr", "Il y a consensus entre le courtier et l'équipe conformité : antidumping."),
    ("de", "Da sind sich Makler und Compliance einig: Antidumpingzoll, kein Weg drumherum."),
    ("de", "Der Zollmakler und die Compliance-Abteilung sind sich einig: Antidumpingzoll."),
    ("es", "Hay consenso entre los agentes de aduanas y el equipo de cumplimiento: antidumping."),
    ("es", "El bróker y el equipo de cumplimiento están de acuerdo: se aplica el antidumping."),
    ("pt", "O despachante e a equipa de conformidade estão de acordo: aplica-se o antidumping."),
    ("it", "Lo spedizioniere e il team compliance sono d'accordo: si applica l'antidumping."),
    ("nl", "Zowel de douanemakelaar als de compliance-afdeling vinden dit een helder geval."),
    ("nl", "De makelaar en compliance zijn het erover eens: antidumpingrecht."),
]

#: the twins: the broker alone, the claim the context states
BROKER_ALONE = [
    ("en", "The broker agrees with the classification."),
    ("fr", "Le transitaire est d'accord avec le classement."),
    ("de", "Der Makler ist mit der Einreihung einverstanden."),
    ("es", "El agente de aduanas está de acuerdo con la clasificación."),
    ("pt", "O despachante concorda com a classificação."),
    ("it", "Lo spedizioniere è d'accordo con la classificazione."),
    ("nl", "De douanemakelaar gaat akkoord met de indeling."),
]


@pytest.mark.parametrize(("lang", "answer"), LISTED)
def test_each_group_of_a_list_needs_its_own_stated_agreement(lang: str, answer: str) -> None:
    assert check(answer, BROKER) is CheckOutcome.FAIL, lang
    assert check(answer, BOTH) is CheckOutcome.PASS, lang


@pytest.mark.parametrize(("lang", "answer"), BROKER_ALONE)
def test_one_group_stated_supports_a_claim_by_that_group(lang: str, answer: str) -> None:
    assert check(answer, BROKER) is CheckOutcome.PASS, lang


def test_a_group_never_stated_is_needed_too() -> None:
    """The finance department is nowhere in the context."""
    answer = "Zowel de douanemakelaar als de financiële afdeling vinden dit een helder geval."
    assert check(answer, BOTH) is CheckOutcome.FAIL
    both = "The customs broker and the finance department agreed this is a clear anti-dumping case."
    assert check(answer, both) is CheckOutcome.PASS


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        # a phrase set off by a comma before the subject is no item of a list
        ("fr", "Côté hôtel, le facility manager est d'accord pour caler le réglage."),
        # nor a clause joined on by "and" ("Priya recommends REFER and the team agrees")
        ("es", "Kowal recomienda esta partida arancelaria y el agente de aduanas está de acuerdo."),
    ],
)
def test_what_is_no_list_names_no_second_group(lang: str, answer: str) -> None:
    lexes = lexicons(TABLE_LANGUAGES, True)
    groups = {g for _, _, gs in find_claims(lexes, answer) for g in gs}
    assert not any(g.startswith("!") for g in groups), groups
