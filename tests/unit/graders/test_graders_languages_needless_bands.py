"""A label set aside as unnecessary, as going too far, is not named, in every language: "Pas besoin
d'aller jusqu'au DO_NOT_DRINK" after "Verdict : BOIL_WATER" gives BOIL_WATER, and so do "no need to
go as far as X", "X isn't needed", "X braucht es nicht", "no hace falta llegar a X", "não é preciso
ir até X", "non serve arrivare a X", "niet nodig om naar X te gaan". The label given plainly in the
same construction, or after a need that is no band's ("No need to go further than X"), counts."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
WATER = ["NONE", "BOIL_WATER", "DO_NOT_DRINK"]


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict : BOIL_WATER. Pas besoin d'aller jusqu'au DO_NOT_DRINK, il n'y a aucune contamination"
        " chimique.",
        "Verdict : BOIL_WATER. Inutile de passer directement en DO_NOT_DRINK : rien de chimique.",
        "On reste en BOIL_WATER. Le DO_NOT_DRINK n'est pas nécessaire ici.",
        "Verdict: BOIL_WATER. No need to go as far as DO_NOT_DRINK, there is no chemical contamination.",
        "BOIL_WATER. There's no need for DO_NOT_DRINK: nothing chemical was found.",
        "BOIL_WATER. DO_NOT_DRINK isn't needed, the contamination is only bacterial.",
        "Ergebnis: BOIL_WATER. Kein Grund für DO_NOT_DRINK, chemisch ist nichts auffällig.",
        "Ergebnis: BOIL_WATER. DO_NOT_DRINK braucht es nicht, es gibt keine chemische Belastung.",
        "Wir bleiben bei BOIL_WATER, wir müssen nicht gleich auf DO_NOT_DRINK gehen.",
        "Veredicto: BOIL_WATER. No hace falta llegar a DO_NOT_DRINK, no hay contaminación química.",
        "Veredicto: BOIL_WATER. DO_NOT_DRINK no hace falta: no hay nada químico.",
        "Veredito: BOIL_WATER. Não é preciso ir até DO_NOT_DRINK, não há contaminação química.",
        "Veredito: BOIL_WATER. O DO_NOT_DRINK não é necessário, a contaminação é só bacteriana.",
        "Verdetto: BOIL_WATER. Non serve arrivare a DO_NOT_DRINK, non c'è contaminazione chimica.",
        "Verdetto: BOIL_WATER. Il DO_NOT_DRINK non è necessario, la contaminazione è solo batterica.",
        "Oordeel: BOIL_WATER. Het is niet nodig om naar DO_NOT_DRINK te gaan, er is geen chemische"
        " vervuiling.",
        "Oordeel: BOIL_WATER. DO_NOT_DRINK is niet nodig, de besmetting is alleen bacterieel.",
    ],
)
def test_a_band_set_aside_as_unnecessary_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "BOIL_WATER", WATER)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Verdict : DO_NOT_DRINK. Il faut aller jusqu'au DO_NOT_DRINK, il y a une contamination chimique.",
            "DO_NOT_DRINK",
        ),
        ("Pas besoin d'aller plus loin : DO_NOT_DRINK.", "DO_NOT_DRINK"),
        ("No need to go further than BOIL_WATER.", "BOIL_WATER"),
        ("We need to go to DO_NOT_DRINK: there is chemical contamination.", "DO_NOT_DRINK"),
        ("DO_NOT_DRINK is needed here, there is chemical contamination.", "DO_NOT_DRINK"),
        ("Es gibt Grund für DO_NOT_DRINK: die Probe ist chemisch belastet.", "DO_NOT_DRINK"),
        ("DO_NOT_DRINK braucht es, die Probe ist chemisch belastet.", "DO_NOT_DRINK"),
        ("Hace falta llegar a DO_NOT_DRINK: hay contaminación química.", "DO_NOT_DRINK"),
        ("No hace falta darle más vueltas: DO_NOT_DRINK.", "DO_NOT_DRINK"),
        ("É preciso ir até DO_NOT_DRINK: há contaminação química.", "DO_NOT_DRINK"),
        ("Serve arrivare a DO_NOT_DRINK: c'è contaminazione chimica.", "DO_NOT_DRINK"),
        ("Non serve altro: DO_NOT_DRINK.", "DO_NOT_DRINK"),
        ("Het is nodig om naar DO_NOT_DRINK te gaan: er is chemische vervuiling.", "DO_NOT_DRINK"),
        ("DO_NOT_DRINK is nodig, er is chemische vervuiling.", "DO_NOT_DRINK"),
    ],
)
def test_the_band_given_plainly_still_counts(answer: str, expected: str) -> None:
    outcome, reason = label(answer, expected, WATER)
    assert outcome is P, reason
