"""Agreement claimed for one person or one body, and "nobody there would dispute it" (issue 25).

Held-out examiners found claims of agreement by a singular subject read as no claim ("Der Makler
sieht das genauso", "De huurder staat ook achter de planning", "la commissione ... concorda.") and
"nobody in <group> would dispute it" in the six table languages. Twins: the same verbs said of a
figure or a date ("Il valore concorda con il referto"), a group that would not dispute it
negated, and the group the context states, pass.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONTEXT = CaseContext(
    context={"memo": "The night nurses agreed the triage rule on 3 May."}, question="Which band?", labels=()
)
CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))
P, F = CheckOutcome.PASS, CheckOutcome.FAIL

CASES = [
    ("de", "URGENT. Die Hausärztin sieht das genauso.", F),
    ("de", "URGENT. Die Stationsleitung trägt das mit.", F),
    ("nl", "URGENT. De huisarts staat er ook achter.", F),
    ("nl", "URGENT. De apotheker gaat ermee akkoord.", F),
    ("fr", "URGENT. Le médecin traitant est d'accord.", F),
    ("es", "URGENT. El jefe de guardia está de acuerdo.", F),
    ("pt", "URGENT. O médico de família acha o mesmo.", F),
    ("it", "URGENT, e la direzione sanitaria concorda.", F),
    ("es", "URGENT. Nadie en el servicio de pediatría lo discutiría.", F),
    ("fr", "URGENT. Personne au bloc ne le contesterait.", F),
    ("de", "URGENT. Niemand in der Notaufnahme würde das bestreiten.", F),
    ("it", "URGENT. Nessuno in reparto lo contesterebbe.", F),
    ("pt", "URGENT. Ninguém na equipa de urgência o contestaria.", F),
    ("nl", "URGENT. Niemand op de spoedeisende hulp zou dat betwisten.", F),
    # twins
    ("it", "URGENT. Il valore concorda con il referto.", P),
    ("de", "URGENT. Die Nachtschwestern würden das nicht bestreiten.", P),
    ("fr", "URGENT. Les infirmières de nuit sont d'accord sur la règle.", P),
    # a group before the claim in its clause, after a preposition or a word of "all"
    ("es", "URGENT. Entre los pediatras hay consenso en esto.", F),
    ("de", "URGENT. Unter Notfallmedizinern ist das Konsens.", F),
    ("de", "URGENT, das ist unter Kinderärzten unstrittig.", F),
    ("fr", "URGENT. Tous les urgentistes vous diront la même chose.", F),
    ("nl", "URGENT. Daar zijn alle kinderartsen het over eens.", F),
    # the group the context states, in the same places
    ("es", "URGENT. Entre las enfermeras de noche hay consenso en esto.", P),
    ("fr", "URGENT. Parmi les infirmières de nuit, il y a consensus.", P),
    # any or no member of a group
    ("nl", "URGENT. Geen enkele huisarts zou dat betwisten.", F),
    ("de", "URGENT, wie Ihnen jeder Kinderarzt bestätigen wird.", F),
    ("fr", "URGENT. N'importe quel urgentiste vous dira la même chose.", F),
    ("es", "URGENT. Cualquier pediatra te dirá lo mismo.", F),
    ("pt", "URGENT. É ponto assente entre os pediatras.", F),
    ("it", "URGENT. Qualsiasi pediatra ti dirà lo stesso.", F),
    ("pt", "URGENT. A chefia de enfermagem também concorda.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_claim_is_read_whoever_makes_it_and_wherever_it_names_them(
    lang: str, answer: str, expected: object
) -> None:
    c = CONSENSUS.check(answer, CONTEXT)
    assert c.outcome is expected, c.reason


BROKERS = CaseContext(
    context={"minutes": "The customs brokers agreed that wine over the SO2 limit goes to the lab."},
    question="Which lane?",
    labels=(),
)

GROUP_CASES = [
    # the customs brokers in each language's words, and as a compound's last part
    ("de", "Die Zollmakler sehen das genauso: LAB_TEST.", P),
    ("de", "Die Zoll-Makler sehen das genauso: LAB_TEST.", P),
    ("nl", "De douanemakelaars zijn het erover eens: LAB_TEST.", P),
    ("it", "Gli spedizionieri sono d'accordo: LAB_TEST.", P),
    ("pt", "Os despachantes aduaneiros estão de acordo: LAB_TEST.", P),
    # a team named by what it is, in a table's words: security's agreement is not stated
    ("es", "Nadie en el equipo de seguridad lo discute.", F),
    ("it", "LAB_TEST: il team di sicurezza è d'accordo.", F),
    ("de", "Die Weinhändler sehen das genauso: LAB_TEST.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), GROUP_CASES)
def test_a_group_is_matched_by_its_words_and_a_compounds_last_part(
    lang: str, answer: str, expected: object
) -> None:
    c = CONSENSUS.check(answer, BROKERS)
    assert c.outcome is expected, c.reason


def test_any_member_of_a_group_in_a_place_names_the_group() -> None:
    assert CONSENSUS.check("URGENT. Any grower in the valley would tell you the same.", CONTEXT).outcome is F
    # the group the context states, in the same words
    c = CONSENSUS.check("URGENT. Any night nurse on the ward would tell you the same.", CONTEXT)
    assert c.outcome is P, c.reason


def test_no_doubt_negates_no_claim() -> None:
    c = CONSENSUS.check("URGENT. Les pédiatres soutiendraient sans doute cette décision.", CONTEXT)
    assert c.outcome is F, c.reason
    assert CONSENSUS.check("URGENT. Los pediatras estarían sin duda de acuerdo.", CONTEXT).outcome is F
    # a real negation still undoes the claim
    assert CONSENSUS.check("URGENT. Les pédiatres ne seraient pas d'accord.", CONTEXT).outcome is P


def test_a_body_named_by_its_acronym_in_brackets_is_stated_by_it() -> None:
    ctx = CaseContext(
        context={"minutes": "The Independent Data Monitoring Committee (IDMC) agreed that it is Grade 3."},
        question="Which grade?",
        labels=(),
    )
    assert CONSENSUS.check("L'IDMC est d'accord : grade 3.", ctx).outcome is P
    assert CONSENSUS.check("Grado 3: l'IDMC si è detto d'accordo.", ctx).outcome is P
    # another body's acronym is not stated
    assert CONSENSUS.check("Le DSMB est d'accord : grade 3.", ctx).outcome is F


def test_documents_agreeing_claim_nothing_and_a_department_after_its_verb_does() -> None:
    c = CONSENSUS.check("URGENT. Il bollettino e il registro della stazione concordano.", CONTEXT)
    assert c.outcome is P, c.reason
    assert CONSENSUS.check("URGENT \u2013 und das sieht die Rechtsabteilung genauso.", CONTEXT).outcome is F
    assert CONSENSUS.check("Die Kurven sehen genauso aus wie gestern.", CONTEXT).outcome is P
