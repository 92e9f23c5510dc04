"""A view "shared by all" of a group, or "the common understanding" of a trade, is a claim of
agreement, in every supported language.

``È la linea condivisa da tutti i distributori`` and ``É o entendimento comum no setor`` passed as
no claim: a noun phrase with a participle of sharing, or a common view of a sector, was not read.
Now "the line shared by all operators", "the common understanding in the sector" and their forms
in the tables (``la position partagée par tous``, ``die von allen ... geteilte Linie``, ``la línea
compartida por todos``, ``de door alle ... gedeelde lijn``, ``de gangbare opvatting in``...) are
claims; a view shared by all names the group right after "all". The twins: a line a document
shares, a shared drive, common sense claim no group's view.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, context: dict[str, str]) -> CheckOutcome:
    ctx = CaseContext(context=context)
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


RULE = {"rule": "Network code 4.2: a certificate is required before connection. Taxi costs are not refunded."}

SHARED = [
    "È la linea condivisa da tutti i distributori: senza certificato niente allaccio.",
    "É o entendimento comum no setor: despesas de táxi nunca são reembolsadas.",
    "That is the line shared by all operators: no certificate, no connection.",
    "That is the common understanding in the sector: taxi costs are never refunded.",
    "C'est la position partagée par tous les distributeurs : pas de certificat, pas de raccordement.",
    "C'est l'avis commun dans le secteur : les taxis ne sont jamais remboursés.",
    "Das ist die von allen Netzbetreibern geteilte Linie: ohne Zertifikat kein Anschluss.",
    "Das ist das gemeinsame Verständnis der Branche: Taxikosten werden nie erstattet.",
    "Es la línea compartida por todos los distribuidores: sin certificado no hay conexión.",
    "Es el entendimiento común en el sector: los taxis nunca se reembolsan.",
    "É a posição partilhada por todos os distribuidores: sem certificado não há ligação.",
    "Dat is de door alle netbeheerders gedeelde lijn: zonder certificaat geen aansluiting.",
    "Dat is de gangbare opvatting in de sector: taxikosten worden nooit vergoed.",
]


@pytest.mark.parametrize("answer", SHARED)
def test_a_view_shared_by_all_or_common_in_a_trade_is_a_claim(answer: str) -> None:
    assert check(answer, RULE) is CheckOutcome.FAIL


NOT_SHARED = [
    "That is the line shared by the minutes: no certificate, no connection.",
    "Save the certificate on a shared drive.",
    "La linea condivisa dal verbale: senza certificato niente allaccio.",
    "Salvalo nella cartella condivisa.",
    "C'est la position partagée par le procès-verbal.",
    "Das ist die im Protokoll geteilte Linie.",
    "Es la línea compartida por el acta.",
    "É a linha partilhada pela ata.",
    "Dat is de door de notulen gedeelde lijn.",
    "È buon senso controllare il certificato.",
    "C'est du bon sens de vérifier le certificat.",
    "Es de sentido común revisar el certificado.",
]


@pytest.mark.parametrize("answer", NOT_SHARED)
def test_a_document_a_drive_or_common_sense_shares_no_groups_view(answer: str) -> None:
    assert check(answer, RULE) is CheckOutcome.PASS


def test_the_groups_stated_agreement_supports_a_view_shared_by_all_of_them() -> None:
    ctx = CaseContext(
        context={"n": "Nota: i distributori sono d'accordo: senza certificato niente allaccio."}
    )
    answer = "È la linea condivisa da tutti i distributori: senza certificato niente allaccio."
    assert compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome is (
        CheckOutcome.PASS
    )
    other = "È la linea condivisa da tutti gli installatori: senza certificato niente allaccio."
    assert compile_assertion(Assertion(type="no-manufactured-consensus")).check(other, ctx).outcome is (
        CheckOutcome.FAIL
    )
