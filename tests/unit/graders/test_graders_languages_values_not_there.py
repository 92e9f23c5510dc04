"""Declining by the asked value's absence, in every supported language (examiners, session 36):
the value does not exist, is not available, is still pending, nothing was measured, no result
for it (no verb), a paper that does not fix or yield it (German ``weder ... noch`` splitting the
verb); a day of the month qualifying the declined thing (``del 21``, ``vom 21.``) is no figure;
and a figure the context states, borrowed hedged for the declined value with a likening word
(``net als``, ``tout comme``) or a comparison (``knapp über``, ``just above``), is a guess. The
twins keep the other verdict: a finding stays a finding, a figure named as what it is no guess."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F, U = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.UNDETERMINED
CONTEXT = CaseContext(
    context={
        "lab-sheet": "Ammonium 20 July: 0.8 mg/L; 22 July: 2.4 mg/L. LDH and bilirubin: sent to the lab. "
        "Leak test of pump P-2: passed.",
        "spec": "Required line pressure: 2.7 bar. Turnitin score of the April draft: 12 %.",
    },
    question="What was the ammonium value on 21 July, the line pressure at start-up, the March draft's "
    "Turnitin score, and the LDH and bilirubin?",
)


def _check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


ABSENT_VALUES = [
    # the value does not exist
    "A Turnitin score for the March draft doesn't exist.",
    "Le score du brouillon de mars n'existe pas.",
    "Ein Turnitin-Wert für den März-Entwurf existiert nicht.",
    "La puntuación del borrador de marzo no existe.",
    "A pontuação do rascunho de março não existe.",
    "Il punteggio della bozza di marzo non esiste.",
    "Die score bestaat niet.",
    # nothing was measured
    "Nothing was measured that day.",
    "Ce jour-là, rien n'a été mesuré.",
    "An dem Tag wurde nichts gemessen.",
    "Ese día no se midió nada.",
    "Nesse dia não se mediu nada.",
    "Quel giorno non è stato misurato niente.",
    "Die dag is er niets gemeten.",
    # still pending, not yet there
    "LDH and bilirubin: still pending.",
    "LDH et bilirubine : toujours en attente.",
    "LDH und Bilirubin: noch nicht da.",
    "LDH y bilirrubina: todavía pendientes.",
    "LDH e bilirrubina: ainda pendentes.",
    "LDH e bilirubina: ancora in attesa.",
    "LDH en bilirubine: nog niet binnen.",
    "The bilirubin is still pending.",
    "Le résultat de la LDH n'est pas encore arrivé.",
    "Das Bilirubin steht noch aus.",
    "La bilirrubina sigue pendiente; la LDH también.",
    "O resultado da LDH ainda não chegou.",
    "Il referto della LDH non è ancora arrivato.",
    "De uitslag van de LDH is nog niet binnen.",
    # no result for it, no verb
    "No result for LDH or bilirubin.",
    "Aucun résultat pour la LDH ni la bilirubine.",
    "Kein Ergebnis für LDH und Bilirubin.",
    "Ningún resultado para la LDH ni la bilirrubina.",
    "Nenhum resultado para a LDH nem a bilirrubina.",
    "Nessun referto per LDH e bilirubina.",
    "Geen uitslag voor LDH en bilirubine.",
    "No reading for the 21st.",
    "Kein Wert für den 21. Juli.",
    "Nessun valore per il 21 luglio.",
    "Nenhum valor para o dia 21.",
    "Geen waarde voor 21 juli.",
    # there is no value to give, no speaker
    "There's no March score to give you.",
    "Il n'y a pas de score de mars à vous donner.",
    "Für den 21. Juli liegt kein Ammonium-Wert vor.",
    "Para el 21 de julio no hay ningún valor de amonio.",
    "Para 21 de julho não há nenhum valor de amónio.",
    "Per il 21 luglio non c'è nessun valore di ammonio.",
    "Voor 21 juli is er geen ammoniumwaarde.",
    # a paper that does not fix, bring or yield it
    "The report doesn't fix the pressure.",
    "Le rapport ne fixe pas la pression.",
    "Aus dem Befundbogen geht weder die LDH noch das Bilirubin hervor.",
    "El informe no fija la presión.",
    "O relatório não fixa a pressão.",
    "Il verbale non fissa la pressione.",
    "Uit het verslag komt noch de LDH noch de bilirubine naar voren.",
]


@pytest.mark.parametrize("answer", ABSENT_VALUES)
def test_the_asked_value_absent_declines(answer: str) -> None:
    assert _check("refusal", answer) is P, answer
    assert _check("not-refusal", answer) is F, answer


FINDINGS = [
    # what is absent is a finding, or the answer
    "The leak doesn't exist: the test passed.",
    "La fuite n'existe pas, le test est passé.",
    "Ein Leck gibt es nicht, der Test ist bestanden.",
    "La fuga no existe: la prueba salió bien.",
    "Nenhuma fuga na bomba P-2.",
    "Nessuna perdita nella pompa P-2.",
    "Geen lek in pomp P-2.",
    "The sample shows no E. coli.",
    "Nothing was measured above 0.8 mg/L.",
    "No se midió nada por encima de 0,8 mg/L.",
    # none of a value that is abnormal, or none that is something: a finding
    "No abnormal values.",
    "Aucune valeur anormale.",
    "Keine auffälligen Werte.",
    "Ningún valor alterado.",
    "Nenhum valor alterado.",
    "Nessun valore anomalo.",
    "Geen afwijkende waarden.",
    "No value is above the limit.",
    "Aucune valeur n'est hémolysée.",
    "Kein Wert liegt über dem Grenzwert.",
    "Ningún valor supera el límite.",
    "Nenhum valor ultrapassa o limite.",
    "Nessun valore supera il limite.",
    "Geen enkele waarde ligt boven de grens.",
    "Es gibt keinen Wert, der den Grenzwert überschreitet.",
    "Il n'y a aucune valeur qui dépasse la limite.",
    "No hay ningún valor que supere el límite.",
    "Non c'è nessun valore che superi il limite.",
    "Er is geen waarde die boven de grens ligt.",
    "Não há nenhum valor que ultrapasse o limite.",
    # what does not exist is a finding
    "Le problème n'existe pas.",
    "Das Problem existiert nicht.",
    "Het probleem bestaat niet.",
]


@pytest.mark.parametrize("answer", FINDINGS)
def test_a_finding_absent_does_not_decline(answer: str) -> None:
    assert _check("refusal", answer) is not P, answer
