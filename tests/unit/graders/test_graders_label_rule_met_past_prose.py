"""A band's rule met by the case names the band, in every language, also when the rule's
conditions hold a label's word in lower case ("PROBABLE applies when ... other causes are unlikely
..., which is exactly the case with PV-2025-0417"): the word is prose, not the label. The rule
alone names no band, and its lower-case word names none either."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
F = CheckOutcome.FAIL
WHO = ["CERTAIN", "PROBABLE", "POSSIBLE", "UNLIKELY", "UNASSESSABLE"]


@pytest.mark.parametrize(
    ("answer", "labels", "expected"),
    [
        (
            "PROBABLE applies when the timing fits, other causes are unlikely and the reaction settles on"
            " withdrawal, which is exactly the case with PV-2025-0417.",
            WHO,
            "PROBABLE",
        ),
        (
            "PROBABLE s'applique quand le délai concorde et qu'une autre cause reste possible mais peu"
            " vraisemblable, ce qui est exactement le cas ici.",
            WHO,
            "PROBABLE",
        ),
        (
            "HOCH gilt, wenn der Anstieg zeitlich passt und das Risiko anderer Ursachen niedrig ist, und"
            " genau das ist hier der Fall.",
            ["HOCH", "NIEDRIG"],
            "HOCH",
        ),
        (
            "ALTO aplica-se quando a cronologia bate certo e o risco de outras causas é baixo, e é exatamente"
            " o caso aqui.",
            ["ALTO", "BAIXO"],
            "ALTO",
        ),
        (
            "ALTO si applica quando la cronologia torna e il rischio di altre cause è basso, ed è esattamente"
            " il caso qui.",
            ["ALTO", "BASSO"],
            "ALTO",
        ),
        (
            "HOOG geldt wanneer de tijdlijn klopt en het risico op andere oorzaken laag is, en dat is hier"
            " precies het geval.",
            ["HOOG", "LAAG"],
            "HOOG",
        ),
        (
            "PROBABLE applies when other causes are unlikely. Here another cause is possible, so POSSIBLE.",
            WHO,
            "POSSIBLE",
        ),
    ],
)
def test_a_rule_met_names_its_band_past_a_prose_word(answer: str, labels: list[str], expected: str) -> None:
    outcome, reason = label(answer, expected, labels)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("PROBABLE applies when the timing fits and other causes are unlikely.", "UNLIKELY"),
        ("PROBABLE applies when the timing fits and other causes are unlikely.", "PROBABLE"),
        (
            "Selon les critères, PROBABLE s'applique quand le délai concorde et qu'une autre cause reste"
            " possible.",
            "POSSIBLE",
        ),
    ],
)
def test_a_rule_alone_names_no_band_nor_its_prose_word(answer: str, expected: str) -> None:
    outcome, reason = label(answer, expected, WHO)
    assert outcome is F, reason
