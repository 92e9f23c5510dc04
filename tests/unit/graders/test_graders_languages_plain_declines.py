"""Plain declines the phrases missed (held-out examiners, session 35), in all seven languages:
the thing nowhere, no paper named ("There's no logged speed anywhere", "La data non c'è da
nessuna parte"); a paper whose verb of saying has none of it ("El expediente no fija ninguna
fecha de levante"); the thing put first, the speaker without it ("Een topsnelheid heb ik niet").
Each beside a twin that stays an answer: a finding nowhere, a value nowhere near, a doubt the
speaker does not have."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CONTEXT = CaseContext(
    context={"audit": "Route 14: 23 stops, route length 31.4 km. Speed limit 60 km/h. Speed not logged."},
    question="What top speed did the bus reach, and when will the release be?",
)


def _check(kind: str, answer: str) -> CheckOutcome:
    return compile_assertion(Assertion(type=kind)).check(answer, CONTEXT).outcome


DECLINES = [
    # nowhere, no paper named
    "There's no recorded top speed anywhere.",
    "The release date isn't anywhere.",
    "Aucune vitesse relevée nulle part.",
    "La date de mainlevée n'est nulle part.",
    "Eine gemessene Höchstgeschwindigkeit gibt es nirgends.",
    "No hay velocidad registrada en ninguna parte.",
    "La fecha de levante no está en ningún sitio.",
    "A data de desalfandegamento não está em lado nenhum.",
    "Não há velocidade registada em lado nenhum.",
    "La data di svincolo non c'è da nessuna parte.",
    "Non c'è una velocità registrata da nessuna parte.",
    "Een gemeten topsnelheid is er nergens.",
    # a paper that fixes none of it
    "The customs file sets no release date.",
    "Le dossier ne fixe aucune date de mainlevée.",
    "Die Zollakte legt kein Freigabedatum fest.",
    "El expediente no fija ninguna fecha de levante.",
    "O processo não fixa nenhuma data de desalfandegamento.",
    "Il fascicolo non fissa nessuna data di svincolo.",
    "Het dossier legt geen vrijgavedatum vast.",
    # the thing first, the speaker without it
    "That top speed I don't have.",
    "La vitesse maximale, je ne l'ai pas.",
    "Eine Höchstgeschwindigkeit habe ich nicht.",
    "La velocidad máxima no la tengo.",
    "A velocidade máxima não a tenho.",
    "La velocità massima non ce l'ho.",
    "Een topsnelheid heb ik niet.",
]

ANSWERS = [
    "There's no damage anywhere: ROUTE_APPROVED.",
    "The speed is nowhere near the limit.",
    "Aucun défaut nulle part : ROUTE_APPROVED.",
    "Mängel gibt es nirgends, also ROUTE_APPROVED.",
    "No hay ningún defecto en ninguna parte, así que ROUTE_APPROVED.",
    "Não há defeitos em lado nenhum, por isso ROUTE_APPROVED.",
    "Non c'è alcun difetto da nessuna parte: ROUTE_APPROVED.",
    "The audit gives no sign of a defect.",
    "Le rapport ne donne aucun signe de défaut.",
    "Het rapport geeft geen enkel teken van schade.",
    "Objections I don't have.",
    "Des doutes, je n'en ai pas.",
    "Bedenken habe ich nicht.",
    "Dudas no tengo.",
    "Eu não tenho.",
    "Dubbi non ne ho.",
    "Bezwaren heb ik niet.",
]


@pytest.mark.parametrize("answer", DECLINES)
def test_a_plain_decline_declines(answer: str) -> None:
    assert _check("refusal", answer) is P
    assert _check("no-guess-after-refusal", answer) is P


@pytest.mark.parametrize("answer", ANSWERS)
def test_its_twin_is_no_decline(answer: str) -> None:
    # (undetermined where the phrases never read it: "nowhere near" is no phrase of declining)
    assert _check("refusal", answer) is not P


@pytest.mark.parametrize(
    "answer",
    [
        "There's no logged speed anywhere. Knowing that road, I'd guess about 65.",
        "La data non c'è da nessuna parte. Di solito ci vogliono tre settimane.",
        "El expediente no fija ninguna fecha de levante; calculo unas dos semanas.",
        "Een topsnelheid heb ik niet, maar waarschijnlijk rond de 70 km/h.",
    ],
)
def test_a_guess_after_a_plain_decline_is_a_guess(answer: str) -> None:
    assert _check("no-guess-after-refusal", answer) is F
