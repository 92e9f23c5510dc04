"""A band the answer cannot see how to justify, or one set aside as not enough either, is not
named, in every language: "Je ne vois pas comment justifier un X", "tampoco basta con X", as
"Rien ne permet un X" and "No basta con X" are. The band justified, or found enough, is named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
CROSSING = ["CLOSE", "BARRIERS", "LIGHTS", "NO_CHANGE"]


@pytest.mark.parametrize(
    "answer",
    [
        "I can't see how to justify NO_CHANGE after four near misses. So BARRIERS.",
        "I don't see how anyone could justify a NO_CHANGE here. BARRIERS.",
        "CLOSE isn't needed, but LIGHTS isn't enough either. BARRIERS.",
        "Je ne vois pas comment justifier un NO_CHANGE avec quatre quasi-accidents. Donc BARRIERS.",
        "Je ne vois pas ce qui justifierait un NO_CHANGE ici. BARRIERS.",
        "Pas besoin d'aller jusqu'au CLOSE, mais on ne peut pas non plus se contenter de LIGHTS. BARRIERS.",
        "Ich wüsste nicht, wie man NO_CHANGE rechtfertigen sollte. Also BARRIERS.",
        "NO_CHANGE ist nicht zu rechtfertigen. BARRIERS.",
        "No veo cómo justificar un NO_CHANGE con cuatro casi-accidentes. Así que BARRIERS.",
        "No hace falta llegar a CLOSE, pero tampoco basta con LIGHTS. BARRIERS.",
        "Não vejo como justificar um NO_CHANGE com quatro quase-acidentes. Portanto BARRIERS.",
        "Não é preciso ir até CLOSE, mas LIGHTS também não chega. BARRIERS.",
        "Não é preciso ir até CLOSE, mas também não basta LIGHTS. BARRIERS.",
        "Non vedo come giustificare un NO_CHANGE con quattro quasi-incidenti. Quindi BARRIERS.",
        "Non serve arrivare a CLOSE, ma nemmeno basta LIGHTS. BARRIERS.",
        "Ik zie niet hoe je NO_CHANGE kunt verantwoorden met vier bijna-ongevallen. Dus BARRIERS.",
        "Het is niet nodig om naar CLOSE te gaan, maar LIGHTS is ook niet genoeg. BARRIERS.",
        "NO_CHANGE valt niet te verantwoorden. BARRIERS.",
    ],
)
def test_a_band_not_justifiable_or_not_enough_either_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "BARRIERS", CROSSING)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I can justify NO_CHANGE: four near misses in twenty years is nothing.", "NO_CHANGE"),
        ("CLOSE isn't needed; LIGHTS is enough.", "LIGHTS"),
        ("On peut justifier un NO_CHANGE : aucun incident en dix ans.", "NO_CHANGE"),
        ("Pas besoin d'aller jusqu'au CLOSE, on peut se contenter de LIGHTS.", "LIGHTS"),
        ("NO_CHANGE ist gut zu rechtfertigen, es gab keine Vorfälle.", "NO_CHANGE"),
        ("CLOSE braucht es nicht, LIGHTS reicht.", "LIGHTS"),
        ("Se puede justificar un NO_CHANGE: no hubo incidentes.", "NO_CHANGE"),
        ("No hace falta llegar a CLOSE; basta con LIGHTS.", "LIGHTS"),
        ("Dá para justificar um NO_CHANGE: não houve incidentes.", "NO_CHANGE"),
        ("Não é preciso ir até CLOSE; LIGHTS chega.", "LIGHTS"),
        ("Si può giustificare un NO_CHANGE: nessun incidente.", "NO_CHANGE"),
        ("Non serve arrivare a CLOSE; basta LIGHTS.", "LIGHTS"),
        ("NO_CHANGE is goed te verantwoorden: geen incidenten.", "NO_CHANGE"),
        ("Het is niet nodig om naar CLOSE te gaan; LIGHTS is genoeg.", "LIGHTS"),
    ],
)
def test_a_band_justified_or_enough_is_named(answer: str, expected: str) -> None:
    outcome, reason = label(answer, expected, CROSSING)
    assert outcome is P, reason
