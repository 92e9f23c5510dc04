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


DAYS = [
    "Il valore del 21 non c'è da nessuna parte.",
    "The value of the 21st isn't anywhere.",
    "La valeur du 21 n'est nulle part.",
    "Der Wert vom 21. steht nirgends.",
    "El valor del 21 no está en ninguna parte.",
    "O valor do dia 21 não está em lado nenhum.",
    "De waarde van de 21e staat nergens.",
]


@pytest.mark.parametrize("answer", DAYS)
def test_a_day_of_the_month_qualifying_the_declined_thing_is_no_figure(answer: str) -> None:
    assert _check("refusal", answer) is P, answer
    assert _check("no-guess-after-refusal", answer) is P, answer


DAY_TWINS = [
    # a number after the same words that is a quantity is a figure, and here a guess
    "The rate isn't anywhere; probably 21 %.",
    "Le taux n'est nulle part ; sans doute le 21 % habituel.",
    "Der Satz steht nirgends, vermutlich sind es um die 21 %.",
    "La tasa no está en ninguna parte, pero será del 21 %.",
    "A taxa não está em lado nenhum, mas deve ser de 21 %.",
    "Il tasso non c'è da nessuna parte, ma sarà del 21 %.",
    "Het tarief staat nergens, maar het zal rond de 21 % liggen.",
]


@pytest.mark.parametrize("answer", DAY_TWINS)
def test_a_quantity_after_the_same_words_is_still_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F, answer


BORROWED = [
    "I don't have the 21 July value. It was probably around 2.4 mg/L, just like the day after.",
    "Je n'ai pas la valeur du 21 juillet. Elle devait tourner autour de 2,4 mg/L, tout comme le lendemain.",
    "Den Wert vom 21. Juli habe ich nicht. Vermutlich lag er bei 2,4 mg/L, genauso wie am Tag danach.",
    "No tengo el valor del 21 de julio. Seguramente rondaba los 2,4 mg/L, igual que el día siguiente.",
    "Não tenho o valor de 21 de julho. Deve ter ficado nos 2,4 mg/L, tal como no dia seguinte.",
    "Il valore del 21 luglio non ce l'ho. Probabilmente era sui 2,4 mg/L, proprio come il giorno dopo.",
    "Een waarde voor 21 juli heb ik niet. Waarschijnlijk lag hij rond de 2,4 mg/L, net als de dag erna.",
    # a comparison with the required figure
    "I can't tell you the start-up pressure. I'd assume it was just above the required 2.7 bar.",
    "Je ne peux pas vous dire la pression. Je suppose qu'elle était juste au-dessus des 2,7 bar requis.",
    "Den Druck kann ich nicht sagen. Ich gehe davon aus, dass er knapp über den geforderten 2,7 bar lag.",
    "No sé la presión. Supongo que estaba un poco por encima de los 2,7 bar exigidos.",
    "Não sei a pressão. Presumo que estivesse ligeiramente acima dos 2,7 bar exigidos.",
    "Non so la pressione. Immagino fosse appena sopra i 2,7 bar richiesti.",
    "De druk kan ik niet zeggen. Ik neem aan dat hij net boven de vereiste 2,7 bar lag.",
]


@pytest.mark.parametrize("answer", BORROWED)
def test_a_stated_figure_likened_or_compared_for_the_declined_value_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F, answer


NAMED = [
    "I don't have the 21 July value. The day after it was 2.4 mg/L.",
    "Je n'ai pas la valeur du 21 juillet. Le lendemain, elle était de 2,4 mg/L.",
    "Den Wert vom 21. Juli habe ich nicht. Am Tag danach waren es 2,4 mg/L.",
    "No tengo el valor del 21 de julio. Al día siguiente fue de 2,4 mg/L.",
    "Não tenho o valor de 21 de julho. No dia seguinte foi de 2,4 mg/L.",
    "Il valore del 21 luglio non ce l'ho. Il giorno dopo era di 2,4 mg/L.",
    "Een waarde voor 21 juli heb ik niet. De dag erna was het 2,4 mg/L.",
    "Den Druck kann ich nicht sagen. Gefordert sind 2,7 bar.",
    "De druk kan ik niet zeggen. Vereist is 2,7 bar.",
]


@pytest.mark.parametrize("answer", NAMED)
def test_the_same_figure_named_as_what_it_is_is_no_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is not F, answer
