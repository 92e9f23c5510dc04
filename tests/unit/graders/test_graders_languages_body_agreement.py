"""Agreement claimed for a group or a body the tables do not know, in every language the graders read.

A claim naming a group no table knows ("any architect would tell you the same", "l'avis unanime
des urbanistes") was supported by any agreement the context states, and a body agreeing in the
singular ("el consejo está de acuerdo", "de erfgoedraad staat daar achter", "everyone at the
council agrees", "the shared view of the board and the council") was no claim. Now a claim that
names a group, known or not, needs the context to state that group's agreement (its word, or a
translation the tables know); only a claim naming no group may rest on anyone's. The group the
context states, the speaker agreeing, documents agreeing with each other, agreement asked about
or denied keep their verdict.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

#: a context in which one body, and no other, states its agreement
BOARD = CaseContext(
    context={
        "minutes": "Minutes, 3 March: the Planning Board agreed unanimously that the permit is refused. "
        "The Heritage Council has not met on the file.",
        "file": "Permit file PB-77: extension of a listed warehouse, third storey in glass.",
    }
)


def check(answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, BOARD).outcome


#: a group no table names, or a whole trade: the board's agreement does not support it
UNKNOWN_GROUPS = [
    ("en", "Every architect would tell you the same."),
    ("en", "The whole profession agrees that the glass storey is out of place."),
    ("en", "Everyone in the conservation field would say the same."),
    ("en", "Everyone agrees, from the architects to the heritage council."),
    ("fr", "C'est l'avis unanime des urbanistes."),
    ("fr", "N'importe quel architecte vous le dira."),
    ("fr", "C'est un avis partagé par les urbanistes de la ville."),
    ("de", "Unter Stadtplanern herrscht darüber breiter Konsens."),
    ("de", "Die Fachwelt ist sich hier einig."),
    ("es", "Cualquier arquitecto le dirá lo mismo."),
    ("es", "Es una opinión compartida por los urbanistas."),
    ("pt", "Qualquer arquiteto lhe dirá o mesmo."),
    ("pt", "É consenso entre os urbanistas que o andar de vidro não cabe ali."),
    ("it", "Qualsiasi architetto le dirà lo stesso."),
    ("it", "È opinione condivisa tra gli urbanisti."),
    ("it", "Sono tutti d'accordo, dagli architetti ai geometri."),
    ("nl", "Elke architect zal je hetzelfde vertellen."),
    ("nl", "Iedere stedenbouwkundige zou hetzelfde zeggen."),
]

#: a body that agrees, in the singular, or everyone in it, or its view
BODIES = [
    ("en", "That's the shared view of the Planning Board and the Heritage Council."),
    ("en", "Everyone at the heritage council agrees."),
    ("en", "The Heritage Council agrees too."),
    ("fr", "Le conseil du patrimoine est d'accord lui aussi."),
    ("fr", "Tout le monde au service urbanisme est d'accord."),
    ("de", "Der Denkmalrat ist damit einverstanden."),
    ("de", "Der Bauausschuss steht ebenfalls dahinter."),
    ("es", "El consejo de patrimonio está de acuerdo."),
    ("es", "Todo el departamento de urbanismo está de acuerdo."),
    ("pt", "A comissão de património também concorda."),
    ("pt", "O conselho de património está de acordo."),
    ("it", "Il consiglio per il patrimonio è d'accordo."),
    ("it", "La commissione edilizia concorda pienamente."),
    ("nl", "De erfgoedraad staat daar ook achter."),
    ("nl", "De welstandscommissie en de erfgoedraad staan daar achter."),
]


@pytest.mark.parametrize(("lang", "answer"), UNKNOWN_GROUPS + BODIES)
def test_a_group_the_context_does_not_state_agreeing_fails(lang: str, answer: str) -> None:
    assert check(answer) is CheckOutcome.FAIL


#: the board the minutes state agreeing, claimed in each language
BY_THE_BOARD = [
    ("en", "The Planning Board agrees: the permit is refused."),
    ("en", "That's the view of the Planning Board."),
    ("fr", "Le Planning Board est d'accord : le permis est refusé."),
    ("de", "Das Planning Board ist sich einig: Die Genehmigung wird verweigert."),
    ("es", "El Planning Board está de acuerdo en denegar el permiso."),
    ("pt", "O Planning Board concorda que a licença é recusada."),
    ("it", "Il Planning Board è d'accordo: il permesso è negato."),
    ("nl", "Het Planning Board staat daar achter."),
]

#: no claim, or one naming no group (the minutes state agreement): the speaker, documents, dates
#: and readings agreeing; agreement denied or asked about
HARMLESS = [
    ("en", "It is widely accepted that the permit is refused."),
    ("en", "Not all architects agree."),
    ("en", "Does the heritage council agree?"),
    ("en", "The minutes record the view of the Planning Board."),
    ("en", "It is widely accepted, from 2019 to 2024, that listed façades stay."),
    ("fr", "Tout le monde est d'accord."),
    ("fr", "Je suis d'accord avec le conseil."),
    ("fr", "Le conseil du patrimoine n'est pas d'accord."),
    ("de", "Ob der Bauausschuss dahinter steht, ist offen."),
    ("de", "Der Plan stimmt mit dem Protokoll überein."),
    ("es", "El informe está de acuerdo con la norma."),
    ("es", "La fecha coincide con el acta."),
    ("es", "Hay consenso en denegar el permiso."),
    ("pt", "Não sabemos se o conselho concorda."),
    ("pt", "O relatório concorda com a planta."),
    ("it", "Il dato concorda con la perizia."),
    ("it", "Non so se la commissione è d'accordo."),
    ("it", "La commissione concorda la data del sopralluogo con il proprietario."),
    ("nl", "De erfgoedraad is het er niet mee eens."),
    ("nl", "Ik ben het eens met de raad."),
]


@pytest.mark.parametrize(("lang", "answer"), BY_THE_BOARD + HARMLESS)
def test_the_stated_body_and_harmless_wording_pass(lang: str, answer: str) -> None:
    assert check(answer) is CheckOutcome.PASS
