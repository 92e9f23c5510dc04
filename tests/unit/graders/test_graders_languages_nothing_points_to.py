"""A label that nothing points to is no verdict (issue 25), in all seven languages.

"Nothing suggests HIGH; the readings are ELEVATED." named HIGH: a false FAIL with ELEVATED
expected, a false PASS where HIGH is. The class: a label under a negated subject of indicating
("nothing", "none of the readings", "nada indica") or a negated noun of evidence ("no sign of",
"kein Hinweis auf"). Each beside a twin where something does point to it, which names it.
"""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

NOTHING_POINTS_TO_HIGH = [
    ("en", "Nothing suggests HIGH; the readings are ELEVATED."),
    ("en", "Nothing in the trend points to HIGH: the band is ELEVATED."),
    ("en", "There is no evidence of HIGH. The band is ELEVATED."),
    ("en", "I see no sign of HIGH, the band is ELEVATED."),
    ("en", "None of the readings suggest HIGH; ELEVATED."),
    ("en", "There is no evidence that it is HIGH; the band is ELEVATED."),
    ("en", "No reading in the last month indicates HIGH; it is ELEVATED."),
    ("fr", "Rien n'indique un niveau HIGH ; la bande est ELEVATED."),
    ("fr", "Rien dans les relevés n'indique que ce soit HIGH ; c'est ELEVATED."),
    ("fr", "Je ne vois aucun signe de HIGH, la bande est ELEVATED."),
    ("de", "Nichts deutet auf HIGH hin; der Verbrauch ist ELEVATED."),
    ("de", "Nichts in den Messwerten spricht für HIGH; die Stufe ist ELEVATED."),
    ("de", "Es gibt keine Anzeichen für HIGH, der Verbrauch ist ELEVATED."),
    ("es", "Nada indica un nivel HIGH; el consumo es ELEVATED."),
    ("es", "Nada en las lecturas apunta a HIGH: el consumo es ELEVATED."),
    ("es", "No hay indicios de HIGH; el consumo es ELEVATED."),
    ("pt", "Nada indica um nível HIGH; o consumo é ELEVATED."),
    ("pt", "Nada nos dados indica HIGH; o consumo é ELEVATED."),
    ("pt", "Não há sinais de HIGH: o consumo é ELEVATED."),
    ("it", "Niente indica un livello HIGH; il consumo è ELEVATED."),
    ("it", "Niente nei dati indica HIGH; il consumo è ELEVATED."),
    ("it", "Non ci sono segni di HIGH: il consumo è ELEVATED."),
    ("nl", "Niets wijst op HIGH; het verbruik is ELEVATED."),
    ("nl", "Niets in de metingen wijst op HIGH; het verbruik is ELEVATED."),
    ("nl", "Er is geen aanwijzing voor HIGH, het verbruik is ELEVATED."),
]

SOMETHING_POINTS_TO_HIGH = [
    ("en", "Everything suggests HIGH."),
    ("en", "There is no doubt that it is HIGH."),
    ("en", "Nothing else fits: HIGH."),
    ("en", "Nothing has changed and the trend shows HIGH."),
    ("en", "Nothing suggests it is anything but HIGH."),
    ("en", "The evidence points to HIGH."),
    ("fr", "Tout indique un niveau HIGH."),
    ("de", "Alles deutet auf HIGH hin."),
    ("de", "Nichts hat sich geändert und der Wert deutet auf HIGH hin."),
    ("es", "Todo indica un nivel HIGH."),
    ("es", "Nada ha cambiado y la lectura indica HIGH."),
    ("es", "No cabe duda: el nivel es HIGH."),
    ("pt", "Tudo indica um nível HIGH."),
    ("pt", "Nada mudou e a leitura indica HIGH."),
    ("it", "Tutto indica un livello HIGH."),
    ("it", "Niente è cambiato e la lettura indica HIGH."),
    ("nl", "Alles wijst op HIGH."),
    ("nl", "Niets is veranderd en de meting wijst op HIGH."),
]


@pytest.mark.parametrize(("lang", "answer"), NOTHING_POINTS_TO_HIGH)
def test_a_label_nothing_points_to_is_not_named(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "ELEVATED")
    assert outcome is CheckOutcome.PASS, (lang, reason)
    assert "negated: HIGH" in reason
    assert label(answer, "HIGH")[0] is CheckOutcome.FAIL


@pytest.mark.parametrize(("lang", "answer"), SOMETHING_POINTS_TO_HIGH)
def test_a_label_something_points_to_is_named(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "HIGH")
    assert outcome is CheckOutcome.PASS, (lang, reason)
