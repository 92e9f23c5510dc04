"""An answer of Markdown alone (a band struck through, the verdict in bold) and a short aside in
brackets is read in the aside's language, in every language: a short Dutch aside the detector
ranks as Afrikaans first, Dutch close behind, with every word Dutch, is Dutch (as Galician is for
Portuguese). Twin: an aside in Afrikaans of its own stays unreadable (undetermined)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

DOOR = ["MINOR_REMEDIAL", "MAJOR_REMEDIAL", "REPLACE"]


@pytest.mark.parametrize(
    "aside",
    [
        "(revised after Duda's reply)",
        "(corrigé après la réponse de Duda)",
        "(nach Dudas Antwort korrigiert)",
        "(corregido tras la respuesta de Duda)",
        "(corrigido depois da resposta do Duda)",
        "(corretto dopo la risposta di Duda)",
        "(aangepast na het antwoord van Duda)",
        "(gewijzigd na overleg met Duda)",
    ],
)
def test_a_markdown_answer_with_a_short_aside_is_read(aside: str) -> None:
    outcome, reason = label(f"~~MINOR_REMEDIAL~~ **MAJOR_REMEDIAL** {aside}", "MAJOR_REMEDIAL", DOOR)
    assert outcome is CheckOutcome.PASS, reason


def test_an_afrikaans_aside_stays_unreadable() -> None:
    outcome, reason = label(
        "~~MINOR_REMEDIAL~~ **MAJOR_REMEDIAL** (aangepas nadat Duda geantwoord het)", "MAJOR_REMEDIAL", DOOR
    )
    assert outcome is CheckOutcome.UNDETERMINED, reason
