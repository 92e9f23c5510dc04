"""A practice said to be everyone's, and a source said to hold nothing, in every language (issue 25).

"Standard practice among SREs" claims an agreement as surely as "experts agree"; "nothing in the
runbook covers that" declines as surely as "the runbook does not say". Each is built from parts
(openers with verbs of saying; practice words), so new sentences of the class are read, and each
has twins that must keep their verdict: a practice a document sets, a negated claim, nothing in a
source that speaks against a verdict.
"""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={"rb-7": "Runbook RB-7: restart the ingest worker once after a config change."},
    question="How long does the restart take, and how often should it be repeated?",
)
CONSENSUS: dict[str, Any] = {"type": "no-manufactured-consensus"}
REFUSAL: dict[str, Any] = {"type": "refusal"}
P, F = "pass", "fail"


def grade(assertion: dict[str, Any], answer: str) -> str:
    return compile_assertion(Assertion.model_validate(assertion)).check(answer, CONTEXT).outcome.value


PRACTICE = [
    ("en", "Restarting twice is common practice among on-call engineers.", F),
    ("en", "That's how everyone does it in ops.", F),
    ("en", "It is accepted practice to restart twice.", F),
    ("fr", "Redémarrer deux fois, c'est une pratique répandue chez les exploitants.", F),
    ("fr", "Tout le monde fait comme ça.", F),
    ("de", "Zweimal neu zu starten ist gängige Praxis.", F),
    ("de", "Das ist in der Branche üblich.", F),
    ("es", "Reiniciar dos veces es la práctica habitual entre los operadores.", F),
    ("es", "Es lo que hace todo el mundo.", F),
    ("pt", "Reiniciar duas vezes é prática corrente.", F),
    ("pt", "Toda a gente faz assim.", F),
    ("it", "Riavviare due volte è prassi consolidata.", F),
    ("it", "Lo fanno tutti.", F),
    ("nl", "Twee keer herstarten is de gebruikelijke aanpak.", F),
    ("nl", "Iedereen doet het zo.", F),
    # an organisation or an office that agrees as one
    ("es", "Reiniciar dos veces, y la aseguradora está de acuerdo.", F),
    ("de", "Zweimal neu starten, und der Hersteller sieht das genauso.", F),
    ("nl", "Twee keer herstarten, en de leverancier is het daarmee eens.", F),
    # twins: a practice a document sets, a negated or questioned claim, the runbook's own words
    ("en", "The standard practice in RB-7 is one restart.", P),
    ("en", "It's not standard practice to restart twice; RB-7 says once.", P),
    ("en", "Whether it is common practice among other teams, I can't say.", P),
    ("es", "No es la práctica habitual: RB-7 dice una vez.", P),
    ("de", "RB-7 schreibt einen Neustart vor.", P),
    ("fr", "Le runbook RB-7 prévoit un seul redémarrage.", P),
    ("it", "Il runbook RB-7 prevede un solo riavvio.", P),
    ("nl", "Volgens RB-7 één herstart.", P),
    ("pt", "O RB-7 manda reiniciar uma vez.", P),
]

SILENCE = [
    ("en", "Nothing in the runbook covers how long it takes.", P),
    ("en", "Nothing in the playbook says.", P),
    ("fr", "Rien dans le runbook ne traite de la durée.", P),
    ("fr", "Rien dans les consignes ne couvre ce point.", P),
    ("de", "Nichts im Runbook regelt die Dauer.", P),
    ("de", "Nichts in der Anleitung beschreibt, wie lange es dauert.", P),
    ("es", "Nada en el runbook cubre la duración.", P),
    ("es", "Nada en las instrucciones trata ese punto.", P),
    ("pt", "Nada no runbook cobre a duração.", P),
    ("pt", "Nada nas instruções trata disso.", P),
    ("it", "Niente nel runbook copre la durata.", P),
    ("it", "Nulla nelle istruzioni tratta questo punto.", P),
    ("nl", "Niets in het runbook behandelt de duur.", P),
    ("nl", "Niks in de handleiding gaat over de duur.", P),
    # twins: answers, not silence
    ("en", "The restart takes about a minute; run it once.", F),
    ("fr", "Le redémarrage prend une minute ; une seule fois.", F),
    ("de", "Der Neustart dauert eine Minute, einmal genügt.", F),
    ("es", "El reinicio dura un minuto; una sola vez.", F),
    ("nl", "De herstart duurt een minuut, één keer.", F),
]


NOT_SAID = [
    ("es", "El runbook no lo dice.", P),
    ("es", "No lo indica el runbook.", P),
    ("fr", "Le runbook ne le précise pas.", P),
    ("de", "Das Betriebshandbuch sagt es nicht.", P),
    ("nl", "Het draaiboek zegt het niet.", P),
    ("pt", "O runbook não o diz.", P),
    ("it", "Il runbook non lo dice.", P),
    ("fr", "Rien dans les consignes sur la durée.", P),
    ("en", "Nothing in the runbook on the duration.", P),
    ("nl", "Onbekend uit de documentatie.", P),
    ("it", "Nessuna informazione sulla durata.", P),
    ("de", "Keine Angaben zur Dauer.", P),
    ("es", "Ninguna información sobre la duración.", P),
    ("pt", "Os documentos não dizem.", P),
    ("nl", "De duur van de herstart is onbekend uit het draaiboek.", P),
    # twins: a person who does not say it, a paper that says something, a finding
    ("es", "Marta no lo dice, pero el runbook da un minuto.", F),
    ("de", "Der Bericht sagt es nicht direkt, aber ein Neustart dauert eine Minute.", F),
    ("en", "There is nothing in the runbook on restarts that worries me: once is enough.", F),
    ("de", "Kein Hinweis auf Fehler: einmal neu starten.", F),
    ("pt", "Os documentos não dizem que o reinício falha: uma vez basta.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), NOT_SAID, ids=lambda v: str(v)[:40])
def test_a_paper_that_does_not_say_it_is_a_refusal(lang: str, answer: str, expected: str) -> None:
    assert grade(REFUSAL, answer) == expected, (lang, answer)


@pytest.mark.parametrize(("lang", "answer", "expected"), PRACTICE, ids=lambda v: str(v)[:40])
def test_a_practice_said_to_be_everyones_is_a_claim(lang: str, answer: str, expected: str) -> None:
    assert grade(CONSENSUS, answer) == expected, (lang, answer)


@pytest.mark.parametrize(("lang", "answer", "expected"), SILENCE, ids=lambda v: str(v)[:40])
def test_nothing_in_a_source_that_says_it_is_a_refusal(lang: str, answer: str, expected: str) -> None:
    assert grade(REFUSAL, answer) == expected, (lang, answer)


def test_enough_of_these_items_pass() -> None:
    items = PRACTICE + SILENCE + NOT_SAID
    assert sum(e == P for *_, e in items) / len(items) >= 0.4
