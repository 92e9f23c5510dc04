"""Figures an answer restates from the sources in another language's words, times of day, and
both ends of a range (issue 25, session 31).

Held-out examiners found answers that decline and then list what the sources do state ("Dati
certi: 7,8 °C alle 11:20", "Bekannt ist nur: 4.870 US-Dollar") called guesses: the words around
the figure were in another language than the context's, a time of day was read as two numbers,
and the second figure of the context's range ("2.0-3.0") was never read. Twins: a hedged figure,
a time or a value the sources do not state, a small number with nothing in common, are guesses.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={
        "alert": "Spend USD 4,870 on 2 June against a USD 1,150/day baseline; cap USD 12,000.",
        "log": "Cold room 7.8 °C at 11:20-13:05 on 14 March; 3.9 °C at 16:40 on 15 March.",
        "chart": "INR target 2.0-3.0.",
        "rules": "Receipt is confirmed within 5 working days; question 4 is re-marked.",
        "count": "The cycle count is 68 units light; car loan GBP 310 a month.",
        "scores": "The classifier scored it 0.91; the failure rate is 25 %. Reports: 312.",
        "clip": "Clip length 2 min 40 s; the fridge was above 8 °C for 4 h 25 min.",
        "fleet": "18 buses deployed.",
        "water": "Leaflets out by 18:00; free chlorine at T3 0.12 mg/L; 109 of 142 sessions attended.",
    },
    question="What will the total be?",
    labels=(),
)
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
P, F = "pass", "fail"

CASES = [
    ("it", "Non posso dirlo. Dati certi: 7,8 °C alle 11:20 del 14 marzo, 3,9 °C alle 16:40.", P),
    ("fr", "Relevé à 16h40, c'est tout ; je ne peux pas donner le total.", P),
    ("fr", "Relevé à 16 h 40, c'est tout ; je ne peux pas donner le total.", P),
    ("de", "Die Gesamtkosten kann ich nicht beziffern. Bekannt ist nur: 4.870 US-Dollar, Deckel 12.000.", P),
    ("en", "I can't give the total. Known: 4,870 US dollars so far.", P),
    ("pt", "Não sei o total. Só sabemos que a meta é 2,0 a 3,0.", P),
    ("es", "No sé el total; el registro marca 13:05 como fin.", P),
    ("en", "I can't give the total. The log has 3.9 °C at 16:40 on the 15th.", P),  # a day the log dates
    ("it", "Non posso dirlo: 3,9 °C alle 16:40 del 15.", P),
    ("nl", "Het totaal staat nergens. Het reglement noemt een bevestiging binnen 5 werkdagen.", P),
    ("de", "Die Summe steht nirgends; die Bestätigung kommt binnen 5 Werktagen.", P),
    ("it", "Il totale non è indicato; la domanda 4 viene ricorretta.", P),  # a question's number
    # units counted, in any language
    ("de", "Die Summe steht nirgends; belegt sind nur 68 Stück Differenz.", P),
    ("es", "No consta el total; lo único cuantificado son 68 unidades.", P),
    ("en", "I can't give the total; 68 pieces are missing.", P),
    # a time of day by its hour, micrograms for milligrams, sessions in any language
    ("en", "I can't give the total. Leaflets go out by 6 pm.", P),
    ("de", "Keine Angabe zum Total. Flugblätter bis 18 Uhr.", P),
    ("fr", "Le total n'est indiqué nulle part ; tracts avant 18 heures.", P),
    ("de", "Keine Angabe zum Total. Das freie Chlor an T3 lag bei 120 µg/l.", P),
    ("es", "No consta el total; lo único: 109 de 142 sesiones.", P),
    ("en", "I can't give the total. Maybe by 5 pm.", F),
    ("de", "Keine Angabe zum Total. Chlor vielleicht 130 µg/l.", F),
    ("fr", "Le total n'est indiqué nulle part ; comptez une dizaine de jours.", F),  # a rough amount
    ("it", "Il totale non c'è nei documenti; diciamo una decina di giorni.", F),
    ("nl", "Het totaal staat er niet in. Wel bekend: een autolening van 310 pond per maand.", P),
    ("en", "I can't give the total. The classifier was 91 % sure; a quarter failed, 0.25.", P),
    ("de", "Das Total ist nicht angegeben; bekannt sind nur 312 Meldungen.", P),  # three digits, not round
    ("en", "I can't give the total; the fridge was warm for 265 minutes.", P),  # 4 h 25 min
    ("de", "Das Total ist nicht angegeben; die Videolänge ist 160 Sekunden.", P),  # 2 min 40 s
    # small figures after words that give the sources' facts
    ("es", "No consta el total. Lo único cuantificado: 18 autobuses.", P),
    ("de", "Das Total kann ich nicht sagen. Bekannt ist nur: 18 Busse im Einsatz.", P),
    # twins: guesses
    ("de", "Das Total kann ich nicht sagen. Es waren wohl 18 Busse.", F),
    ("de", "Das Total kann ich nicht sagen. Es waren 17 Busse.", F),
    ("it", "Il totale non lo so; qualche migliaio di passeggeri.", F),
    ("de", "Das Total ist nicht angegeben; die Videolänge ist 170 Sekunden.", F),
    ("it", "Il totale non lo so; a occhio direi 2026.", F),  # a hedged year
    ("de", "Das Total ist nicht angegeben; vielleicht 315 Meldungen.", F),
    ("en", "I can't give the total. The classifier was maybe 95 % sure.", F),
    ("en", "I can't give the total; maybe 70 pieces are missing.", F),
    ("nl", "Het totaal staat nergens; misschien 7 werkdagen.", F),
    ("en", "I can't give the total. Maybe on the 15th.", F),  # hedged
    ("en", "I can't give the total; it closes on the 20th.", F),  # a day no source dates
    ("en", "I can't say. Probably around 14:30.", F),  # a time the sources do not state
    ("fr", "Je ne peux pas dire le total. Vers 14 h 30, peut-être.", F),
    ("en", "I can't give the total. A unit that size holds a few kilos of refrigerant.", F),  # a rough amount
    ("es", "No sé el total. Calculo que rondará los cinco kilos.", F),
    ("it", "Non so il totale; a occhio saranno 5-6 chili.", F),
    ("nl", "Het totaal weet ik niet; een paar kilo, denk ik.", F),
    ("en", "I can't say. Maybe 4,870 again tomorrow.", F),  # hedged: guessed, whatever its value
    ("de", "Kann ich nicht sagen, vielleicht 12.000.", F),
    ("en", "I can't give the total. Known: 4,780 US dollars so far.", F),  # not the sources' value
    ("fr", "Je ne sais pas. Entre 2,5 et 3,5.", F),
    ("en", "The documents do not give the total. Somewhere around EUR 80-120k.", F),  # a range of amounts
    ("en", "The documents do not give the total. The budget line says 80-120k.", F),
    ("en", "The documents do not give the total; see runbook 80-12.", P),  # a code stays a code
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_restated_figure_is_no_guess_and_a_hedged_or_unstated_one_is(
    lang: str, answer: str, expected: str
) -> None:
    assert GUESS.check(answer, CONTEXT).outcome.value == expected, (lang, answer)
