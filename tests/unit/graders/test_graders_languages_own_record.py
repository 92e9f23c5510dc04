"""A band the writer recorded before, and a band a comparison leads to (issue 25, session 31).

Held-out examiners found answers that give a band the writer had at first ("I had RED at first,
but ...", "Ursprünglich hatte ich RED notiert", "je l'avais noté RED"), that a band was until
yesterday ("Bis gestern war es RED"), that others were going to push for one, and a comparison
of the case's own figure that concludes ("12 is above 5, so AMBER", read before as a band's
rule). Each class has its harmless twins: the band still named, the rule of a band still a rule.
The sentences are new, not the examiners' (those stay held out).
"""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

LABELS = ["GREEN", "AMBER", "RED"]
LABEL: dict[str, Any] = {"type": "label", "value": "AMBER", "labels": LABELS}
CONTEXT = CaseContext(
    context={"ops-1": "Alert bands: GREEN below 5 errors/min; AMBER 5 to 20; RED above 20."},
    question="The queue worker logs 12 errors/min. Which band?",
    labels=tuple(LABELS),
)
P, F = "pass", "fail"


def grade(answer: str) -> str:
    return compile_assertion(Assertion.model_validate(LABEL)).check(answer, CONTEXT).outcome.value


OWN_RECORD = [
    ("en", "We had RED on the board at first, but it's AMBER.", P),
    ("en", "I initially flagged it RED; AMBER after checking the rate.", P),
    ("en", "I had it as AMBER at first and then RED.", F),
    ("en", "RED (sorry, misread the chart). The rate sits in AMBER.", P),
    ("en", "Until yesterday it was RED. AMBER now.", P),
    ("en", "The night shift were going to push for RED. AMBER.", P),
    ("fr", "Je l'avais classé RED hier soir ; en relisant le seuil, c'est AMBER.", P),
    ("fr", "Jusqu'à hier c'était RED. Aujourd'hui AMBER.", P),
    ("de", "Ich hatte es zuerst als RED eingetragen, es ist aber AMBER.", P),
    ("de", "Bis gestern war es RED, jetzt AMBER.", P),
    ("it", "L'avevo segnato come RED, ma rileggendo è AMBER.", P),
    ("it", "Fino a ieri era RED; oggi AMBER.", P),
    ("es", "Lo había marcado como RED, pero es AMBER.", P),
    ("es", "Hasta ayer era RED. Hoy, AMBER.", P),
    ("pt", "Tinha marcado como RED, mas é AMBER.", P),
    ("pt", "Até ontem era RED; hoje AMBER.", P),
    ("nl", "Aanvankelijk had ik RED, maar het is AMBER.", P),
    ("nl", "Tot gisteren was het RED, nu AMBER.", P),
    ("de", "Einstufung: AMBER. Der Bot hatte RED vorgeschlagen, das ist hier klar daneben.", P),
    # a condition that opens with its verb, and a band it would have been
    ("en", "Had the rate passed 20 it would have been RED. It did not: AMBER.", P),
    ("en", "Were it above 20, RED; it is AMBER.", P),
    ("de", "Wären es mehr als 20 Fehler, läge es bei RED. So aber: AMBER.", P),
    ("nl", "Waren het meer dan 20 fouten, dan was het RED. Nu: AMBER.", P),
    # "é" is a verb, not "and": the negation does not reach the band after it
    ("pt", "Não é RED, é AMBER.", P),
    ("pt", "Não é RED e AMBER.", F),
    # a band said to be too soft or too harsh, ruled out, or marked by someone else
    ("de", "RED wäre hier zu streng, also AMBER.", P),
    ("fr", "RED serait ici trop sévère : AMBER.", P),
    ("es", "RED sería demasiado duro; AMBER.", P),
    ("es", "Nada de RED: AMBER.", P),
    ("es", "El operador marcó RED en el panel. Según la guía, lo correcto es AMBER.", P),
    ("nl", "Wordt de foutrate hoger dan 20, dan is het RED. Nu 12: AMBER.", P),
    ("es", "AMBER sería demasiado blando; RED.", F),
    # set aside after it, in a list of answers, or a band of this morning
    ("en", "Short version: AMBER. Plain RED would only apply if the rate passed 20.", P),
    ("en", "RED is off the table; it's AMBER.", P),
    ("en", "RED falls short of what the data show? No: 12 errors/min is AMBER.", P),
    ("de", "Klar AMBER; ein normales RED greift hier zu kurz.", P),
    ("en", "- RED: no (only 12 errors/min)\n- GREEN: no\n- **AMBER: yes**", P),
    ("de", "- RED: nein\n- GREEN: nein\n- AMBER: ja", P),
    ("es", "- RED: no (solo 12 errores/min)\n- **AMBER: sí**", P),
    ("en", "- RED: no\n- AMBER: no\n- GREEN: yes", F),
    ("pt", "Era RED de manhã; depois do re-run, passamos para AMBER.", P),
    ("nl", "Eerst dacht ik RED, maar dat klopt niet meer. Het is dus AMBER.", P),
    ("fr", "J'avais d'abord coché RED, à tort. Le bon niveau, c'est AMBER.", P),
    ("it", "Il telecontrollo segnalava RED, ma per la zona vale AMBER.", P),
    ("pt", "O painel indicava RED às 11h; a minha classificação é AMBER.", P),
    ("de", "Fehlen noch 10 Meldungen, ist die Stufe RED. Stand heute: AMBER.", P),
    ("nl", "Blijft de foutrate boven 20, dan is het RED. Op dit moment: AMBER.", P),
    ("it", "Il telecontrollo segnalava RED, ma per la zona vale AMBER.", P),  # Italian "per" is "for"
    # a band another wanted or proposed, or an assessment that had been
    ("en", "Decision: AMBER. The classifier wants RED, but it counted a lapsed strike.", P),
    ("fr", "Verdict : AMBER. Le classifieur propose RED, mais il compte une sanction expirée.", P),
    ("pt", "Parecer: AMBER. A equipa de turno queria RED, mas não concordo.", P),
    ("de", "Kurz: AMBER. Die Leitstelle wollte ein einfaches RED, aber das geht nicht.", P),
    ("it", "C'è chi spingerebbe per RED, ma la guida lo consente: AMBER.", P),
    ("pt", "Baixamos para AMBER depois do teste; a primeira avaliação tinha sido RED.", P),
    ("es", "Nada indica GREEN. Tampoco llega a RED, así que lo dejo en AMBER.", P),
    ("pt", "Não é caso de RED. Fica AMBER.", P),
    ("de", "Ergebnis: AMBER. RED war nur bis zur Bestätigung nötig.", P),
    ("en", "The classifier wants AMBER, but it is RED.", F),
    # a label alone in its sentence, written in lower case, is the verdict even beside capitals
    ("en", "Plain RED falls short: the rate is above 5, so the queue stays busy. Amber.", P),
    ("en", "AMBER. Lactate is red.", P),  # a word of the prose
    ("de", "Kurz: AMBER. Ein glatter RED kommt wegen der Lage nicht in Frage.", P),
    # twins: the band still named
    ("fr", "On l'avait passé en RED hier soir, puis rétrogradé en AMBER ce matin.", P),  # this morning: now
    ("nl", "Stond vorig jaar op RED, nu AMBER.", P),  # a verb first, no condition
    ("en", "I had a look at the graph: RED.", F),
    ("en", "We had AMBER alerts all night; it is AMBER.", P),
    ("de", "Bis gestern war es AMBER, heute auch: AMBER.", P),
]

CONCLUDED = [
    ("en", "12 errors/min is above 5, so AMBER.", P),
    ("en", "12 is above 5 and below 20, therefore AMBER.", P),
    ("en", "12 is over 5, thus RED.", F),
    ("fr", "Le taux est au-dessus de 5, donc AMBER.", P),
    ("de", "Der Wert liegt über 5, also AMBER.", P),
    ("it", "Il valore è sopra 5, quindi RED.", F),
    ("nl", "De waarde ligt boven 5, dus AMBER.", P),
    # a band's rule by its figures alone, then the verdict
    ("en", "Rule: 5\u201320 errors/min is AMBER, 21 and above is RED. We log 12, so AMBER.", P),
    ("en", "Per the table, 20+ is RED and 5-20 is AMBER; 12 means AMBER.", P),
    ("en", "5-20 errors/min is AMBER; we are at 25, so RED.", F),
    ("en", "The worker is at 12, which is in 5-20: AMBER.", P),  # a colon gives the case's reading
    ("en", "12/min (5-20) = AMBER.", P),
    # twins: a band's rule stays a rule
    ("en", "Above 20, RED. The worker is at 12: AMBER.", P),
    ("en", "Above 5 then AMBER, above 20 then RED; at 12 it is RED.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), OWN_RECORD + CONCLUDED)
def test_a_band_recorded_before_or_concluded_is_read_as_the_writer_means(
    lang: str, answer: str, expected: str
) -> None:
    assert grade(answer) == expected, (lang, answer)
