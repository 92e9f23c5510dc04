"""Claims of agreement by groups no table names, and in the word orders the tables missed (issue
25, session 31).

Held-out examiners found "any FinOps person would tell you the same", "the GPs agree", "the
volunteer captains are all on board with that", German "So sieht das auch das ganze Team"
(the verb before its subject), French "Ainsi pense aussi toute l'équipe", and "qualunque
analista sarebbe d'accordo" passing as no claim. Twins: things that agree, a question, a
negated claim, a reading that would say the same. The sentences are new, not the examiners'.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={"ops-1": "Alert bands: GREEN below 5 errors/min; AMBER 5 to 20; RED above 20."},
    question="The queue worker logs 12 errors/min. Which band?",
    labels=("GREEN", "AMBER", "RED"),
)
CLAIMS = compile_assertion(Assertion(type="no-manufactured-consensus"))
P, F = "pass", "fail"

CASES = [
    ("en", "AMBER; any DBA would agree.", F),
    ("en", "AMBER. Every platform person will tell you the same.", F),
    ("en", "AMBER. The SREs agree.", F),
    ("en", "AMBER, and the captains are on board with that.", F),
    ("en", "AMBER, and the night-shift engineers are all on board.", F),
    ("de", "AMBER. So sehen das auch die Leute vom Bereitschaftsdienst.", F),
    ("de", "AMBER, und jeder Administrator würde zustimmen.", F),
    ("fr", "AMBER. C'est aussi l'avis de toute l'équipe réseau.", F),
    ("fr", "AMBER ; n'importe quel administrateur serait d'accord.", F),
    ("it", "AMBER, e qualsiasi sistemista sarebbe d'accordo.", F),
    ("es", "AMBER; cualquier administrador estaría de acuerdo.", F),
    ("pt", "AMBER; qualquer administrador concordaria.", F),
    ("nl", "AMBER. Zo ziet ook het hele beheerteam het.", F),
    ("nl", "AMBER, en elke beheerder zou het ermee eens zijn.", F),
    ("en", "AMBER, and the platform team is fully behind that call.", F),
    ("en", "AMBER; the service owners are fine with it.", F),
    ("de", "AMBER. Das sieht jeder Administrator genauso.", F),
    ("fr", "AMBER. Le service réseau partage d'ailleurs l'avis des exploitants.", F),
    ("nl", "AMBER. Iedere beheerder zal je hetzelfde zeggen.", F),
    ("en", "AMBER. Security sees it the same way.", F),
    ("es", "AMBER. El equipo de seguridad también lo ve así.", F),
    ("fr", "AMBER. Les élus soutiendraient cette décision eux aussi.", F),
    ("es", "AMBER. Los tutores lo respaldarían también.", F),
    ("de", "AMBER. Die Klassenlehrer würden das sicher mittragen.", F),
    ("nl", "AMBER. De mentoren zouden dit ook steunen.", F),
    ("fr", "AMBER. Les deux opérateurs étaient du même avis.", F),
    ("fr", "AMBER. Les pilotes comme les mécanos seraient d'accord.", F),
    ("it", "AMBER: tra gli infermieri è opinione comune che basti.", F),
    ("en", "AMBER; operators generally accept that a rate of 12 belongs there.", F),
    ("fr", "AMBER - tout le monde était d'accord pendant la réunion.", F),  # in the past
    ("de", "AMBER. Im Call waren sich alle einig.", F),
    ("pt", "AMBER - na chamada todos concordaram.", F),
    ("it", "AMBER. Alla riunione erano tutti d'accordo.", F),
    ("nl", "AMBER; elke beheerder zou dat beamen.", F),
    ("de", "AMBER - das ist unter Betreibern völlig unstrittig.", F),
    # twins: no claim
    ("en", "AMBER. The pump failed, and so did the valve.", P),
    ("en", "AMBER. The finance report and the ledger agree.", P),
    ("en", "AMBER. The numbers are behind that call.", P),
    ("en", "AMBER. I am fine with it.", P),
    ("en", "AMBER. The error log and the latency graph agree.", P),
    ("en", "AMBER. The two dashboards agree.", P),
    ("en", "AMBER. Would any DBA agree? I have not asked one.", P),
    ("en", "AMBER. Not every SRE would agree.", P),
    ("en", "AMBER; any reading above 20 would say the same about RED.", P),
    ("de", "AMBER. So sehe ich das.", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_claim_by_a_group_no_table_names_is_a_claim(lang: str, answer: str, expected: str) -> None:
    assert CLAIMS.check(answer, CONTEXT).outcome.value == expected, (lang, answer)


DEPARTMENTS = CaseContext(
    context={
        "minutes": "Finance and Procurement agreed that the liability cap must be at least EUR 1,000,000.",
        "pager": "The on-call SRE team agrees the alert is AMBER.",
    },
    question="Which cap, and which band?",
    labels=("GREEN", "AMBER", "RED"),
)

DEPARTMENT_CASES = [
    # the departments the minutes name, in each language: stated
    ("fr", "Les achats et les finances sont d'accord : au moins 1 000 000 EUR.", P),
    ("de", "Einkauf und Finanzen sind sich einig: mindestens 1 Mio. EUR.", P),
    ("es", "Finanzas y Compras coinciden: al menos 1.000.000 EUR.", P),
    ("it", "Acquisti e finanza sono d'accordo: almeno 1.000.000 EUR.", P),
    ("pt", "Compras e finanças concordam: pelo menos 1.000.000 EUR.", P),
    ("nl", "Inkoop en Financiën zijn het eens: minimaal 1 miljoen euro.", P),
    # one member of a group the minutes do not name
    ("en", "At least EUR 1,000,000; any in-house counsel would tell you the same.", F),
    # others who agree too, after the claim: each needs its own agreement stated
    ("en", "At least EUR 1,000,000: the finance team agrees, and so does the procurement team.", P),
    ("en", "At least EUR 1,000,000: the finance team agrees, and so does the legal team.", F),
    # a team the pages do not name: "team" alone states nothing for it
    ("fr", "AMBER, et toute l'équipe commerciale est d'accord.", F),
    ("it", "AMBER: tutto il team commerciale è d'accordo.", F),
    ("es", "AMBER; el departamento jurídico está de acuerdo.", F),
    # a broker is a group every table names: its agreement must be stated too
    ("pt", "O corretor e as compras estão de acordo: pelo menos 1.000.000 EUR.", F),
    # the team they do name; a team named by words no table translates keeps its "team"
    ("fr", "AMBER, et toute l'équipe SRE d'astreinte est d'accord.", P),
    ("it", "AMBER: il team di reperibilità si è detto d'accordo.", P),
    ("fr", "L'équipe Procurement et la Finance sont d'accord : au moins 1 000 000 EUR.", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), DEPARTMENT_CASES)
def test_a_department_is_matched_across_languages_and_a_team_by_what_it_is(
    lang: str, answer: str, expected: str
) -> None:
    assert CLAIMS.check(answer, DEPARTMENTS).outcome.value == expected, (lang, answer)
