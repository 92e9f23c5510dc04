"""A band denied by a negated verb of justifying (``Ein CANCEL ist bei dieser Vorhersage nicht
gerechtfertigt``, ``is niet gerechtvaardigd``), one justified only beyond a threshold in the
conditional (``Un CANCEL ne se justifierait qu'au-delà de 3,0 m``, ``solo se justificaría por
encima de``), and one joined to a denied band by an additive negation (``en X ook niet``, ``und X
auch nicht``, ``e neanche X``, "and so is X" after "off the table") is not the verdict, in every
language. Twins: the band justified plainly, and one set against the denied band by a contrast
(``mais X oui``), are named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

FERRY = ["SAIL", "SAIL_RESTRICTED", "DELAY", "CANCEL"]


@pytest.mark.parametrize(
    "answer",
    [
        "DELAY. A CANCEL isn't justified by this forecast.",
        "DELAY. Un CANCEL ne se justifie pas avec ces prévisions.",
        "DELAY. Ein CANCEL ist bei dieser Vorhersage nicht gerechtfertigt.",
        "DELAY. Un CANCEL no se justifica con esta previsión.",
        "DELAY. Um CANCEL não se justifica com esta previsão.",
        "DELAY. Un CANCEL non si giustifica con queste previsioni.",
        "DELAY. Een CANCEL is met deze voorspelling niet gerechtvaardigd.",
        "DELAY. A CANCEL would only be justified above 3.0 m of swell.",
        "DELAY. Un CANCEL ne se justifierait qu'au-delà de 3,0 m de houle.",
        "DELAY. Ein CANCEL wäre erst ab 3,0 m Welle gerechtfertigt.",
        "DELAY. Un CANCEL solo se justificaría por encima de 3,0 m de ola.",
        "DELAY. Um CANCEL só se justificaria acima de 3,0 m de ondulação.",
        "DELAY. Un CANCEL si giustificherebbe solo oltre 3,0 m di onda.",
        "DELAY. Een CANCEL zou pas boven 3,0 m deining gerechtvaardigd zijn.",
    ],
)
def test_a_band_not_justified_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "DELAY", FERRY)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "DELAY. A CANCEL is justified by this forecast.",
        "DELAY. Un CANCEL se justifie avec ces prévisions.",
        "DELAY. Ein CANCEL ist bei dieser Vorhersage gerechtfertigt.",
        "DELAY. Un CANCEL se justifica con esta previsión.",
        "DELAY. Um CANCEL justifica-se com esta previsão.",
        "DELAY. Un CANCEL si giustifica con queste previsioni.",
        "DELAY. Een CANCEL is met deze voorspelling gerechtvaardigd.",
    ],
)
def test_a_band_justified_is_named(answer: str) -> None:
    outcome, reason = label(answer, "DELAY", FERRY)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "SAIL is off the table, and so is SAIL_RESTRICTED. So: DELAY.",
        "Pas de SAIL, et SAIL_RESTRICTED non plus. Donc : DELAY.",
        "SAIL kommt nicht in Frage, und SAIL_RESTRICTED auch nicht. Also: DELAY.",
        "No es SAIL, y SAIL_RESTRICTED tampoco. Así que DELAY.",
        "Não é SAIL, e SAIL_RESTRICTED também não. Portanto, DELAY.",
        "Non è SAIL, e SAIL_RESTRICTED nemmeno. Quindi DELAY.",
        "Geen SAIL, en SAIL_RESTRICTED ook niet. Dus: DELAY.",
    ],
)
def test_a_band_denied_too_is_not_named(answer: str) -> None:
    outcome, reason = label(answer, "DELAY", FERRY)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "SAIL is off the table, but SAIL_RESTRICTED is fine.",
        "Ce n'est pas SAIL, mais SAIL_RESTRICTED oui.",
        "SAIL kommt nicht in Frage, SAIL_RESTRICTED aber schon.",
        "No es SAIL, pero SAIL_RESTRICTED sí.",
        "Não é SAIL, mas SAIL_RESTRICTED sim.",
        "Non è SAIL, ma SAIL_RESTRICTED sì.",
        "Geen SAIL, maar SAIL_RESTRICTED wel.",
    ],
)
def test_a_band_set_against_a_denied_one_is_named(answer: str) -> None:
    outcome, reason = label(answer, "SAIL_RESTRICTED", FERRY)
    assert outcome is CheckOutcome.PASS, reason


def test_and_so_is_after_a_denied_band_denies_the_next() -> None:
    outcome, reason = label(
        "NO_GO is off the table, and so is a clean GO; it's GO_WITH_RISK.",
        "GO_WITH_RISK",
        ["GO", "GO_WITH_RISK", "NO_GO"],
    )
    assert outcome is CheckOutcome.PASS, reason
