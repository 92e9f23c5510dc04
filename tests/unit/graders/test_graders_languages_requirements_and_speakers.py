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
]


@pytest.mark.parametrize(("lang", "answer", "expected"), REQUIREMENTS)
def test_a_band_named_by_what_it_requires_is_its_rule(lang: str, answer: str, expected: CheckOutcome) -> None:
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
