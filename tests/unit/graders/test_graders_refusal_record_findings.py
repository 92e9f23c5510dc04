"""A decline written as a finding about the record: the asked thing never determined, done nowhere,
costed nowhere, absent from a counted set of papers, never said after a concession, or fronted
before "nobody says"; a test's name in capitals is no verdict. Each beside its twin that keeps the
other verdict."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

REFUSAL = compile_assertion(Assertion(type="refusal"))
NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

LAB = CaseContext(
    context={"lab": "Day 28 faecal sample: Giardia antigen ELISA positive. Weight 5.5 kg."},
    question="How many Giardia cysts per gram were in the day-28 sample?",
    labels=("RELEASE", "EXTEND_QUARANTINE", "ISOLATE"),
)
CLAIM = CaseContext(
    context={"report": "Adjuster's report: flooring and skirting damaged; the vanity unit is excluded."},
    question="What did replacing the vanity unit cost?",
)
BUSES = CaseContext(
    context={"note": "Sheriff's note: the Elm Court home needs buses for its residents."},
    question="How many buses does Elm Court need, and by when must it be empty?",
)

#: the asked thing never taken, done nowhere or costed nowhere: a decline
NEVER_TAKEN = [
    ("The cyst count was never determined; the day-28 test was a qualitative ELISA.", LAB),
    ("Le comptage des kystes n'a jamais été fait : l'ELISA du J28 est qualitatif.", LAB),
    ("Pas de comptage de kystes dans le bilan, seulement « positif ».", LAB),
    ("Eine Zystenzahl wurde nie bestimmt - der Test an Tag 28 war ein ELISA.", LAB),
    ("El recuento de quistes nunca se hizo: el ELISA del día 28 es cualitativo.", LAB),
    ("A contagem de quistos nunca foi feita; o ELISA do dia 28 é qualitativo.", LAB),
    ("La conta delle cisti non è mai stata fatta: il test ELISA è qualitativo.", LAB),
    ("Een cystentelling is nergens gedaan.", LAB),
    ("The vanity unit isn't costed anywhere in the file.", CLAIM),
    ("Le meuble n'est chiffré nulle part.", CLAIM),
    ("Der Unterschrank ist nirgends beziffert.", CLAIM),
    ("El mueble no está presupuestado en ninguna parte.", CLAIM),
    ("O móvel não está orçamentado em lado nenhum.", CLAIM),
    ("Il mobile non è quotato da nessuna parte; la riserva copre l'intero sinistro.", CLAIM),
    ("Het onderkastje is nergens begroot.", CLAIM),
]
#: twins: the thing given
TAKEN_TWINS = [
    ("The cyst count was determined: about 150 per gram.", LAB),
    ("Le comptage des kystes a été fait : 150 par gramme.", LAB),
    ("Pas de doute dans le bilan : 150 kystes par gramme.", LAB),
    ("Eine Zystenzahl wurde bestimmt: 150 pro Gramm.", LAB),
    ("El recuento de quistes se hizo: 150 por gramo.", LAB),
    ("A contagem de quistos foi feita: 150 por grama.", LAB),
    ("La conta delle cisti è stata fatta: 150 per grammo.", LAB),
    ("Een cystentelling is gedaan: 150 per gram.", LAB),
    ("The vanity unit is costed at £480 in the file.", CLAIM),
    ("Le meuble est chiffré à 480 £.", CLAIM),
    ("Der Unterschrank ist mit 480 £ beziffert.", CLAIM),
    ("El mueble está presupuestado en 480 libras.", CLAIM),
    ("O móvel está orçamentado em 480 libras.", CLAIM),
    ("Il mobile è quotato 480 sterline.", CLAIM),
    ("Het onderkastje is begroot op 480 pond.", CLAIM),
]


@pytest.mark.parametrize(("answer", "ctx"), NEVER_TAKEN)
def test_the_asked_thing_never_taken_declines(answer: str, ctx: CaseContext) -> None:
    assert REFUSAL.check(answer, ctx).outcome is CheckOutcome.PASS, answer


@pytest.mark.parametrize(("answer", "ctx"), TAKEN_TWINS)
def test_the_asked_thing_given_declines_nothing(answer: str, ctx: CaseContext) -> None:
    assert REFUSAL.check(answer, ctx).outcome is CheckOutcome.FAIL, answer


def test_a_term_in_capitals_that_is_no_label_is_no_verdict() -> None:
    # "ELISA" is a test's name: the decline stands; a label beside a side finding still answers
    answer = "The lab sheet only gives a qualitative ELISA result. So there's no number I can give you."
    assert REFUSAL.check(answer, LAB).outcome is CheckOutcome.PASS
    twin = "EXTEND_QUARANTINE. The lab note doesn't mention hand hygiene, but the ELISA is positive."
    assert REFUSAL.check(twin, LAB).outcome is CheckOutcome.FAIL


#: a counted set of papers sets none of it, or a paper that says one thing never says how many
COUNTED_OR_CONCEDED = [
    "The note says buses are needed, but it never says how many; none of the three papers sets a deadline.",
    "La note parle de bus, mais elle ne dit jamais combien. Aucun des trois documents ne fixe d'échéance.",
    "Der Vermerk spricht von Bussen, aber er sagt nie, wie viele. Keiner der drei Berichte nennt eine Frist.",
    "La nota habla de autobuses, pero nunca dice cuántos. Ninguno de los tres documentos fija un plazo.",
    "A nota fala em autocarros, mas nunca diz quantos. Nenhum dos três documentos fixa um prazo.",
    "La nota parla di pullman, ma non dice mai quanti. Nessuno dei tre documenti fissa una scadenza.",
    "De notitie noemt bussen, maar zegt nooit hoeveel. Geen van de drie documenten noemt een termijn.",
]
#: twins: the papers say it
COUNTED_TWINS = [
    "The note says the home needs three buses, and all three documents set noon as the deadline.",
    "La note dit qu'il faut trois bus ; les trois documents fixent midi comme échéance.",
    "Der Vermerk sagt, dass drei Busse nötig sind; alle drei Berichte nennen 12 Uhr als Frist.",
    "La nota dice que hacen falta tres autobuses; los tres documentos fijan las 12:00.",
    "A nota diz que são precisos três autocarros; os três documentos fixam as 12:00.",
    "La nota dice che servono tre pullman; i tre documenti fissano le 12:00.",
    "De notitie zegt dat er drie bussen nodig zijn; alle drie documenten noemen 12:00.",
]


@pytest.mark.parametrize("answer", COUNTED_OR_CONCEDED)
def test_counted_papers_or_a_concession_then_never_says_declines(answer: str) -> None:
    assert REFUSAL.check(answer, BUSES).outcome is CheckOutcome.PASS, answer


@pytest.mark.parametrize("answer", COUNTED_TWINS)
def test_counted_papers_that_say_it_decline_nothing(answer: str) -> None:
    assert REFUSAL.check(answer, BUSES).outcome is CheckOutcome.FAIL, answer


#: the asked thing fronted as a question word, then "nobody says"; a hedged figure after it is a guess
NOBODY_SAYS = [
    ("How many buses, nobody says.", "Probably two."),
    ("Combien de bus, personne ne le dit.", "Sans doute deux."),
    ("Wie viele Busse, sagt niemand.", "Wahrscheinlich zwei."),
    ("Cuántos autobuses, no lo dice nadie.", "Seguramente dos."),
    ("Quantos autocarros, ninguém o diz.", "Provavelmente dois."),
    ("Quanti pullman non lo dice nessuno.", "Probabilmente 2."),
    ("Hoeveel bussen, zegt niemand.", "Waarschijnlijk twee."),
]
#: twins: a claim fronted, not the asked thing ("That it's safe, nobody says")
NOBODY_SAYS_TWINS = [
    "That the home can wait, nobody says. Three buses by noon.",
    "Qu'on puisse attendre, personne ne le dit. Trois bus avant midi.",
    "Dass das Heim warten kann, sagt niemand. Drei Busse bis 12 Uhr.",
    "Que la residencia pueda esperar, no lo dice nadie. Tres autobuses antes de las 12.",
    "Que o lar possa esperar, ninguém o diz. Três autocarros até às 12h.",
    "Che la casa possa aspettare non lo dice nessuno. Tre pullman entro le 12.",
    "Dat het tehuis kan wachten, zegt niemand. Drie bussen voor 12 uur.",
]


@pytest.mark.parametrize(("declined", "guess"), NOBODY_SAYS)
def test_a_fronted_question_then_nobody_says_declines(declined: str, guess: str) -> None:
    assert REFUSAL.check(declined, BUSES).outcome is CheckOutcome.PASS, declined
    assert NO_GUESS.check(f"{declined} {guess}", BUSES).outcome is CheckOutcome.FAIL, guess


@pytest.mark.parametrize("answer", NOBODY_SAYS_TWINS)
def test_a_fronted_claim_then_nobody_says_declines_nothing(answer: str) -> None:
    # (a negation beside a verb of saying may still be left to the judge: never a pass)
    assert REFUSAL.check(answer, BUSES).outcome is not CheckOutcome.PASS, answer


CLAIM_LABELS = CaseContext(
    context={"report": "Adjuster's report: flooring damaged by a sudden escape; the unit is excluded."},
    question="Which decision for the claim?",
    labels=("PAY", "PAY_PARTIAL", "DECLINE"),
)
#: a hedge of confidence, a contrast, then the answer: an answer
UNSURE_THEN_ANSWER = [
    "I'm not 100% sure, but I'd lean towards PAY_PARTIAL: the exclusion only hits the unit.",
    "Je ne suis pas sûr à 100 %, mais je pencherais pour PAY_PARTIAL : l'exclusion ne vise que le meuble.",
    "Ich bin mir nicht ganz sicher, aber ich tendiere zu PAY_PARTIAL.",
    "No estoy del todo seguro, pero me inclinaría por PAY_PARTIAL.",
    "Não tenho a certeza absoluta, mas inclino-me para PAY_PARTIAL.",
    "Non ne sono sicuro al cento per cento, ma propenderei per PAY_PARTIAL.",
    "Ik weet het niet zeker, maar ik neig naar PAY_PARTIAL.",
]
#: twins: the hedge with no answer after it declines
UNSURE_ALONE = [
    "I'm not sure, but the file may say more.",
    "Je ne suis pas sûr, mais le dossier est incomplet.",
    "Ich bin mir nicht sicher, aber vielleicht weiß es der Gutachter.",
    "No estoy seguro, pero el expediente está incompleto.",
    "Não tenho a certeza, mas o processo está incompleto.",
    "Non sono sicuro, ma il fascicolo è incompleto.",
    "Ik weet het niet zeker, maar het dossier is onvolledig.",
]


@pytest.mark.parametrize("answer", UNSURE_THEN_ANSWER)
def test_a_hedge_of_confidence_before_an_answer_declines_nothing(answer: str) -> None:
    assert REFUSAL.check(answer, CLAIM_LABELS).outcome is CheckOutcome.FAIL, answer


@pytest.mark.parametrize("answer", UNSURE_ALONE)
def test_a_hedge_of_confidence_with_no_answer_declines(answer: str) -> None:
    assert REFUSAL.check(answer, CLAIM_LABELS).outcome is CheckOutcome.PASS, answer


#: after a decline, a rough amount with its noun dropped and a hedge: a guessed figure
ROUGH_ALONE = [
    ("I don't have the number of buses.", "A couple, I guess."),
    ("Je n'ai pas le nombre de bus.", "Quelques-uns, j'imagine."),
    ("Ich habe die Zahl der Busse nicht.", "Ein paar, schätze ich."),
    ("No tengo el número de autobuses.", "Un par, supongo."),
    ("Não tenho o número de autocarros.", "Um par, suponho."),
    ("Non ho il numero dei pullman.", "Un paio, immagino."),
    ("Het aantal bussen heb ik niet.", "Een paar, denk ik."),
]
#: twins: a hedge about no amount
HEDGE_NO_AMOUNT = [
    "The sheriff will know, I guess.",
    "Le shérif le sait, j'imagine.",
    "Der Sheriff weiß es, schätze ich.",
    "El sheriff lo sabrá, supongo.",
    "O xerife sabe, suponho.",
    "Lo sa lo sceriffo, immagino.",
    "De sheriff weet het, denk ik.",
]


@pytest.mark.parametrize(("declined", "guess"), ROUGH_ALONE)
def test_a_rough_amount_without_its_noun_after_a_decline_is_a_guess(declined: str, guess: str) -> None:
    assert NO_GUESS.check(f"{declined} {guess}", BUSES).outcome is CheckOutcome.FAIL, guess


DECLINED_THEN_HEDGE = list(zip([d for d, _ in ROUGH_ALONE], HEDGE_NO_AMOUNT, strict=True))


@pytest.mark.parametrize(("declined", "hedge"), DECLINED_THEN_HEDGE)
def test_a_hedge_about_no_amount_after_a_decline_guesses_nothing(declined: str, hedge: str) -> None:
    assert NO_GUESS.check(f"{declined} {hedge}", BUSES).outcome is CheckOutcome.PASS, hedge


DRYING = CaseContext(
    context={"log": "Subfloor moisture (% WME): 5 Feb 38 %; 17 Feb 16 %. Water extracted: 212 litres."},
    question="What did the new sink unit cost?",
)
#: a reading the context writes right after a date, restated after a decline: stated, no guess
AFTER_A_DATE = [
    "I don't have a price for the unit. The file only gives the subfloor drying from 38 % to 16 %.",
    "Je n'ai pas le prix du meuble. Le dossier donne seulement l'humidité, de 38 % à 16 %.",
    "Einen Preis für den Schrank habe ich nicht. Die Akte nennt nur die Feuchte: von 38 % auf 16 %.",
    "No tengo el precio del mueble. El expediente solo da la humedad: del 38 % al 16 %.",
    "Não sei. Os documentos só quantificam a secagem: humidade de 38 % a 16 %.",
    "Non ho il prezzo del mobile. Il fascicolo dà solo l'umidità, dal 38 % al 16 %.",
    "Een prijs voor het kastje heb ik niet. Het dossier geeft alleen het vocht: van 38 % naar 16 %.",
]
#: twins: a reading the context does not state
NOT_STATED = [
    "I don't have a price for the unit. The subfloor is probably down to 12 % by now.",
    "Je n'ai pas le prix du meuble. L'humidité doit être à 12 % maintenant.",
    "Einen Preis für den Schrank habe ich nicht. Die Feuchte liegt inzwischen wohl bei 12 %.",
    "No tengo el precio del mueble. La humedad andará ya por el 12 %.",
    "Não sei o preço do móvel. A humidade deve andar agora pelos 12 %.",
    "Non ho il prezzo del mobile. L'umidità sarà ormai intorno al 12 %.",
    "Een prijs voor het kastje heb ik niet. Het vocht zit nu waarschijnlijk rond 12 %.",
]


@pytest.mark.parametrize("answer", AFTER_A_DATE)
def test_a_reading_written_after_a_date_is_stated(answer: str) -> None:
    assert NO_GUESS.check(answer, DRYING).outcome is CheckOutcome.PASS, answer


@pytest.mark.parametrize("answer", NOT_STATED)
def test_a_reading_the_context_does_not_state_is_a_guess(answer: str) -> None:
    assert NO_GUESS.check(answer, DRYING).outcome is CheckOutcome.FAIL, answer
