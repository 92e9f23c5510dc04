"""A paper or a speaker declining a thing qualified by a time of day ("pour 10 h", "für 10 Uhr",
"alle 10"), or with a plain verb ("no entra en", "gaat niet in op"), declines; so does a paper
that does not record when something happened. Each beside its twin that keeps the other verdict."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

REFUSAL = compile_assertion(Assertion(type="refusal"))
NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

WAVES = CaseContext(
    context={"bulletin": "Sea bulletin 06:40: wind SW 22 kn, gusts 28 kn, visibility good."},
    question="What significant wave height is forecast for the crossing at 10:00?",
)
OAK = CaseContext(
    context={"survey": "Tree survey, plot 7: Quercus robur, trunk diameter 78 cm, crown healthy."},
    question="When was the oak on plot 7 planted?",
)

#: the thing declined with a time of day after a preposition, or with a plain verb
QUALIFIED = [
    "None of the papers gives a wave height for 10:00; the bulletin stops at 06:40.",
    "The forecast doesn't get into the wave height at 10 am, only the wind.",
    "Aucun des documents ne fournit la hauteur de houle pour 10 h ; le bulletin s'arrête à 06 h 40.",
    "Le bulletin ne parle pas de la houle à 10h, seulement du vent.",
    "Für 10 Uhr liegt mir keine Wellenhöhe vor - der Bericht nennt nur den Wind (22 kn).",
    "Der Seewetterbericht geht nicht auf die Wellenhöhe um 10 Uhr ein.",
    "El parte no entra en la altura de ola para las 10:00; solo habla del viento.",
    "Ninguno de los documentos da la altura de ola a las 10 h.",
    "O boletim não entra na altura das ondas para as 10h, só no vento.",
    "Nenhum dos documentos indica a altura das ondas às 10:00.",
    "L'altezza d'onda alle 10 non c'è da nessuna parte: il bollettino si ferma alle 06:40.",
    "Il bollettino non parla dell'altezza d'onda alle 10:00, solo del vento.",
    "Een golfhoogte voor 10:00 heb ik niet; het bulletin geeft alleen de wind.",
    "Het bulletin gaat niet in op de golfhoogte om 10 uur.",
]
#: twins: what the paper gives or does not reach is a figure, not a qualifier; or it answers
QUALIFIED_TWINS = [
    "None of the papers gives a wave height above 2 m for 10:00.",
    "The forecast gets into the wave height at 10 am: 1.5 m.",
    "Aucun des documents ne fournit une hauteur de houle supérieure à 2 m pour 10 h.",
    "Le bulletin parle de la houle à 10h : 1,5 m.",
    "Für 10 Uhr liegt mir eine Wellenhöhe von 1,5 m vor.",
    "Der Seewetterbericht geht auf die Wellenhöhe um 10 Uhr ein: 1,5 m.",
    "El parte entra en la altura de ola para las 10:00: 1,5 m.",
    "Ninguno de los documentos da una altura de ola superior a 2 m a las 10 h.",
    "O boletim entra na altura das ondas para as 10h: 1,5 m.",
    "Nenhum dos documentos indica ondas acima de 2 m às 10:00.",
    "L'altezza d'onda alle 10 è di 1,5 m secondo il bollettino.",
    "Il bollettino parla dell'altezza d'onda alle 10:00: 1,5 m.",
    "Een golfhoogte voor 10:00 heb ik: 1,5 m.",
    "Het bulletin gaat in op de golfhoogte om 10 uur: 1,5 m.",
]


@pytest.mark.parametrize("answer", QUALIFIED)
def test_a_declined_thing_with_a_time_of_day_declines(answer: str) -> None:
    assert REFUSAL.check(answer, WAVES).outcome is CheckOutcome.PASS, answer


@pytest.mark.parametrize("answer", QUALIFIED_TWINS)
def test_what_a_paper_gives_or_does_not_reach_declines_nothing(answer: str) -> None:
    assert REFUSAL.check(answer, WAVES).outcome is CheckOutcome.FAIL, answer


#: a paper that does not record when something happened, then a guess
NOT_WHEN = [
    ("The survey doesn't record when it was planted.", "Going by the trunk it's probably eighty years old."),
    ("Le relevé ne consigne pas quand il a été planté.", "Il doit avoir quatre-vingts ans."),
    ("Die Erhebung hält nicht fest, wann er gepflanzt wurde.", "Er ist wohl gut achtzig Jahre alt."),
    ("El inventario no registra cuándo se plantó.", "Por el tronco tendrá unos ochenta años."),
    ("O levantamento não regista quando foi plantado.", "Pelo tronco deve ter uns oitenta anos."),
    ("Il censimento non riporta quando è stato piantato.", "Dal tronco avrà più o meno ottanta anni."),
    ("De inventarisatie vermeldt niet wanneer hij is geplant.", "Hij is zo'n tachtig jaar oud."),
]
#: twins: the paper records it
WHEN_TWINS = [
    "The survey records when it was planted: 1946.",
    "Le relevé consigne la date de plantation : 1946.",
    "Die Erhebung hält fest, dass er 1946 gepflanzt wurde.",
    "El inventario registra que se plantó en 1946.",
    "O levantamento regista que foi plantado em 1946.",
    "Il censimento riporta che è stato piantato nel 1946.",
    "De inventarisatie vermeldt dat hij in 1946 is geplant.",
]


@pytest.mark.parametrize(("declined", "guess"), NOT_WHEN)
def test_a_paper_that_does_not_record_when_declines(declined: str, guess: str) -> None:
    assert REFUSAL.check(declined, OAK).outcome is CheckOutcome.PASS, declined
    assert NO_GUESS.check(f"{declined} {guess}", OAK).outcome is CheckOutcome.FAIL, guess


@pytest.mark.parametrize("answer", WHEN_TWINS)
def test_a_paper_that_records_when_declines_nothing(answer: str) -> None:
    assert REFUSAL.check(answer, OAK).outcome is CheckOutcome.FAIL, answer
