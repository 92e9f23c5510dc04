"""A future is no verdict of the state now (issue 25), in all seven languages.

"Wird HIGH." (German: becomes, will be HIGH) and "Wordt HIGH." were read as the present verdict
HIGH, as were "Sarà HIGH", "Será HIGH", "Sera HIGH" and "Will be HIGH". Each beside its present
twin, which names HIGH, and the German and Dutch present passive ("wird als HIGH eingestuft": is
classed as HIGH), which names it too.
"""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

FUTURE = [
    ("en", "Will be HIGH."),
    ("en", "The consumption will be HIGH."),
    ("en", "It's going to be HIGH."),
    ("en", "It'll be in the HIGH band."),
    ("de", "Wird HIGH."),
    ("de", "Der Verbrauch wird HIGH."),
    ("de", "Der Verbrauch wird HIGH sein."),
    ("nl", "Wordt HIGH."),
    ("nl", "Het verbruik wordt HIGH."),
    ("it", "Sarà HIGH."),
    ("it", "Il consumo sarà HIGH."),
    ("es", "Será HIGH."),
    ("es", "El consumo va a ser HIGH."),
    ("pt", "Será HIGH."),
    ("pt", "O consumo vai ser HIGH."),
    ("fr", "Sera HIGH."),
    ("fr", "Ce sera HIGH."),
    ("fr", "La consommation va être HIGH."),
]

PRESENT = [
    ("en", "It is HIGH."),
    ("en", "It is HIGH and will be reported."),
    ("en", "The band will be reviewed; today it is HIGH."),
    ("de", "Ist HIGH."),
    ("de", "Der Verbrauch wird als HIGH eingestuft."),
    ("de", "Der Verbrauch wird heute mit HIGH bewertet."),
    ("nl", "Het verbruik is HIGH."),
    ("nl", "Het verbruik wordt als HIGH beschouwd."),
    ("it", "Il consumo è HIGH."),
    ("es", "El consumo es HIGH."),
    ("pt", "O consumo é HIGH."),
    ("fr", "C'est HIGH."),
]


@pytest.mark.parametrize(("lang", "answer"), FUTURE)
def test_a_future_band_is_not_the_verdict(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "HIGH")
    assert outcome is CheckOutcome.FAIL, (lang, reason)
    assert "hypothetical: HIGH" in reason


@pytest.mark.parametrize(("lang", "answer"), PRESENT)
def test_the_present_band_is_the_verdict(lang: str, answer: str) -> None:
    outcome, reason = label(answer, "HIGH")
    assert outcome is CheckOutcome.PASS, (lang, reason)
