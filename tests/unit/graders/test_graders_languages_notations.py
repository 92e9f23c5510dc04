"""Figures an answer restates from the sources in the notations people write (issue 25, session 32).

Held-out examiners found declining answers that list what the sources state called guesses: a
time of day written with a point ("alle 7.45", "06.40 uur") or a context time followed by a colon
("at 06:40: ..."), a name glued to its figure with a decimal comma ("PM2,5"), a unit's power as
the canonical text writes it ("mg/m\u00b3" read "mg/m3"). Where the answer writes the context's digits in a
form the grader cannot compare at all ("Melding: 06.40", a point and no word of time), it says
undetermined, not a guessed FAIL. Twins:
another time, another figure, the context's own value hedged or in another unit, stay guesses.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, Unread, compile_assertion

CONTEXT = CaseContext(
    context={
        "log": "Call received at 06:40: pump 2 tripped. Crew on site 07:45. Mains back by 18 Uhr.",
        "air": "PM2.5 daily mean 61.2 \u00b5g/m\u00b3; peak 142 \u00b5g/m\u00b3. Sample taken 14:05.",
        "spec": "Service interval 500 hours.",
        "stay": "Booked for 7 nights.",
        "overtime": "Overtime on 22 March and 29 March.",
        "ward": "Ward 7B is full. Trains limited to 20 km/h.",
    },
    question="How many households lost water?",
    labels=(),
)
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F, U = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.UNDETERMINED

CASES = [
    # a time of day with a point, after a word that gives one or before "uur"/"Uhr"/"h"
    ("nl", "Dat weet ik niet. Wel bekend: melding om 06.40 uur, ploeg ter plaatse om 07.45.", P),
    ("it", "Non lo so. So solo che la squadra era sul posto alle 7.45.", P),
    ("de", "Kann ich nicht sagen. Die Meldung kam um 6.40 Uhr.", P),
    ("fr", "Je ne sais pas. L'appel est arrivé à 6 h 40.", P),
    ("en", "I can't tell you. The call came in at 06:40 and the crew was there at 7:45.", P),
    ("en", "I can't tell you. The call came in at 6:40 am; mains were due back by 6:00 pm.", P),
    # a whole hour the context writes with its word, restated on the clock
    ("en", "No idea how many. Mains were due back by 18:00.", P),
    # a name glued to its figure, with a decimal comma
    ("es", "No lo sé. Lo que consta: media de PM2,5 de 61,2 \u00b5g/m\u00b3.", P),
    # the same quantity in another unit with a power
    ("en", "I can't say. PM2.5 averaged 0.0612 mg/m\u00b3 that day.", P),
    # a small figure with its unit in the answer's words
    ("es", "No lo sé. Solo consta la estancia: 7 noches.", P),
    # a name the sources write with its figure glued to letters, and Dutch km/u
    ("fr", "Je ne sais pas. Le 7B est plein.", P),
    ("nl", "Weet ik niet. Wel: max. 20 km/u.", P),
    # days of one month in a list
    ("nl", "Weet ik niet. Wel: overuren op 22 en 29 maart.", P),
    ("fr", "Je ne sais pas. Heures supplémentaires les 22 et 29 mars.", P),
    # twins: another time, another quantity, the context's value in another unit, hedged
    ("nl", "Dat weet ik niet. Reken op herstel om 09.30 uur.", F),
    ("it", "Non lo so. Forse alle 8.15.", F),
    ("es", "No lo sé. La media de PM2,5 rondaría 70 \u00b5g/m\u00b3.", F),
    ("en", "I can't say. Probably 0.07 mg/m\u00b3.", F),
    ("en", "I can't say. Maybe 500 cycles.", F),
    ("nl", "Weet ik niet. Misschien 22 en 30 euro.", F),
    ("fr", "Je ne sais pas. Peut-être le 9C.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_restated_notation_is_no_guess_and_another_figure_is(
    lang: str, answer: str, expected: object
) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is expected, c.reason


def test_the_contexts_digits_in_a_form_the_grader_cannot_compare_are_undetermined() -> None:
    c = GUESS.check("Weet ik niet. Melding: 06.40.", CONTEXT)
    assert c.outcome is U and c.unread is Unread.FORM, c.reason
    assert "06.40" in c.reason
    # other digits in the same form are a guess the grader can call
    assert GUESS.check("Weet ik niet. Melding: 06.55.", CONTEXT).outcome is F
