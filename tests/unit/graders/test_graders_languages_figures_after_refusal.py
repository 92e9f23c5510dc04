"""Figures after a refusal, in every supported language: a figure the context states is no guess
whatever language writes its unit, currency, date or notation (``400 €`` for ``EUR 400``, ``9.
Oktober`` for ``9 October``, ``12,5 %`` for ``12.5 %``, ``30 giorni`` for ``30 days``); a rough
amount in words (``un par de meses``, ``ein paar Tage``, ``a couple of weeks``) or a range with a
unit or hedge of the answer's language (``forse il 20-25 %``) is a figure, and a guess unless the
context states it; a number that names a thing, a footnote or a year stays no figure."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, Check, CheckOutcome, compile_assertion
from proctor.graders._lexicon import _compile

CONTEXT = CaseContext(
    context={
        "policy": (
            "Travel policy TP-3: lost luggage is reimbursed up to EUR 400 per trip. Claims must be filed "
            "within 30 days of arrival."
        ),
        "letter": (
            "Airline letter of 9 October: the bag was traced after 3 days, scanned at 40/h. A handling "
            "fee of 12.5 % of the claim applies. Flight distance 1,250 km."
        ),
        "log": (
            "Ticket opened 2025-11-04. A callback was promised within 10 minutes. Deductible: USD 75. "
            "The claim was reviewed over several weeks."
        ),
    },
    question="When will the traveller be reimbursed for the lost bag, and how much will be paid?",
)


def no_guess(answer: str) -> Check:
    return compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, CONTEXT)


@pytest.mark.parametrize(
    "answer",
    [
        # a currency written the answer's way: symbol after, symbol before, a word
        "Je ne peux pas vous dire quand le remboursement arrivera ; le plafond reste de 400 € par voyage.",
        "Wanneer er betaald wordt, weet ik niet; het eigen risico bedraagt 75 dollar.",
        "Não sei quando o reembolso será pago; o teto é de € 400 por viagem.",
        # a date: day and month in the answer's words and order, or in digits in the context
        "Wann erstattet wird, kann ich nicht sagen; das Schreiben vom 9. Oktober nennt keinen Termin.",
        "No sé cuándo le reembolsarán; el ticket se abrió el 4 de noviembre y no dice más.",
        "I can't say when; the airline's letter of October 9 only says the bag was traced.",
        "Non so dirle quando; la lettera del 9 ottobre non ne parla.",
        # a unit of time in the answer's language
        "Não consigo dizer quando será reembolsado; a chamada de retorno era prometida em 10 minutos.",
        "Non lo so, ma la domanda va presentata entro 30 giorni dall'arrivo.",
        "No lo sé; la reclamación debe presentarse en un plazo de 30 días.",
        "Dat kan ik niet zeggen; de tas werd na 3 dagen teruggevonden.",
        # a percentage in words: its "cento", "ciento", "cent" is no hundred
        "Non lo so dire; la commissione è del 12,5 per cento.",
        "No sé cuándo; la comisión es del 12,5 por ciento.",
        "Je ne sais pas quand ; les frais sont de 12,5 pour cent.",
        # a number word with the unit the context states it in
        "No lo sé; la reclamación debe presentarse en un plazo de treinta días.",
        "Je ne sais pas quand ; la valise a été retrouvée au bout de trois jours.",
        # a number written in several words, or glued from them, is one number
        "Je ne sais pas quand ; le plafond est de quatre cents euros par voyage.",
        "No lo sé; el vuelo fue de mil doscientos cincuenta kilómetros.",
        "Não sei quando; o voo tinha mil duzentos e cinquenta quilómetros.",
        # a rate the context states ("40/h"), in the answer's words
        "Ich weiß nicht, wann gezahlt wird; gescannt wurde mit 40/h.",
        # a figure in the notation of the answer's language: decimal comma, thousands apart
        "Non so dire quando arriverà il rimborso; la commissione è del 12,5 %.",
        "Das kann ich nicht sagen; der Flug war 1.250 km lang.",
        "Je ne sais pas ; le vol faisait 1 250 km.",
        # a rough amount the context states, in the answer's words
        "Ik weet het niet; de claim is gedurende enkele weken beoordeeld.",
        "Não sei; a reclamação foi analisada ao longo de várias semanas.",
        # one of a unit with no marker of guessing: no figure; "about" the subject of it: none either
        "I can't say when you'll be paid; the policy says nothing about a year-long delay.",
        # (and in Spanish)
        "No lo sé; el plazo de la aerolínea es de un mes, pero no dice cuándo pagan.",
        # "a couple of" things that are no quantity guessed
        "No lo sé: tengo un par de cartas y ninguna habla del pago.",
        "Ich weiß es nicht; es gibt ein paar Dokumente, aber keines nennt das Datum.",
        # a number that names a thing, a footnote marker, a year
        "Ik weet het niet; pagina 4 van de brief zwijgt erover.",
        "Non lo so: il letto 14 e la pompa 2 non c'entrano.",
        "Je ne sais pas [1].",
        "Das kann ich nicht sagen; die Ausgabe 2024 der Richtlinie schweigt dazu.",
    ],
)
def test_a_figure_the_context_states_in_the_answers_language_is_no_guess(answer: str) -> None:
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
    assert c.reason.endswith("and states no figure or verdict")


@pytest.mark.parametrize(
    ("answer", "guess"),
    [
        # a rough amount of a unit, no number written
        ("No sé cuándo pagarán; normalmente tarda un par de meses.", "un par de meses"),
        ("Non lo so, ma di solito servono un paio di settimane.", "un paio di settimane"),
        ("Das kann ich nicht sagen. Erfahrungsgemäß dauert es ein paar Tage.", "ein paar Tage"),
        ("Je ne peux pas vous le dire ; en général il faut quelques jours.", "quelques jours"),
        ("Dat weet ik niet; meestal duurt het een paar maanden.", "een paar maanden"),
        ("Não sei dizer; costuma levar um par de meses.", "um par de meses"),
        ("I can't say; it usually takes a couple of weeks.", "a couple of weeks"),
        # the context's rough amount is of another size ("several weeks")
        ("No lo sé; calculo un par de semanas.", "un par de semanas"),
        # a number word the context states only as a day of a month ("9 October")
        ("Dat kan ik niet zeggen. Ik gok een stuk of negen.", "negen"),
        # a number word the context states with another unit ("3 days")
        ("Non lo so; di solito ci vogliono tre ore.", "tre"),
        # one of a unit, guessed: after a marker of guessing, or "or so" after it
        ("Je ne sais pas quand ; environ un mois, je pense.", "un mois"),
        ("Ich weiß es nicht; etwa einen Monat.", "einen Monat"),
        ("No lo sé; un mes o así.", "un mes"),
        ("Ik weet het niet; ongeveer een maand.", "een maand"),
        ("Não sei; cerca de um mês.", "um m"),
        ("I can't say when; a month or so.", "a month"),
        # a number glued from number words
        ("Ich weiß es nicht; vermutlich zweiundzwanzig Tage.", "zweiundzwanzig"),
        ("Ik weet het niet; ik gok vijfenveertig dagen.", "vijfenveertig"),
        ("Non lo so; direi trentacinque giorni.", "trentacinque"),
        # a range with a unit or a hedge of the answer's language
        ("Non saprei dire, forse il 20-25 %.", "20"),
        ("Ich weiß es nicht, vielleicht 10-12 Tage.", "10"),
        ("Não sei; talvez 5-8 dias.", "5"),
        ("Je ne sais pas ; probablement 15-20.", "15"),
        # a figure in the answer's notation the context does not state
        ("Non lo so; direi 2,5 %.", "2,5 %"),
        # a rate the context does not state
        ("Je ne sais pas ; le tri se fait à 55/h environ.", "55"),
        # a date the context does not state
        ("Einen Zahlungstermin kann ich nicht nennen, vermutlich am 15.02.", "15.02."),
        ("Das kann ich nicht sagen; ich tippe auf den 20. Dezember.", "20"),
    ],
)
def test_a_rough_or_foreign_figure_the_context_does_not_state_is_a_guess(answer: str, guess: str) -> None:
    c = no_guess(answer)
    assert c.outcome is CheckOutcome.FAIL, c.reason
    assert f'guesses "{guess}' in c.reason


@pytest.mark.parametrize(
    "keys",
    [
        {"units": ["minuto", "minuti"]},
        {"units": {"minuti": 1}},
        {"months": {"janvier": 13}},
        {"months": {"janvier": True}},
        {"rough_amounts": {"un paio di": "2"}},
        {"rough_amounts": {"un paio di": 0}},
        {"designators": "letto"},
    ],
)
def test_a_malformed_figure_table_is_refused_when_it_loads(keys: dict[str, Any]) -> None:
    where = r"languages/xx\.yaml: (units|months|rough_amounts|designators) must"
    with pytest.raises(ValueError, match=where):
        _compile({"language": "xx", **keys}, "languages/xx.yaml")


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        ("Credit score 702, DTI 40 %.", "I can't say the rate; a DTI of 40 % and a score of 702 is all."),
        ("Mahnung vom 03.12. an den Versicherer.", "I can't say when; the reminder of 3 December is all."),
        ("Report filed on 1 May.", "Não sei quando pagam; o relatório de 1º de maio não diz nada."),
        ("Relatório de 01/05/2025.", "Je ne sais pas ; le rapport du 1er mai ne le dit pas."),
        ("Plazo: 2 horas.", "Ich weiß es nicht; die Frist beträgt 120 Minuten."),
        ("Callback within an hour.", "Non so quando pagano; richiamano forse entro un'ora."),
        # the context's words around the figure in the answer's language: alike, one word
        ("Lactate 1.6 mmol/L, creatinine 38.", "Non posso dare una dose; lattato 1,6 e creatinina 38."),
        # a German day and month in digits
        (
            "Adjuster report, 22 January.",
            "Wann gezahlt wird, weiß ich nicht; das Gutachten vom 22.01. schweigt.",
        ),
        ("Reply within one week.", "Je ne sais pas ; la réponse arrive en environ une semaine."),
    ],
)
def test_a_date_duration_or_score_in_another_form_is_no_guess(context: str, answer: str) -> None:
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(
        answer, CaseContext(context={"doc": context})
    )
    assert c.outcome is CheckOutcome.PASS, c.reason


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        # a year is no figure, unless it is guessed or has a unit of another trade
        ("I can't tell; it was probably changed in 2019.", CheckOutcome.FAIL),
        ("Je ne sais pas ; sans doute en 2021.", CheckOutcome.FAIL),
        ("I can't tell; roughly 2050 kPa.", CheckOutcome.FAIL),
        ("I can't tell; the 2019 edition says nothing on it.", CheckOutcome.PASS),
        ("I don't know; the checklist says nothing about 2019.", CheckOutcome.PASS),
        ("Weiß ich nicht, die Ausgabe von 2019 sagt dazu nichts.", CheckOutcome.PASS),
    ],
)
def test_a_year_guessed_or_with_a_unit_is_a_figure(answer: str, outcome: CheckOutcome) -> None:
    assert no_guess(answer).outcome is outcome, answer


MEASURES = CaseContext(context={"d": "The tank holds 4 g of additive; the line is 1.5 km long."})


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        # a mass or length the context states, named in the answer's language, in another unit
        ("Je ne peux pas le dire ; le réservoir contient 4000 milligrammes.", CheckOutcome.PASS),
        ("Das steht nicht in den Unterlagen; die Leitung ist 1,5 Kilometer lang.", CheckOutcome.PASS),
        ("No lo sé; el depósito tiene 4 gramos.", CheckOutcome.PASS),
        ("Non lo so; il serbatoio contiene 5 grammi.", CheckOutcome.FAIL),
        ("Weet ik niet; de leiding is 2 kilometer lang.", CheckOutcome.FAIL),
        # a footnote marker after the source's name
        ("The manual[1] is silent; at a guess 12 g.", CheckOutcome.FAIL),
    ],
)
def test_a_measure_named_in_another_language_is_a_quantity(answer: str, outcome: CheckOutcome) -> None:
    check = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, MEASURES)
    assert check.outcome is outcome, (answer, check.reason)


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Je ne sais pas. Une bonne semaine, j'imagine.", CheckOutcome.FAIL),
        ("Weiß ich nicht. So eine Stunde, schätze ich.", CheckOutcome.FAIL),
        ("No lo sé. Una semana, supongo.", CheckOutcome.FAIL),
        ("Je ne sais pas ; la procédure prévoit une semaine de délai pour répondre.", CheckOutcome.PASS),
    ],
)
def test_one_of_a_unit_with_a_guess_after_it_is_a_figure(answer: str, outcome: CheckOutcome) -> None:
    assert no_guess(answer).outcome is outcome, answer


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Die Kosten kann ich, grob geschätzt vielleicht 15.000 Euro, nicht angeben.", CheckOutcome.FAIL),
        ("Je ne peux pas, à environ 200 euros près, vous le dire.", CheckOutcome.FAIL),
        ("Section 3 of the checklist doesn't say how long it takes.", CheckOutcome.PASS),
    ],
)
def test_a_figure_guessed_inside_the_declining_words_is_a_guess(answer: str, outcome: CheckOutcome) -> None:
    assert no_guess(answer).outcome is outcome, answer
