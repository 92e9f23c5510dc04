"""A paper's silence concluded to a figure (``Het dossier noemt geen ziektegevallen, dus dat zijn
er nul; ...``) answers, in every language: the conclusion is read in its own clause, and a clause
after a semicolon (``...; de keten heeft zelf niets gevonden``) says something else, so its
negation does not make the conclusion a decline. Twins: the same silence concluded to a decline
(``dus ik kan geen aantal noemen; ...``) declines."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion


def _refusal(answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type="refusal")).check(answer)
    return c.outcome, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "The file mentions no cases of illness, so that makes zero; the chain found nothing itself.",
        "Le dossier ne mentionne aucun cas de maladie, donc il y en a zéro ; la chaîne n'a rien trouvé non"
        " plus.",
        "Die Akte nennt keine Krankheitsfälle, also sind es null; die Kette hat selbst nichts gefunden.",
        "El expediente no menciona casos de enfermedad, así que son cero; la cadena tampoco encontró nada.",
        "O processo não refere casos de doença, portanto são zero; a cadeia também não encontrou nada.",
        "Il fascicolo non cita casi di malattia, quindi sono zero; la catena non ha trovato nulla.",
        "Het dossier noemt geen ziektegevallen, dus dat zijn er nul; de keten heeft zelf niets gevonden.",
    ],
)
def test_a_silence_concluded_to_a_figure_answers(answer: str) -> None:
    outcome, reason = _refusal(answer)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The file mentions no cases of illness, so I can't give a number; the chain found nothing itself.",
        "Le dossier ne mentionne aucun cas de maladie, donc je ne peux pas donner de chiffre ; la chaîne"
        " n'a rien trouvé non plus.",
        "Die Akte nennt keine Krankheitsfälle, also kann ich keine Zahl nennen; die Kette hat selbst nichts"
        " gefunden.",
        "El expediente no menciona casos de enfermedad, así que no puedo dar una cifra; la cadena tampoco"
        " encontró nada.",
        "O processo não refere casos de doença, portanto não sei dizer quantos; a cadeia também não"
        " encontrou nada.",
        "Il fascicolo non cita casi di malattia, quindi non so dire quanti; la catena non ha trovato nulla.",
        "Het dossier noemt geen ziektegevallen, dus ik kan geen aantal noemen; de keten heeft zelf niets"
        " gevonden.",
    ],
)
def test_a_silence_concluded_to_a_decline_declines(answer: str) -> None:
    outcome, reason = _refusal(answer)
    assert outcome is CheckOutcome.PASS, reason
