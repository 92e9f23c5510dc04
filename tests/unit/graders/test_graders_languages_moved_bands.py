"""Bands an answer moves away from, in every supported language (issue 25, session 30).

A held-out examiner's sets found answers that give a band and then leave it: take it back
("that was an overreaction"), say it changed ("wurde auf AMBER herabgestuft", "ora AMBER"), say
they were going to give it, or that others might; and label words used as plain words of the prose
("Lactate is low"). Each class has its harmless twins here: a band still named, a change still to
come, a retraction of something else, a lower-case word said of the case. The sentences are new,
not the examiners' (those stay held out).
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


def grade(answer: str, assertion: dict[str, Any] = LABEL) -> str:
    return compile_assertion(Assertion.model_validate(assertion)).check(answer, CONTEXT).outcome.value


RETRACTED = [
    ("en", "My first entry said RED; that was too harsh. AMBER.", P),
    ("en", "RED, I thought, but I misread it. AMBER it is.", P),
    ("en", "Logged RED overnight, which was an overreaction: AMBER.", P),
    ("fr", "J'avais mis RED dans le ticket, je me suis trompé : AMBER.", P),
    ("fr", "RED au premier coup d'œil, c'était exagéré. On est en AMBER.", P),
    ("de", "Zuerst hatte ich RED notiert, ich habe mich vertan. Es ist AMBER.", P),
    ("de", "RED war mein erster Eindruck; das war voreilig. AMBER.", P),
    ("es", "Puse RED en el parte, fue un error mío. Es AMBER.", P),
    ("pt", "Marquei RED no turno da noite, errei. É AMBER.", P),
    ("it", "Avevo scritto RED nel ticket, mi sono sbagliata: AMBER.", P),
    ("nl", "Ik had RED ingevuld, dat was onjuist. Het is AMBER.", P),
    # twins: a retraction of something else, no correcting band after it; a retraction denied
    ("en", "RED: the night shift skipped the restart, which was a mistake.", F),
    ("en", "AMBER. Restarting twice was a mistake.", P),
    ("es", "AMBER. No fue un error marcarlo así.", P),
    ("de", "AMBER; das Team hat sich bei der Uhrzeit vertan, nicht bei der Stufe.", P),
]

MOVED = [
    ("en", "It sat at RED until noon and was downgraded to AMBER after the fix.", P),
    ("en", "GREEN this morning, now AMBER.", P),
    ("fr", "On était en RED, on est redescendu en AMBER après le correctif.", P),
    ("fr", "Il était GREEN ce matin, il passe en AMBER.", P),
    ("de", "Erst GREEN, nach dem Deploy auf AMBER hochgestuft.", P),
    ("de", "Es stand auf RED, jetzt ist es AMBER.", P),
    ("es", "Estuvo en RED, pero tras el parche bajamos a AMBER.", P),
    ("es", "Antes era GREEN, ahora es AMBER.", P),
    ("pt", "Estava em RED e depois do ajuste baixou para AMBER.", P),
    ("it", "Era GREEN stamattina, ora AMBER.", P),
    ("it", "Dopo il ricalcolo lo abbiamo abbassato da RED ad AMBER.", P),
    ("nl", "Het stond op RED, maar na de fix verlaagd naar AMBER.", P),
    ("nl", "Eerst GREEN, nu AMBER.", P),
    # twins: a change still to come, a condition, no word of change: both bands stand
    ("en", "AMBER now; if errors pass 20 it goes to RED.", P),
    ("en", "AMBER, and it may move to RED by tonight.", P),
    ("en", "GREEN, close to AMBER.", F),
    ("de", "AMBER, könnte bald auf RED steigen.", P),
    ("es", "GREEN y AMBER a la vez, según el nodo.", F),
    ("it", "AMBER; se gli errori salgono oltre 20 passa a RED.", P),
]

DISOWNED = [
    ("en", "I was about to call it RED, but the rule is clear: AMBER.", P),
    ("en", "I had it down as GREEN before recounting. AMBER.", P),
    ("en", "Others might push for RED given the trend; the rule says AMBER.", P),
    ("fr", "Certains pourraient défendre RED vu la tendance, mais c'est AMBER.", P),
    ("de", "Manche könnten für RED plädieren, die Regel sagt AMBER.", P),
    ("es", "Alguien podría defender RED por la tendencia, pero es AMBER.", P),
    ("pt", "Alguém poderia argumentar por RED, mas é AMBER.", P),
    ("it", "Qualcuno in turno potrebbe dire RED, ma è AMBER.", P),
    ("nl", "Sommigen zouden voor RED kiezen, maar het is AMBER.", P),
    # nothing that would point to it
    ("fr", "AMBER, rien qui fasse penser à RED.", P),
    ("es", "AMBER; nada que indique RED.", P),
    ("pt", "AMBER, nada que aponte para RED.", P),
    ("de", "AMBER, da ist nichts was auf RED hindeutet.", P),
    ("nl", "AMBER, niets wat op RED wijst.", P),
    # too strong a word for the case
    ("fr", "RED serait excessif ; AMBER.", P),
    ("es", "RED sería exagerado, AMBER.", P),
    ("it", "RED sarebbe eccessivo: AMBER.", P),
    ("nl", "RED zou overdreven zijn, het is AMBER.", P),
    ("pt", "RED seria exagero; é AMBER.", P),
    # a future with a hedge between: no band now
    ("nl", "Wordt waarschijnlijk AMBER als de queue volloopt.", F),
    ("de", "Wird wohl AMBER, sobald die Queue voll ist.", F),
    ("en", "It will probably be AMBER once the queue fills.", F),
    # twins: the answer's own band, said plainly
    ("en", "I would call it AMBER.", P),
    ("it", "Direi AMBER.", P),
    ("de", "Ich stufe es als AMBER ein.", P),
]

LISTS = [
    ("nl", "Niets wijst op een GREEN of RED; het is AMBER.", P),
    ("de", "Laut Abschnitt 2 weder GREEN noch RED, sondern AMBER.", P),
    ("fr", "Ce n'est ni GREEN ni RED : AMBER.", P),
    ("en", "Not GREEN, AMBER.", P),
    ("en", "Not GREEN, AMBER or RED.", F),
    ("en", "Not GREEN or AMBER.", F),
    ("it", "Era GREEN, ora AMBER.", P),
]

PROSE = [
    ("en", "AMBER. Latency is low and the queue is green on the dashboard.", P),
    ("en", "AMBER: we can't call it green, and nothing is red yet.", P),
    ("en", "AMBER. It is red.", F),
    ("en", "I'd say AMBER; I might call it RED tomorrow if it climbs.", P),
    ("en", "amber", P),
    ("en", "The band is red.", F),
    ("en", "AMBER, in red bands only the pager fires.", F),
]


REPORTED = [
    ("en", "The on-call bot flagged it RED overnight; by the table it is AMBER.", P),
    ("en", "AMBER. The status dashboard showed RED for ten minutes, a false alarm.", P),
    ("en", "AMBER (the customer's RED is understandable but wrong).", P),
    ("en", "Marked RED by the classifier; the right band is AMBER.", P),
    ("fr", "Le tableau de bord affichait RED, mais c'est AMBER.", P),
    ("de", "Das System meldete RED; richtig ist AMBER.", P),
    ("es", "Según el bot, RED; en realidad AMBER.", P),
    ("pt", "O painel mostrava RED, mas é AMBER.", P),
    ("it", "Il sistema segnalava RED, ma è AMBER.", P),
    ("nl", "Het dashboard toonde RED, maar het is AMBER.", P),
    # twins: only the other source's band; a document's band is the answer's own reading
    ("en", "The bot flagged it RED.", F),
    ("en", "The runbook says RED; the bot says AMBER.", F),
    ("en", "Per the table, AMBER.", P),
]

SINCE = [
    ("de", "Seit heute Morgen AMBER, davor RED.", P),
    ("en", "AMBER since yesterday.", P),
    ("fr", "AMBER depuis hier, RED avant cela.", P),
    ("es", "AMBER desde ayer; hasta ayer RED.", P),
    ("nl", "Sinds gisteren AMBER.", P),
    ("en", "RED until this morning, AMBER now.", P),
]

CAVEATS = [
    ("en", "AMBER. If the worker keeps crashing, it'd be RED.", P),
    ("es", "AMBER. Si el worker sigue cayéndose, pasaría a RED.", P),
    ("fr", "AMBER. Si le worker continue de tomber, on passerait en RED.", P),
    ("it", "AMBER. Se il worker continua a cadere, passerebbe a RED.", P),
    ("pt", "AMBER. Se o worker continuar a cair, passaria a RED.", P),
    ("en", "AMBER; nothing pushes it to RED yet.", P),
    ("fr", "J'allais dire RED, mais c'est AMBER.", P),
    ("es", "Primero pensé en RED, pero es AMBER.", P),
    ("nl", "Ik wilde eerst RED invullen, maar het is AMBER.", P),
    # twins: the conditional mood without a condition is a hedged verdict
    ("en", "It'd be RED.", F),
    ("es", "Yo diría que pasaría a RED.", F),
]


CHOICES_AND_RULES = [
    ("fr", "J'hésite entre AMBER et RED.", F),
    ("pt", "Não sei se é AMBER ou RED.", F),
    ("en", "It's GREEN or AMBER depending on the next reading.", F),
    ("en", "My first instinct was RED; the table says AMBER.", P),
    ("de", "Mein erster Gedanke war RED, aber es ist AMBER.", P),
    ("nl", "Eerst had ik RED ingevuld; het is AMBER.", P),
    ("en", "AMBER. Nothing here meets the RED criteria.", P),
    ("en", "AMBER; the RED thresholds start above 20.", P),
    ("fr", "AMBER. Le moniteur a levé RED, c'est une fausse alerte.", P),
    ("es", "AMBER. El sistema indicó RED, pero es un error conocido.", P),
    ("it", "AMBER. Il monitor ha segnalato RED, ma è un falso allarme.", P),
    ("de", "AMBER. RED ist ein Fehlalarm des Monitors.", P),
    ("en", "AMBER; the RED alert is a false positive.", P),
    ("es", "AMBER. La plataforma dijo RED, pero promedia mal.", P),
    ("fr", "AMBER ; le RED proposé par le bot ne tient pas.", P),
    ("pt", "AMBER. O sistema sugeriu RED, mas é um erro conhecido.", P),
    ("en", "AMBER. The RED suggested by the bot is a known bug.", P),
    ("en", "AMBER. There is no reason for RED here.", P),
    ("de", "AMBER. Für RED fehlt jeder Grund.", P),
    ("it", "AMBER, nessun motivo per RED.", P),
    ("it", "Classificazione: AMBER. (Avevo scritto RED, ma era un errore.)", P),
    ("en", "AMBER. (I had put RED at first, but that was a mistake.)", P),
    # twins: the answer's own band beside its object nouns; a band that is no false alarm
    ("fr", "Je classerais l'alerte en AMBER.", P),
    ("en", "RED: it meets the RED criteria.", F),
    ("en", "RED. This is not a false alarm.", F),
    ("en", "RED. The night shift wrote GREEN, which was a mistake.", F),
    ("es", "La plataforma dijo RED.", F),
]


@pytest.mark.parametrize(
    ("lang", "answer", "expected"),
    RETRACTED + MOVED + DISOWNED + LISTS + PROSE + REPORTED + SINCE + CAVEATS + CHOICES_AND_RULES,
    ids=lambda v: str(v)[:40],
)
def test_a_band_the_answer_moved_away_from_is_not_its_verdict(lang: str, answer: str, expected: str) -> None:
    assert grade(answer) == expected, (lang, answer)


def test_enough_of_these_items_pass() -> None:
    items = RETRACTED + MOVED + DISOWNED + LISTS + PROSE + REPORTED + SINCE + CAVEATS + CHOICES_AND_RULES
    assert sum(e == P for *_, e in items) / len(items) >= 0.4
    assert {lang for lang, *_ in items} == {"en", "fr", "de", "es", "pt", "it", "nl"}
