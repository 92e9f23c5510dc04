"""A change to a band denied (``niente declassamento a P2``, "no downgrade to P2", ``keine
Herabstufung auf P2``, ``geen afschaling naar P2``) is not where the band went, in every language:
the band before it stands and the denied one is not named. Twins: the change made names where it
went, and the band before it is past."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

PRIORITY = ["P1", "P2", "P3"]


@pytest.mark.parametrize(
    "answer",
    [
        "P1. The WAF rule doesn't cover the portal, so no downgrade to P2.",
        "P1. La règle WAF ne couvre pas le portail, donc pas de déclassement en P2.",
        "P1. Die WAF-Regel deckt das Portal nicht ab, also keine Herabstufung auf P2.",
        "P1. La regla WAF no cubre el portal, así que nada de rebajar a P2.",
        "P1. A regra WAF não cobre o portal, portanto nada de baixar para P2.",
        "P1. La regola WAF non copre il portale, quindi niente declassamento a P2.",
        "P1. De WAF-regel dekt het portaal niet, dus geen afschaling naar P2.",
    ],
)
def test_a_change_denied_leaves_the_band_before_it(answer: str) -> None:
    outcome, reason = label(answer, "P1", PRIORITY)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "P1 before. The WAF rule covers the portal, so a downgrade to P2.",
        "P1 avant. La règle WAF couvre le portail, donc on est descendu en P2.",
        "Bisher P1. Die WAF-Regel deckt das Portal ab, also Herabstufung auf P2.",
        "Antes P1. La regla WAF cubre el portal, así que bajamos a P2.",
        "Antes P1. A regra WAF cobre o portal, portanto baixamos para P2.",
        "Prima P1. La regola WAF copre il portale, quindi declassamento a P2.",
        "Eerst P1. De WAF-regel dekt het portaal, dus verlaagd naar P2.",
    ],
)
def test_a_change_made_names_where_it_went(answer: str) -> None:
    outcome, reason = label(answer, "P2", PRIORITY)
    assert outcome is CheckOutcome.PASS, reason
