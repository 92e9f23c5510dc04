"""A table's marking cell that opens with a word of "yes" and goes on with a note (``ja (4,5 %)``,
``sí, 4,5 %``) marks its row, in every language: two rows marked name two labels (fail), one
row marked among rows of "no" names its label (pass)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

DUTY = ["STANDARD_RATE", "ANTI_DUMPING_DUTY", "EXEMPT"]
#: (header, yes, no) as each language writes them
HEADS = [
    ("| Rate | Applies |", "yes (4.5 %)", "no"),
    ("| Taux | Applicable |", "oui (4,5 %)", "non"),
    ("| Satz | Zutreffend |", "ja (4,5 %)", "nein"),
    ("| Tipo | Aplica |", "sí, 4,5 %", "no"),
    ("| Taxa | Aplica-se |", "sim \u2013 4,5 %", "não"),
    ("| Aliquota | Si applica |", "sì (4,5 %)", "no"),
    ("| Tarief | Van toepassing |", "ja (4,5 %)", "nee"),
]


def _table(head: str, marks: tuple[str, str, str]) -> str:
    rows = "\n".join(f"| {lab} | {m} |" for lab, m in zip(DUTY, marks, strict=True))
    return f"{head}\n|---|---|\n{rows}"


@pytest.mark.parametrize(("head", "yes", "no"), HEADS)
def test_two_rows_marked_yes_with_a_note_name_two_labels(head: str, yes: str, no: str) -> None:
    outcome, reason = label(_table(head, (yes, yes.replace("4", "31"), no)), "STANDARD_RATE", DUTY)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(("head", "yes", "no"), HEADS)
def test_one_row_marked_yes_with_a_note_names_its_label(head: str, yes: str, no: str) -> None:
    outcome, reason = label(_table(head, (no, yes, no)), "ANTI_DUMPING_DUTY", DUTY)
    assert outcome is CheckOutcome.PASS, reason
