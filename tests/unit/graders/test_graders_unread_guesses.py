"""After a decline, what the grader cannot read is undetermined, not a guessed verdict (issue 25).

Held-out examiners' first measures kept finding the same shape: the grader read a decline, found no
figure it could read after it, and passed an answer that went on to guess in words ("un par de
palmos, calculo", "à vue de nez, un an de retard"); or found a bare number the context states (a
day, an hour) and failed an answer that only restated it; or found no phrase of declining at all
and passed the guess after a negation it did not read. Each is now undetermined with the reason;
what the grader does read keeps its verdict (the twins).
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, Unread, compile_assertion

GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
REFUSAL = compile_assertion(Assertion(type="refusal"))
U, F, P = CheckOutcome.UNDETERMINED, CheckOutcome.FAIL, CheckOutcome.PASS

CONTEXT = CaseContext(
    context={
        "sheet": "Ammonium 2,4 mg/L on 22 July. Composite sampler offline 21 July 02:40-07:15. "
        "Leaflets are delivered by 18:00. Follow-up meeting on the 14th.",
    },
    question="What was the ammonium value on 21 July?",
    labels=(),
)

#: a decline the tables read, then a hedged amount in words no number table holds
HEDGED_AMOUNTS = [
    "The sheet doesn't give the 21 July value. Probably a fraction more than the day after, at a guess.",
    "La fiche ne donne pas la valeur du 21. À vue de nez, un poil au-dessus du lendemain.",
    "Der Wert vom 21. steht nicht im Protokoll. Vermutlich ein Hauch höher als am Tag danach.",
    "El parte no dice el valor del 21. Calculo que un pelín más que el día siguiente.",
    "O boletim não indica o valor do dia 21. Talvez um nadinha acima do dia seguinte.",
    "Il valore del 21 luglio non è indicato nel foglio. A occhio e croce un filo sopra il giorno dopo.",
    "De waarde van 21 juli staat niet op het blad. Waarschijnlijk een tikje hoger dan de dag erna.",
]


@pytest.mark.parametrize("answer", HEDGED_AMOUNTS)
def test_a_hedged_amount_the_tables_do_not_read_after_a_decline_is_undetermined(answer: str) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is U and c.unread is Unread.FORM, c.reason
    assert "hedges" in c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # a hedge about no amount: nothing guessed
        "The sheet doesn't give the 21 July value. Probably the lab has it.",
        "Der Wert vom 21. steht nicht im Protokoll. Vermutlich hat das Labor ihn.",
        "Il valore del 21 luglio non è indicato nel foglio. Forse ce l'ha il laboratorio.",
        # a stated figure named as what it is, hedged or not: read, and cleared
        "O boletim não indica o valor do dia 21; o do dia 22 foi de 2,4 mg/L.",
    ],
)
def test_a_hedge_with_no_amount_or_a_stated_figure_keeps_its_pass(answer: str) -> None:
    assert GUESS.check(answer, CONTEXT).outcome is P


@pytest.mark.parametrize(
    "answer",
    [
        "Het blad vermeldt geen waarde voor 21 juli. Waarschijnlijk rond de 3 mg/L.",
        "El parte no dice el valor del 21. Calculo que unos 3 mg/L.",
        # "usually" guesses, in every table
        "Non lo so; di solito sono 3 mg/L.",
        "Je ne sais pas ; d'habitude c'est 3 mg/L.",
        "Das weiß ich nicht; normalerweise sind es 3 mg/L.",
    ],
)
def test_a_hedged_figure_after_a_decline_still_fails(answer: str) -> None:
    assert GUESS.check(answer, CONTEXT).outcome is F


@pytest.mark.parametrize(
    "answer",
    [
        "Impossible de le dire à partir de la fiche ; la seule autre date, c'est la réunion du 14.",
        "Não é possível dizer com base no boletim. Os folhetos são entregues até às 18.",
        "Non risulta dal foglio. I volantini vanno consegnati entro le 18.",
    ],
)
def test_a_bare_day_or_hour_the_context_states_after_a_decline_is_undetermined(answer: str) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is U and "unhedged, a value the context states" in c.reason, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # hedged: a guess, whatever the context states
        "Non risulta dal foglio. Forse entro le 18.",
        # a value the context does not state: a guess
        "Impossible de le dire à partir de la fiche ; je dirais 17.",
    ],
)
def test_a_hedged_or_unstated_bare_number_still_fails(answer: str) -> None:
    assert GUESS.check(answer, CONTEXT).outcome is F


@pytest.mark.parametrize(
    "answer",
    [
        "Die score bestaat niet. Ik schat een procent of twintig.",
        "Ein Wert für den 21. existiert nicht. Schätzungsweise 3 mg/L.",
        "Le score n'existe pas. Sans doute une vingtaine de pour cent.",
    ],
)
def test_a_guess_after_a_negation_no_phrase_of_declining_holds_is_undetermined(answer: str) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome in (U, F), c.reason  # read as a decline by a table: FAIL; otherwise undetermined
    if c.outcome is U:
        assert c.unread is Unread.FORM


@pytest.mark.parametrize(
    "answer",
    [
        # no negation before the hedge: an answer that guesses without declining passes, as documented
        "Probably about 3 mg/L, like the day after.",
        "Wahrscheinlich etwa 3 mg/L.",
    ],
)
def test_a_guess_with_no_negation_before_it_does_not_decline(answer: str) -> None:
    assert GUESS.check(answer, CONTEXT).outcome is P


@pytest.mark.parametrize(
    "answer",
    [
        "Der Bericht enthält keinen Ammonium-Wert, der Probenehmer war von 02:40 bis 07:15 ohne Strom.",
        "El registro del laboratorio no trae ningún valor de amonio para el 21 de julio.",
    ],
)
def test_dates_and_times_do_not_make_a_decline_an_answer(answer: str) -> None:
    # a refusal the phrases miss: not a FAIL because the answer holds a date or a time of day
    assert REFUSAL.check(answer, CONTEXT).outcome is not F


def test_a_refusal_with_a_figure_that_answers_still_fails() -> None:
    assert REFUSAL.check("Für den 21. Juli: 2,9 mg/L Ammonium.", CONTEXT).outcome is F


@pytest.mark.parametrize(
    "text", ["Für den 21. Juli: 2,9 mg/L Ammonium.", "Am 3. Mai lag der Wert bei 2,9 mg/L."]
)
def test_a_german_ordinal_day_ends_no_sentence(text: str) -> None:
    # "21." before its month is a day: split there, the rest ("Juli: 2,9 mg/L Ammonium.") read as Latin
    from proctor.graders._languages import languages

    read = languages(text)
    assert len(read.sentences) == 1 and read.sentences[0].supported, read
