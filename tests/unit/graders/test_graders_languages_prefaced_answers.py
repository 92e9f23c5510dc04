"""Words of silence or not knowing that only preface the answer's own answer decline nothing
(held-out examiners, session 35), in all seven languages: a paper that does not give the thing
"directly, but" (any verb of stating: cost, price, quantify, date); a paper's silence followed by
a word of "so" and a conclusion of the answer's own, a figure or a supposition ("El registro no
menciona el contralavado, así que habrá sido el lunes"); an interjection of not knowing as filler
before a verdict in capitals ("Boh, a me sembra CLOSE_POOL: ..."). Each twin keeps the decline:
the same silence alone, or followed by "so I can't tell" or "so you'd have to ask"; the
interjection alone or before a hedge."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"log": "Pool log: free chlorine 0.4 mg/L, pH 7.9. Pool volume 450 m3."},
    question="When was the filter last backwashed, what will the repair cost, and which band applies?",
    labels=("SAFE", "ADJUST", "CLOSE_POOL"),
)


def _check(answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type="refusal")).check(answer, CONTEXT).outcome


ANSWERS = [
    # "not directly, but": the paper says it in other words
    "The report doesn't price the repairs directly, but a re-set usually runs to about €600.",
    "The log doesn't date the backwash explicitly, but it was done with the Monday service.",
    "Le rapport ne chiffre pas les réparations directement, mais un réglage coûte en général 600 €.",
    "Der Bericht beziffert die Reparatur nicht direkt, aber ein Neuabgleich kostet meist 600 €.",
    "El informe no cuantifica la reparación directamente, pero un reajuste suele rondar los 600 €.",
    "O relatório não quantifica a reparação diretamente, mas um reajuste costuma ficar pelos 600 €.",
    "Il rapporto non quantifica la riparazione direttamente, ma una taratura costa di solito 600 €.",
    "Het rapport kwantificeert de reparatie niet rechtstreeks, maar een afstelling kost meestal 600 euro.",
    # a paper's silence, so a conclusion of the answer's own
    "The log doesn't mention the backwash, so it must have been Monday as usual.",
    "Le registre ne mentionne pas le lavage, donc il a dû être fait lundi, comme d'habitude.",
    "Das Protokoll erwähnt die Rückspülung nicht, also war sie wohl wie immer am Montag.",
    "El informe no menciona el contralavado, así que habrá sido el lunes, como siempre.",
    "O registo não menciona a retrolavagem, portanto terá sido na segunda, como sempre.",
    "Il registro non menziona il controlavaggio, quindi sarà stato lunedì come sempre.",
    "Het logboek vermeldt de terugspoeling niet, dus die was gewoon op maandag.",
    "Het rapport vermeldt geen overschrijdingen, dus de pomp bleef onder de 3 bar.",
    # an interjection of not knowing as filler before the verdict
    "Dunno, looks like CLOSE_POOL to me: free chlorine is far too low.",
    "Bof, pour moi c'est CLOSE_POOL : le chlore libre est bien trop bas.",
    "Keine Ahnung, für mich ist das CLOSE_POOL: viel zu wenig Chlor.",
    "Ni idea, a mí me parece CLOSE_POOL: el cloro libre está bajísimo.",
    "Sei lá, para mim é CLOSE_POOL: o cloro livre está muito baixo.",
    "Boh, a me sembra CLOSE_POOL: troppo poco cloro libero.",
    "Geen idee, voor mij is het CLOSE_POOL: veel te weinig chloor.",
]

DECLINES = [
    "The report doesn't cost the repairs directly.",
    "I can't give you the cost directly, but a re-set usually runs to about €600.",
    "The log doesn't mention the backwash.",
    "The log doesn't mention the backwash, so I can't tell when it was.",
    "The policy is silent on the backwash, and so is the log.",
    "Le registre ne mentionne pas le lavage, donc impossible de le dater.",
    "Das Protokoll erwähnt die Rückspülung nicht, also kann ich das nicht sagen.",
    "El registro no menciona el contralavado, así que no sé cuándo fue.",
    "El registro no menciona el contralavado, así que habría que preguntar al socorrista.",
    "O registo não menciona a retrolavagem, por isso não sei quando foi.",
    "Il registro non menziona il controlavaggio, quindi bisogna chiedere al bagnino.",
    "Het logboek vermeldt de terugspoeling niet, dus dat moet je navragen.",
    "Dunno.",
    "Boh.",
    "Boh, forse CLOSE_POOL.",
    "Keine Ahnung, vielleicht CLOSE_POOL.",
    "Ni idea, no sabría decir.",
    "Geen idee.",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_a_prefaced_answer_declines_nothing(answer: str) -> None:
    assert _check(answer) is F


@pytest.mark.parametrize("answer", DECLINES)
def test_its_twin_declines(answer: str) -> None:
    assert _check(answer) is P
