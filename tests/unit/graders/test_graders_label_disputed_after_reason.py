"""Another source's band, then a contrast with a reason and a judgement that it is wrong, is not
named, in every language: "Le partenaire l'a classé X, mais sans réintroduction c'est une erreur
à mon avis", "l'ha registrato come X, ma senza rechallenge non sta in piedi". The source's band
confirmed after the same words of contrast or a reason is named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
WHO = ["CERTAIN", "PROBABLE", "POSSIBLE", "UNLIKELY", "UNASSESSABLE"]


@pytest.mark.parametrize(
    "answer",
    [
        "The Spanish partner logged it as CERTAIN, but without a rechallenge that doesn't hold up. PROBABLE.",
        "Le partenaire espagnol l'a classé CERTAIN, mais sans réintroduction c'est une erreur à mon avis."
        " Je retiens PROBABLE.",
        "Das Labor hat CERTAIN angegeben, aber ohne Reexposition hält das nicht. PROBABLE.",
        "Der spanische Partner hat CERTAIN gemeldet, aber ohne Reexposition ist das falsch. Ich bleibe bei"
        " PROBABLE.",
        "El socio español lo registró como CERTAIN, pero sin reexposición no se sostiene. Me quedo con"
        " PROBABLE.",
        "O parceiro espanhol registou-o como CERTAIN, mas sem reexposição isso não se sustenta. Fico-me por"
        " PROBABLE.",
        "Esito: PROBABLE.\n\nNota: il partner spagnolo l'ha registrato come CERTAIN, ma senza rechallenge"
        " non sta in piedi.",
        "De Spaanse partner heeft het als CERTAIN gemeld, maar zonder herintroductie klopt dat niet. Ik houd"
        " het op PROBABLE.",
        "Het lab gaf CERTAIN, maar zonder herintroductie houdt dat geen stand. PROBABLE.",
    ],
)
def test_a_source_band_judged_wrong_after_a_reason_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "PROBABLE", WHO)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "The Spanish partner logged it as CERTAIN, but with the rechallenge we agree.",
        "Le partenaire espagnol l'a classé CERTAIN, et la réintroduction positive le confirme.",
        "Der spanische Partner hat CERTAIN gemeldet, aber ohne Reexposition ist das Datum falsch.",
        "El socio español lo registró como CERTAIN, y la reexposición lo confirma.",
        "O parceiro espanhol registou-o como CERTAIN, e a reexposição confirma-o.",
        "Il partner spagnolo l'ha registrato come CERTAIN, ma senza rechallenge lo confermiamo comunque.",
        "De Spaanse partner heeft het als CERTAIN gemeld, en de herintroductie bevestigt dat.",
    ],
)
def test_a_source_band_confirmed_is_named(answer: str) -> None:
    outcome, reason = label(answer, "CERTAIN", WHO)
    assert outcome is P, reason
