"""A label as the subject of a definition of its purpose or scope is a band's rule, not a verdict, in
every language: "Laut Mail vom TD ist REPAIR_BEFORE_USE für Sachen gedacht, die wir ... selbst
richten können" says what the band is for, as "REPAIR_BEFORE_USE is for things we can fix in
house" does, and the answer's verdict is the band it then gives. The label given plainly beside
a word of purpose ("REPAIR_BEFORE_USE ist für Zug 14 die richtige Einstufung") still counts."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
RIGGING = ["OK", "REPAIR_BEFORE_USE", "OUT_OF_SERVICE"]


@pytest.mark.parametrize(
    "answer",
    [
        "Laut Mail vom TD ist REPAIR_BEFORE_USE für Sachen gedacht, die wir vor der nächsten Probe selbst"
        " richten können. Eine gerissene Seilrolle gehört nicht dazu, Zug 14 also: OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE ist für Mängel vorgesehen, die wir im Haus beheben. Die Seilrolle ist gerissen,"
        " also OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE is meant for things we can fix in house. A snapped pulley isn't, so:"
        " OUT_OF_SERVICE.",
        "D'après le mail du directeur technique, REPAIR_BEFORE_USE est prévu pour ce qu'on peut réparer"
        " nous-mêmes avant la prochaine répétition. Une poulie fendue, non : OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE, c'est pour les cas où on répare en interne. Poulie fendue : OUT_OF_SERVICE.",
        "Según el correo del director técnico, REPAIR_BEFORE_USE está pensado para lo que podemos arreglar"
        " nosotros antes del próximo ensayo. Una polea rajada no entra ahí: OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE es para los casos que arreglamos en casa. La polea está rajada, así que"
        " OUT_OF_SERVICE.",
        "Segundo o e-mail do diretor técnico, o REPAIR_BEFORE_USE serve para o que conseguimos arranjar"
        " antes do próximo ensaio. Uma roldana rachada não: OUT_OF_SERVICE.",
        "O REPAIR_BEFORE_USE é para os casos que reparamos cá dentro. Roldana rachada, portanto"
        " OUT_OF_SERVICE.",
        "Secondo la mail del direttore tecnico, REPAIR_BEFORE_USE è pensato per le cose che sistemiamo noi"
        " prima della prossima prova. Una puleggia crepata no: OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE è per i guasti che ripariamo in casa. La puleggia è crepata, quindi"
        " OUT_OF_SERVICE.",
        "Volgens de mail van de TD is REPAIR_BEFORE_USE bedoeld voor dingen die we vóór de volgende"
        " repetitie zelf kunnen maken. Een gescheurde katrol hoort daar niet bij: OUT_OF_SERVICE.",
        "REPAIR_BEFORE_USE is voor gevallen die we zelf oplossen. De katrol is gescheurd, dus"
        " OUT_OF_SERVICE.",
    ],
)
def test_what_a_band_is_for_is_its_rule(answer: str) -> None:
    outcome, reason = label(answer, "OUT_OF_SERVICE", RIGGING)
    assert outcome is P, reason
    assert "rule: REPAIR_BEFORE_USE" in reason


@pytest.mark.parametrize(
    "answer",
    [
        "Zug 14 ist für uns REPAIR_BEFORE_USE: die Rolle lässt sich vor der Probe tauschen.",
        "REPAIR_BEFORE_USE ist für Zug 14 die richtige Einstufung.",
        "Pour la perche 14, c'est REPAIR_BEFORE_USE : on change la poulie avant la répétition.",
        "REPAIR_BEFORE_USE est pour moi la bonne réponse.",
        "Para la vara 14, REPAIR_BEFORE_USE: cambiamos la polea antes del ensayo.",
        "REPAIR_BEFORE_USE para a vara 14: trocamos a roldana antes do ensaio.",
        "Per il tiro 14 è REPAIR_BEFORE_USE: cambiamo la puleggia prima della prova.",
        "Voor trek 14 is het REPAIR_BEFORE_USE: we vervangen de katrol voor de repetitie.",
        "REPAIR_BEFORE_USE is for now the right call.",
    ],
)
def test_the_band_given_plainly_still_counts(answer: str) -> None:
    outcome, reason = label(answer, "REPAIR_BEFORE_USE", RIGGING)
    assert outcome is P, reason
