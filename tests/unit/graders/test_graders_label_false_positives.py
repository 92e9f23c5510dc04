"""Another source's band rejected as a false positive, after a contrast (``the report gives X,
but it's a false positive``) or with the source between the band and the rejection (``Le X du
rapport automatique est un faux positif``), is taken back by the band the answer then gives, in
every language. Twins: a rejection negated (``ce n'est pas un faux positif``) leaves both named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

LIFT = ["PASS_INSPECTION", "MINOR_DEFECTS", "TAKE_OUT_OF_SERVICE"]


@pytest.mark.parametrize(
    "answer",
    [
        "The self-check printout says PASS_INSPECTION, but that's a false positive: the car stops 14 mm"
        " short of the landing. MINOR_DEFECTS.",
        "Le PASS_INSPECTION de l'autodiagnostic est un faux positif : la cabine s'arrête 14 mm sous le"
        " palier. MINOR_DEFECTS.",
        "Die Selbstdiagnose zeigt PASS_INSPECTION, aber das ist ein Fehlalarm: die Kabine hält 14 mm zu"
        " tief. MINOR_DEFECTS.",
        "El autodiagnóstico da PASS_INSPECTION, pero es un falso positivo: la cabina queda 14 mm por"
        " debajo del rellano. MINOR_DEFECTS.",
        "O PASS_INSPECTION do autodiagnóstico é um falso positivo: a cabina para 14 mm abaixo do"
        " patamar. MINOR_DEFECTS.",
        "L'autodiagnosi segna PASS_INSPECTION, ma è un falso positivo: la cabina si ferma 14 mm sotto il"
        " piano. MINOR_DEFECTS.",
        "De zelftest geeft PASS_INSPECTION, maar dat is vals alarm: de kooi stopt 14 mm onder de"
        " vloer. MINOR_DEFECTS.",
    ],
)
def test_a_sources_band_rejected_as_a_false_positive_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "MINOR_DEFECTS", LIFT)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The door sensor reads PASS_INSPECTION, and it isn't a false positive. MINOR_DEFECTS.",
        "L'autodiagnostic donne PASS_INSPECTION, et ce n'est pas un faux positif. MINOR_DEFECTS.",
        "Die Selbstdiagnose zeigt PASS_INSPECTION, und das ist kein Fehlalarm. MINOR_DEFECTS.",
        "El autodiagnóstico da PASS_INSPECTION, y no es un falso positivo. MINOR_DEFECTS.",
        "O autodiagnóstico dá PASS_INSPECTION, e não é um falso positivo. MINOR_DEFECTS.",
        "L'autodiagnosi segna PASS_INSPECTION, e non è un falso positivo. MINOR_DEFECTS.",
        "De zelftest geeft PASS_INSPECTION, en dat is geen vals alarm. MINOR_DEFECTS.",
    ],
)
def test_a_false_positive_denied_leaves_both_named(answer: str) -> None:
    outcome, reason = label(answer, "MINOR_DEFECTS", LIFT)
    assert outcome is CheckOutcome.FAIL, reason
