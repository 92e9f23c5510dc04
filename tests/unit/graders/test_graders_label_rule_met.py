"""A band's rule then applied to the case names the band (``O X aplica-se quando ... - e é
exatamente o caso do T7``, ``which is exactly the case with tank 7``), in every language. Twins: a
rule the case does not meet (``mas não é o caso``) names none."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
F = CheckOutcome.FAIL
CELLAR = ["BOTTLE", "ADJUST_SO2", "HOLD_TANK", "DISCARD"]


@pytest.mark.parametrize(
    "answer",
    [
        "ADJUST_SO2 applies when VA is below 0.60 and free SO2 below target, which is exactly the case"
        " with tank 7.",
        "ADJUST_SO2 s'applique quand l'AV est sous 0,60 et le SO2 libre sous la cible - et c'est"
        " exactement le cas de la T7.",
        "ADJUST_SO2 gilt, wenn die FS unter 0,60 und das freie SO2 unter dem Ziel liegt \u2013 und genau das"
        " ist bei T7 der Fall.",
        "ADJUST_SO2 se aplica cuando la AV está por debajo de 0,60 y el SO2 libre por debajo del"
        " objetivo - y es exactamente el caso del T7.",
        "O ADJUST_SO2 aplica-se quando a AV está abaixo de 0,60 e o SO2 livre abaixo do alvo - e é"
        " exatamente o caso do T7.",
        "ADJUST_SO2 si applica quando l'AV è sotto 0,60 e la SO2 libera sotto l'obiettivo - ed è"
        " esattamente il caso del T7.",
        "ADJUST_SO2 geldt wanneer de VZ onder 0,60 zit en het vrije SO2 onder het doel. Dat is precies het"
        " geval bij T7.",
    ],
)
def test_a_rule_applied_to_the_case_names_its_band(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST_SO2", CELLAR)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "ADJUST_SO2 applies when VA is below 0.60 and free SO2 below target - but that is not the case"
        " with tank 7.",
        "ADJUST_SO2 s'applique quand l'AV est sous 0,60 - mais ce n'est pas le cas de la T7.",
        "ADJUST_SO2 gilt, wenn die FS unter 0,60 liegt \u2013 das ist bei T7 aber nicht der Fall.",
        "ADJUST_SO2 se aplica cuando la AV está por debajo de 0,60 - pero no es el caso del T7.",
        "O ADJUST_SO2 aplica-se quando a AV está abaixo de 0,60 - mas não é o caso do T7.",
        "ADJUST_SO2 si applica quando l'AV è sotto 0,60 - ma non è il caso del T7.",
        "ADJUST_SO2 geldt wanneer de VZ onder 0,60 zit. Dat is bij T7 niet het geval.",
    ],
)
def test_a_rule_the_case_does_not_meet_names_none(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST_SO2", CELLAR)
    assert outcome is F, reason
