"""A band the answer reports as a rule, "X applies when ..." (``s'applique quand``, ``gilt X,
wenn``, ``se aplica cuando``, ``aplica-se quando``, ``si applica quando``, ``geldt X als alle``),
is not its verdict: with no other band, the answer names none (fail), in every language. Twins:
the rule then applied to the case names the band (pass), and so does a source's band given for the
case (``Per the runbook, X``) and Dutch ``geldt X als eindoordeel`` (X counts as the verdict)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

AUDIT = ["PASS", "CONDITIONAL", "FAIL"]


@pytest.mark.parametrize(
    "answer",
    [
        "The scheme says CONDITIONAL applies when every defect can be fixed within 30 days. Stop 19"
        " needs a new ramp and nobody has a date yet.",
        "D'après le barème, CONDITIONAL s'applique quand tous les défauts se corrigent sous 30 jours."
        " Pour l'arrêt 19, personne n'a de date.",
        "Laut Regelwerk gilt CONDITIONAL, wenn alle Mängel binnen 30 Tagen behoben werden können. Für"
        " Halt 19 gibt es noch keinen Termin.",
        "Según la norma, CONDITIONAL se aplica cuando todos los defectos pueden corregirse en 30 días."
        " Para la parada 19 nadie tiene fecha.",
        "Pelo regulamento, CONDITIONAL aplica-se quando todos os defeitos se corrigem em 30 dias. Para"
        " a paragem 19 ninguém tem data.",
        "Da regolamento, CONDITIONAL si applica quando tutti i difetti si sistemano entro 30 giorni."
        " Per la fermata 19 nessuno ha una data.",
        "Volgens de regeling geldt CONDITIONAL als alle gebreken binnen 30 dagen te verhelpen zijn."
        " Voor halte 19 heeft niemand een datum.",
    ],
)
def test_a_band_reported_as_when_it_applies_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "CONDITIONAL", AUDIT)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The scheme says CONDITIONAL applies when every defect can be fixed within 30 days, and that"
        " is the case here: CONDITIONAL.",
        "D'après le barème, CONDITIONAL s'applique quand tout se corrige sous 30 jours ; c'est le cas"
        " ici : CONDITIONAL.",
        "Laut Regelwerk gilt CONDITIONAL, wenn alles binnen 30 Tagen behoben werden kann. Das ist hier"
        " so: CONDITIONAL.",
        "Según la norma, CONDITIONAL se aplica cuando todo puede corregirse en 30 días, y es el caso:"
        " CONDITIONAL.",
        "Pelo regulamento, CONDITIONAL aplica-se quando tudo se corrige em 30 dias, e é o caso: CONDITIONAL.",
        "Da regolamento, CONDITIONAL si applica quando tutto si sistema entro 30 giorni, ed è il caso:"
        " CONDITIONAL.",
        "Voor halte 19 geldt CONDITIONAL als eindoordeel.",
        "Per the audit scheme, CONDITIONAL.",
    ],
)
def test_a_band_applied_to_the_case_is_named(answer: str) -> None:
    outcome, reason = label(answer, "CONDITIONAL", AUDIT)
    assert outcome is CheckOutcome.PASS, reason
