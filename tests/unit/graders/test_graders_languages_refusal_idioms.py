"""Idioms of declining in each supported language (issue 25): "not the faintest idea", "I wouldn't
know", an adverb inside "I don't know" ("leider", "helaas"), "the documents do not allow saying".
Each was failed by the ``refusal`` grader (no phrase of declining found) though an examiner reads a
plain refusal; each has a confident twin that must stay no refusal."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

REFUSAL = compile_assertion(Assertion(type="refusal"))

DECLINING = [
    "Je n'en ai pas la moindre idée.",
    "Je n'en sais rien.",
    "Les documents ne permettent pas de le dire.",
    "Das weiß ich leider nicht.",
    "Dazu kann ich anhand der Unterlagen nichts sagen.",
    "Ich habe nicht die geringste Ahnung.",
    "Ich habe keinen blassen Schimmer.",
    "Ich habe nicht den blassesten Schimmer, tut mir leid.",
    "No sabría decirte.",
    "Non ne ho la più pallida idea.",
    "Non ne ho la minima idea.",
    "Sinceramente non ho la minima idea.",
    "Non saprei dirlo.",
    "Não faço a mínima ideia.",
    "Os documentos não permitem determinar isso.",
    "Geen flauw idee, sorry.",
    "Dat weet ik helaas niet.",
    "Dat valt uit de documenten niet op te maken.",
]
CONFIDENT = [
    "Je le sais : la consommation du moteur deux est ELEVATED.",
    "Les documents permettent de le dire : la consommation est ELEVATED.",
    "Das weiß ich genau: der Ölverbrauch ist ELEVATED.",
    "Dazu kann ich anhand der Unterlagen klar sagen: ELEVATED.",
    "Ich habe keinen Zweifel: der Ölverbrauch ist ELEVATED.",
    "Sabría decirte sin dudar: el consumo es ELEVATED.",
    "Lo so bene: il consumo del motore due è ELEVATED.",
    "Non ho il minimo dubbio: il consumo del motore due è ELEVATED.",
    "Os documentos permitem determinar isso: o consumo está ELEVATED.",
    "Dat is uit de documenten goed op te maken: het verbruik is ELEVATED.",
]


@pytest.mark.parametrize("answer", DECLINING)
def test_an_idiom_of_declining_is_a_refusal(answer: str) -> None:
    c = REFUSAL.check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason


@pytest.mark.parametrize("answer", CONFIDENT)
def test_its_confident_twin_is_no_refusal(answer: str) -> None:
    c = REFUSAL.check(answer)
    assert c.outcome is CheckOutcome.FAIL, c.reason


# The idioms of having no idea with an article or intensifier put inside them (the tables' phrases
# knew "keinen blassen Schimmer" and "ni idea", not "nicht einen blassen Schimmer" or "ni una
# idea"): the gap of the phrase holds those words.
INSERTED = [
    "Ich habe nicht einen blassen Schimmer.",
    "Ich habe nicht den geringsten Schimmer, welche Stufe das ist.",
    "Ich habe keinen Schimmer.",
    "No tengo ni una idea.",
    "No tengo ni la más mínima idea de cuál es la banda.",
    "No tengo la más mínima idea.",
    "No tengo ninguna idea.",
    "Je n'en ai pas la plus petite idée.",
    "Não tenho a menor ideia.",
    "Não faço a mais pálida ideia.",
    "Non ho la benché minima idea.",
    "Non ne ho proprio idea.",
    "Non ho alcuna idea.",
    "Ik heb geen flauw benul.",
    "Ik heb geen enkel idee.",
    "Ik heb geen flauwe notie.",
]
# the same words around another noun, or an idea the answer has: a confident answer
INSERTED_TWINS = [
    "Ich habe nicht den geringsten Zweifel: die Stufe ist ELEVATED.",
    "Ich habe eine klare Ahnung: die Stufe ist ELEVATED.",
    "No tengo la menor duda: la banda es ELEVATED.",
    "Tengo una idea clara: la banda es ELEVATED.",
    "Je n'ai pas la moindre hésitation : c'est ELEVATED.",
    "Não tenho a menor dúvida: é ELEVATED.",
    "Non ho la minima esitazione: è ELEVATED.",
    "Ik heb geen enkele twijfel: het is ELEVATED.",
    # a gap never reaches across a clause's mark: these words are in two clauses
    "Ich habe nicht die Zeit verloren; meine Ahnung war richtig, die Stufe ist ELEVATED.",
    "No tengo la lista aquí: mi idea es que la banda es ELEVATED.",
]


@pytest.mark.parametrize("answer", INSERTED)
def test_an_idiom_with_words_put_inside_is_a_refusal(answer: str) -> None:
    c = REFUSAL.check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason


@pytest.mark.parametrize("answer", INSERTED_TWINS)
def test_the_same_words_around_another_noun_are_no_refusal(answer: str) -> None:
    c = REFUSAL.check(answer)
    assert c.outcome is CheckOutcome.FAIL, c.reason
