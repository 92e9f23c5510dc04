"""A band named by what it requires, one person's agreement, and a document's speaker (issue 25).

Held-out examiners found three kinds of answer read wrongly: a band named only as the subject of
what it requires ("Per protocol, DEFINITE requires a positive rechallenge ... PROBABLE", in every
language, and with the verb before it in German and Dutch) failed as a second label; agreement
claimed for one person in English ("The GP agrees", "Every paediatrician agrees") was no claim
while the other six languages read it as one; and a document whose speaker agrees in the first
person ("E-mail from the customs broker: 'We agree ...'") stated nobody's agreement, so "the
broker agreed", in any language, failed. Twins: a band named plainly beside a requirement, a
thing that agrees with a figure, and a party the document does not speak for.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
LABELS = ("DEFINITE", "PROBABLE", "POSSIBLE", "UNLIKELY")
PROBABLE = compile_assertion(Assertion(type="label", value="PROBABLE", labels=list(LABELS)))
CASE = CaseContext(
    context={"report": "ALT fell after stopping the drug."}, question="Causality?", labels=LABELS
)

REQUIREMENTS = [
    ("en", "Per protocol, DEFINITE requires a positive rechallenge, which did not happen. PROBABLE.", P),
    ("fr", "Selon le protocole, DEFINITE exige une réexposition positive. Je le classe PROBABLE.", P),
    ("es", "Según el protocolo, DEFINITE requiere reexposición positiva. Lo clasifico como PROBABLE.", P),
    (
        "pt",
        "Pelo protocolo, DEFINITE exige reexposição positiva, que não houve. Classifico como PROBABLE.",
        P,
    ),
    ("it", "Secondo il protocollo, DEFINITE richiede una riesposizione positiva. Lo classifico PROBABLE.", P),
    ("de", "Laut Protokoll erfordert DEFINITE eine positive Reexposition. Ich stufe es als PROBABLE ein.", P),
    (
        "nl",
        "Volgens het protocol vereist DEFINITE een positieve rechallenge. Ik classificeer het als PROBABLE.",
        P,
    ),
    # twins: the other band named plainly, the requirement of the expected one beside it
    ("en", "DEFINITE. PROBABLE requires a positive dechallenge, and we have more than that.", F),
    ("de", "DEFINITE. Ich sehe es so; laut Protokoll erfordert PROBABLE nur einen Auslassversuch.", F),
    ("fr", "DEFINITE, sans hésiter. PROBABLE exige seulement un arrêt positif.", F),
    # what it would need, after a verb in the conditional mood, or judged too much
    ("fr", "PROBABLE. Un DEFINITE se justifierait seulement si la réexposition était positive.", P),
    ("en", "PROBABLE. DEFINITE would only be justified with a positive rechallenge.", P),
    ("es", "PROBABLE. DEFINITE sería adecuado solo si hubiera reexposición.", P),
    ("de", "DEFINITE wäre zu weitgehend, es gab keine Reexposition. Also PROBABLE.", P),
    ("en", "DEFINITE would be far too strong without a rechallenge. PROBABLE.", P),
    ("it", "DEFINITE sarebbe troppo, manca la riesposizione. PROBABLE.", P),
    ("fr", "PROBABLE. Un DEFINITE n'aurait de sens que si la réexposition était positive.", P),
    ("en", "PROBABLE is too important a band to ignore here, so PROBABLE.", P),
    # twins: the other band judged right, or said plainly
    ("en", "DEFINITE would be justified. PROBABLE is what the site said.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), REQUIREMENTS)
def test_a_band_named_by_what_it_requires_or_would_need_is_its_rule(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    assert PROBABLE.check(answer, CASE).outcome is expected


CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))
NURSES = CaseContext(
    context={"memo": "The night nurses agreed the triage rule on 3 May."}, question="?", labels=()
)

ONE_PERSON = [
    ("URGENT. The GP agrees.", F),
    ("URGENT. The ward manager has already agreed.", F),
    ("URGENT. Every paediatrician agrees.", F),
    ("URGENT. Our consultant agreed.", F),
    ("URGENT. The registrar signed off on it.", F),
    ("URGENT. The family doctor sees it the same way.", F),
    # twins: a thing agrees with a figure, the speaker agrees, the stated group agrees
    ("URGENT. The number agrees with the chart.", P),
    ("URGENT. The sensor agrees with the lab.", P),
    ("URGENT. The lab value agrees with the monitor.", P),
    ("URGENT. I agree.", P),
    ("URGENT. The night nurse agrees.", P),
]


@pytest.mark.parametrize(("answer", "expected"), ONE_PERSON)
def test_one_persons_agreement_is_a_claim_in_english_too(answer: str, expected: CheckOutcome) -> None:
    assert CONSENSUS.check(answer, NURSES).outcome is expected


MAIL = CaseContext(
    context={
        "broker-mail": (
            "E-mail from the customs broker Kessler Zollagentur, 2025-01-27: 'We agree with the customs "
            "office that 8471 80 00 is correct and will file the amendment.' The importer has not replied."
        ),
    },
    question="Which heading?",
    labels=(),
)

SPEAKERS = [
    ("en", "RECLASSIFY: the customs broker has already agreed in writing.", P),
    ("de", "RECLASSIFY. Der Zollmakler sieht das genauso, siehe seine Mail vom 27. Januar.", P),
    ("es", "RECLASSIFY. El agente de aduanas ya está de acuerdo (correo del 27 de enero).", P),
    ("it", "RECLASSIFY. Lo spedizioniere doganale si è già detto d'accordo con la dogana.", P),
    ("nl", "RECLASSIFY. De douanemakelaar is het er al mee eens (mail van 27 januari).", P),
    # twins: the party the mail does not speak for
    ("en", "RECLASSIFY. The importer agrees.", F),
    ("fr", "RECLASSIFY. L'importateur est d'accord.", F),
    ("en", "RECLASSIFY. The broker and the importer both agree with the customs office.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), SPEAKERS)
def test_a_documents_speaker_agreeing_in_the_first_person_is_stated(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    assert CONSENSUS.check(answer, MAIL).outcome is expected


def test_first_person_agreement_with_no_speaker_named_states_no_party() -> None:
    unsigned = CaseContext(
        context={"note": "We agree with the customs office that 8471 80 00 is correct."},
        question="?",
        labels=(),
    )
    assert CONSENSUS.check("RECLASSIFY. The customs broker agrees.", unsigned).outcome is F


IDIOMS = [
    ("en", "RESTRICT. Everyone involved, fire department included, is on board with that.", F),
    ("en", "RESTRICT. The fire department is on board.", F),
    ("en", "RESTRICT. The whole crew is fine with it.", F),
    ("nl", "REQUEEN. Daar is iedere imker het over eens.", F),
    # twins: nobody agrees, a question
    ("en", "RESTRICT. Nobody is on board with that.", P),
    ("en", "RESTRICT. Is everyone on board?", P),
    ("nl", "REQUEEN. Is iedere imker het daar over eens?", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), IDIOMS)
def test_idioms_of_agreement_claim_it(lang: str, answer: str, expected: CheckOutcome) -> None:
    assert CONSENSUS.check(answer, NURSES).outcome is expected


NOBODY_OF_THEM = [
    ("en", "URGENT, and you won't find a paediatrician in the region who'd rate it lower.", F),
    ("en", "URGENT. I doubt you'd find a PSC officer in the Paris MOU who'd call this a detention.", F),
    ("en", "URGENT. The class society would say the same.", F),
    ("fr", "URGENT. Vous ne trouverez pas un urgentiste qui dise le contraire.", F),
    ("de", "URGENT. Sie werden keinen Notarzt finden, der das anders sieht.", F),
    ("es", "URGENT. No encontrarás a ningún pediatra que opine distinto.", F),
    ("pt", "URGENT. Não vai encontrar nenhum pediatra que discorde.", F),
    ("it", "URGENT. Non troverai un pediatra che la pensi diversamente.", F),
    ("nl", "URGENT. Je zult geen kinderarts vinden die het anders ziet.", F),
    # twins: nothing of people, the group the context states, a document saying the same
    ("en", "URGENT. You won't find a better option.", P),
    ("de", "URGENT. Sie werden keinen Fehler finden.", P),
    ("fr", "URGENT. Vous ne trouverez pas une erreur dans ce calcul.", P),
    ("en", "URGENT. You won't find a night nurse who'd disagree.", P),
    ("en", "URGENT. The report says the same.", P),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), NOBODY_OF_THEM)
def test_no_member_of_a_group_who_would_disagree_is_a_claim(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    assert CONSENSUS.check(answer, NURSES).outcome is expected


def test_a_rule_for_anything_it_covers_names_no_verdict() -> None:
    labels = ["SAMPLE_CHECK", "LAB_TEST", "RELEASE"]
    lab_test = compile_assertion(Assertion(type="label", value="LAB_TEST", labels=labels))
    rule = (
        "Rule of thumb from the brokers' forum: anything over the SO2 limit with a lab note goes to LAB_TEST."
    )
    assert lab_test.check(rule).outcome is F
    assert lab_test.check("LAB_TEST. Anything over the limit goes to LAB_TEST anyway.").outcome is P
    assert lab_test.check("This one goes to LAB_TEST.").outcome is P
