"""A label defined in capitals, written in lower case in a negated clause where the answer names
a label in capitals, is a word of the prose even when said of the case ("- [x] MINOR_EXCEEDANCE
... I don't think the missed sample tips it into a reporting failure"), in every language; a
negation in the clause before a "that" clause governs it (``Ich glaube nicht, dass es ... kritisch
wird``). Twins: the same clause not negated names the label, and the answer fails as naming two."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

EXCEEDANCE = ["MINOR_EXCEEDANCE", "MAJOR_EXCEEDANCE", "REPORTING_FAILURE"]


@pytest.mark.parametrize(
    ("answer", "labels"),
    [
        (
            "- [x] MINOR_EXCEEDANCE (12 % over the daily limit)\n- [ ] MAJOR_EXCEEDANCE\nI don't think the"
            " missed sample tips it into a reporting failure.",
            EXCEEDANCE,
        ),
        ("- [x] STABLE\nCe n'est pas un cas urgent, à mon avis.", ["STABLE", "CRITIQUE", "URGENT"]),
        (
            "- [x] NORMAL\nIch glaube nicht, dass es durch den fehlenden Wert kritisch wird.",
            ["NORMAL", "KRITISCH"],
        ),
        ("- [x] NORMAL\nNo creo que esto sea un caso grave.", ["NORMAL", "URGENTE", "GRAVE"]),
        ("- [x] NORMAL\nNão acho que isso seja um caso grave.", ["NORMAL", "URGENTE", "GRAVE"]),
        ("- [x] NORMALE\nNon credo che questo sia un caso grave.", ["NORMALE", "URGENTE", "GRAVE"]),
        (
            "- [x] NORMAAL\nIk denk niet dat het ontbrekende monster er een ernstig geval van maakt.",
            ["NORMAAL", "ERNSTIG", "KRITIEK"],
        ),
    ],
)
def test_a_lower_case_label_in_a_negated_clause_is_prose(answer: str, labels: list[str]) -> None:
    outcome, reason = label(answer, labels[0], labels)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    ("answer", "labels"),
    [
        (
            "- [x] MINOR_EXCEEDANCE\n- [ ] MAJOR_EXCEEDANCE\nI think the missed sample tips it into a"
            " reporting failure.",
            EXCEEDANCE,
        ),
        ("- [x] STABLE\nC'est un cas urgent, à mon avis.", ["STABLE", "CRITIQUE", "URGENT"]),
        (
            "- [x] NORMAL\nIch glaube, dass es durch den fehlenden Wert kritisch wird.",
            ["NORMAL", "KRITISCH"],
        ),
        ("- [x] NORMAL\nCreo que esto es un caso grave.", ["NORMAL", "URGENTE", "GRAVE"]),
        ("- [x] NORMAL\nAcho que isso é um caso grave.", ["NORMAL", "URGENTE", "GRAVE"]),
        ("- [x] NORMALE\nCredo che questo sia un caso grave.", ["NORMALE", "URGENTE", "GRAVE"]),
        (
            "- [x] NORMAAL\nIk denk dat het ontbrekende monster er een ernstig geval van maakt.",
            ["NORMAAL", "ERNSTIG", "KRITIEK"],
        ),
    ],
)
def test_the_same_words_said_of_the_case_name_it(answer: str, labels: list[str]) -> None:
    outcome, reason = label(answer, labels[0], labels)
    assert outcome is CheckOutcome.FAIL, reason
