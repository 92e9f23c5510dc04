"""A self-revision to a second band under a caveat ("if you take the chlorine seriously", "wenn
man ... ernst nimmt", "si on tient compte de") still names it: a caveat is no condition on the
facts, so two bands are named (fail), in every language. Twins: a real condition, one that sets a
threshold, keeps the second band hypothetical (pass)."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

POOL = ["SAFE", "SAFE_WITH_MONITORING", "ADJUST", "CLOSE_POOL"]


@pytest.mark.parametrize(
    "answer",
    [
        "ADJUST. Actually, CLOSE_POOL, if you take the combined chlorine seriously.",
        "ADJUST. En fait plutôt CLOSE_POOL, si on tient compte du chlore combiné.",
        "ADJUST. Eigentlich eher CLOSE_POOL, wenn man das gebundene Chlor ernst nimmt.",
        "ADJUST. Pensándolo mejor, CLOSE_POOL, si tomamos en serio el cloro combinado.",
        "ADJUST. Aliás, melhor CLOSE_POOL, se levarmos a sério o cloro combinado.",
        "ADJUST. Anzi, direi CLOSE_POOL, se si tiene conto del cloro combinato.",
        "ADJUST. Eigenlijk toch CLOSE_POOL, als je het gebonden chloor serieus neemt.",
    ],
)
def test_a_revision_under_a_caveat_names_both_bands(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST", POOL)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "ADJUST. If the combined chlorine rises above 0.6 mg/l, it's CLOSE_POOL.",
        "ADJUST. Si le chlore combiné dépasse 0,6 mg/l, c'est CLOSE_POOL.",
        "ADJUST. Wenn das gebundene Chlor über 0,6 mg/l steigt, ist es CLOSE_POOL.",
        "ADJUST. Si el cloro combinado supera 0,6 mg/l, es CLOSE_POOL.",
        "ADJUST. Se o cloro combinado passar de 0,6 mg/l, é CLOSE_POOL.",
        "ADJUST. Se il cloro combinato supera 0,6 mg/l, è CLOSE_POOL.",
        "ADJUST. Als het gebonden chloor boven 0,6 mg/l komt, is het CLOSE_POOL.",
        "ADJUST. CLOSE_POOL only if the combined chlorine goes above 0.6 mg/l.",
    ],
)
def test_a_band_under_a_threshold_stays_hypothetical(answer: str) -> None:
    outcome, reason = label(answer, "ADJUST", POOL)
    assert outcome is CheckOutcome.PASS, reason
