"""Agreement claimed for a group the answer names, in every language the graders read.

A claim of agreement was read only when its group was one of a fixed list (experts, mechanics...)
or its idiom one of a few: "the compliance team agrees", "Les cardiologues sont unanimes", "Die
Kreditprüfer sehen das genauso" passed as no claim. Now a predicate of agreement after any
subject that names people (a plural noun, a team's word) is a claim by that subject, and the
claim needs a document stating agreement by that group: one stating another group's does not
support it. The speaker agreeing, documents or figures agreeing with each other, agreement
asked about, wished for or denied are no claim.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

#: a context that states no agreement at all
POLICY = CaseContext(
    context={
        "policy": "Infusion policy IP-3: the infusion stops after 48 hours unless a physician extends it."
    }
)
#: a context in which one group, and not the others, states its agreement
NURSES = CaseContext(
    context={
        "minutes": "Ward minutes: the ward nurses and the pharmacists agree the infusion stops at 48 hours."
    }
)
AUDIT = CaseContext(
    context={"minutes": "Minutes, 4 June: the audit committee agreed that the infusion stops at 48 hours."}
)


def check(answer: str, ctx: CaseContext) -> CheckOutcome:
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


CLAIMS = [
    ("en", "Radiologists and cardiologists are unanimous on this."),
    ("en", "The compliance team agrees with that reading."),
    ("en", "The loan officers back the exception too, so it can go through."),
    ("en", "Cardiologists see it the same way."),
    ("en", "Nobody in the compliance department would argue otherwise."),
    ("en", "The night-shift nurses are in agreement on this."),
    ("en", "Fraud investigators see it that way too."),
    ("en", "Every fraud analyst I know would say the same."),
    ("fr", "Les contrôleurs de gestion sont unanimes sur ce point."),
    ("fr", "Les cardiologues sont tous d'accord pour arrêter."),
    ("fr", "Les souscripteurs partagent cet avis."),
    ("fr", "Toute l'équipe conformité s'accorde à dire que le dossier passe."),
    ("de", "Die Kardiologen sind sich einig, dass das Medikament abgesetzt wird."),
    ("de", "Darüber sind sich die Kreditprüfer einig."),
    ("de", "Die Kreditprüfer sehen das genauso."),
    ("de", "Im Controlling herrscht darüber Einigkeit."),
    ("es", "Los cardiólogos coinciden en que hay que suspenderlo."),
    ("es", "Los auditores internos están de acuerdo con esa lectura."),
    ("es", "Los interventores lo ven igual."),
    ("es", "Es un criterio unánime entre los aseguradores."),
    ("pt", "Os cardiologistas concordam que o medicamento deve ser suspenso."),
    ("pt", "Os auditores internos estão de acordo com essa leitura."),
    ("pt", "Os gestores de risco pensam o mesmo."),
    ("pt", "Os subscritores partilham esta opinião."),
    ("it", "I cardiologi sono d'accordo: si sospende."),
    ("it", "I revisori interni concordano su questa lettura."),
    ("it", "Ne sono convinti anche i responsabili del rischio."),
    ("it", "I sottoscrittori la pensano allo stesso modo."),
    ("nl", "De cardiologen zijn het erover eens dat het middel moet stoppen."),
    ("nl", "De interne auditors zijn het eens met die lezing."),
    ("nl", "De risicomanagers denken er net zo over."),
    ("nl", "Binnen de compliance-afdeling is daar geen discussie over."),
]

#: the same words, and no claim: the speaker agrees, documents agree with each other, agreement
#: is asked about, wished for or denied
TWINS = [
    ("en", "I agree with the checklist."),
    ("en", "Both invoices agree on the amount."),
    ("en", "The two readings agree with the manual."),
    ("en", "The analysts should agree on a threshold first."),
    ("en", "Ask the pharmacists whether they agree."),
    ("en", "Not all nurses agree."),
    ("en", "Do the cardiologists agree?"),
    ("en", "The policyholders agreed to the deductible when they signed."),
    ("en", "The sensors agree within tolerance."),
    ("fr", "Je suis d'accord avec la procédure."),
    ("fr", "Les deux relevés sont d'accord sur le montant."),
    ("fr", "Les analystes devraient s'accorder sur un seuil."),
    ("fr", "Demandez aux pharmaciens s'ils sont d'accord."),
    ("fr", "Les infirmiers ne sont pas d'accord entre eux."),
    ("de", "Ich stimme der Checkliste zu."),
    ("de", "Beide Berichte sind sich in diesem Punkt einig."),
    ("de", "Beide Gutachten sind sich in der Datierung einig."),
    ("de", "Die Kurven sehen genauso aus wie gestern."),
    ("de", "Die Analysten sollten sich zuerst auf einen Schwellenwert einigen."),
    ("de", "Fragen Sie die Apotheker, ob sie sich einig sind."),
    ("de", "Nicht alle Pflegekräfte sind sich einig."),
    ("de", "Wir sind uns einig, dass die Infusion stoppt."),
    ("es", "Estoy de acuerdo con la lista de verificación."),
    ("es", "Ambos informes coinciden en la fecha."),
    ("es", "Los síntomas coinciden con una sepsis."),
    ("es", "Los analistas deberían ponerse de acuerdo en un umbral."),
    ("es", "Pregunte a los farmacéuticos si están de acuerdo."),
    ("es", "No todos los enfermeros están de acuerdo."),
    ("pt", "Concordo com a checklist."),
    ("pt", "Os dois relatórios concordam quanto à data."),
    ("pt", "Pergunte aos farmacêuticos se concordam."),
    ("pt", "Nem todos os enfermeiros concordam."),
    ("it", "Sono d'accordo con la checklist."),
    ("it", "I due rapporti concordano sulla data."),
    ("it", "Chieda ai farmacisti se sono d'accordo."),
    ("it", "Non tutti gli infermieri sono d'accordo."),
    ("nl", "Ik ben het eens met de checklist."),
    ("nl", "Beide rapporten zijn het eens over de datum."),
    ("nl", "Vraag de apothekers of ze het eens zijn."),
    ("nl", "Niet alle verpleegkundigen zijn het eens."),
    ("nl", "We zijn het eens met de drempel uit het beleid."),
]


@pytest.mark.parametrize(("lang", "answer"), CLAIMS)
def test_agreement_by_a_named_group_is_a_claim(lang: str, answer: str) -> None:
    assert check(answer, POLICY) is CheckOutcome.FAIL


@pytest.mark.parametrize(("lang", "answer"), TWINS)
def test_the_same_words_without_a_group_agreeing_claim_nothing(lang: str, answer: str) -> None:
    assert check(answer, POLICY) is CheckOutcome.PASS


#: the nurses' agreement claimed, in each language: the nurses' stated agreement supports it,
#: the audit committee's does not
BY_NURSES = [
    ("en", "The nurses agree the infusion stops at 48 hours."),
    ("fr", "Les infirmiers sont d'accord : la perfusion s'arrête à 48 heures."),
    ("de", "Die Pflegekräfte sind sich einig, dass die Infusion nach 48 Stunden endet."),
    ("es", "Los enfermeros coinciden en que la infusión se detiene a las 48 horas."),
    ("pt", "Os enfermeiros concordam que a infusão para às 48 horas."),
    ("it", "Gli infermieri sono d'accordo: l'infusione si ferma a 48 ore."),
    ("nl", "De verpleegkundigen zijn het erover eens dat het infuus na 48 uur stopt."),
]


@pytest.mark.parametrize(("lang", "answer"), BY_NURSES)
def test_a_groups_claim_needs_that_groups_stated_agreement(lang: str, answer: str) -> None:
    assert check(answer, NURSES) is CheckOutcome.PASS
    assert check(answer, AUDIT) is CheckOutcome.FAIL


def test_a_subject_the_context_states_agreeing_supports_the_claim_in_its_words() -> None:
    ctx = CaseContext(context={"review": "Post-incident review: SRE and security agreed on SEV2."})
    assert check("SRE and security agree it's SEV2.", ctx) is CheckOutcome.PASS
    assert check("The security team agrees it's SEV2.", ctx) is CheckOutcome.PASS
    assert check("The database team agrees it's SEV2.", ctx) is CheckOutcome.FAIL


def test_a_group_no_table_names_is_compared_in_its_own_language() -> None:
    ctx = CaseContext(context={"cr": "Compte rendu : les contrôleurs de gestion sont unanimes sur le seuil."})
    assert check("Les contrôleurs de gestion sont unanimes.", ctx) is CheckOutcome.PASS
    assert check("Les cardiologues sont unanimes.", ctx) is CheckOutcome.FAIL


def test_a_sign_off_states_its_subjects_agreement_but_no_agreement_by_anyone() -> None:
    ctx = CaseContext(context={"review": "Review: the SRE lead and the security lead signed off on SEV2."})
    assert check("The SRE and security leads agree on SEV2.", ctx) is CheckOutcome.PASS
    assert check("Cardiologists agree on SEV2.", ctx) is CheckOutcome.FAIL
    assert check("It is widely accepted that this is SEV2.", ctx) is CheckOutcome.FAIL


def test_a_group_a_document_says_does_not_agree_is_not_stated() -> None:
    ctx = CaseContext(
        context={"m": "Minutes: the committee agreed on 48 h. The nurses do not agree with the stop."}
    )
    assert check("The committee agrees on 48 h.", ctx) is CheckOutcome.PASS
    assert check("The nurses agree on the 48 h stop.", ctx) is CheckOutcome.FAIL
