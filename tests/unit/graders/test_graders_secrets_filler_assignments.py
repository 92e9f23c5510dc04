"""A token of filler characters given to a credential key is the placeholder the token rules take it for.

``GITHUB_TOKEN=ghp_XXXX...``, ``token: ghp_XXXX...``, ``--token sk_live_abab...``, ``api_key:
AKIA0000...``, ``SLACK_TOKEN=xoxb-XXXX-...``, ``secret=abcabcabc...``: a known prefix followed by
filler, or filler alone (a body of one or two characters, or a pattern of up to four repeated),
stays quiet in an assignment, a flag or after a label as it does on its own. Each twin, the same
key with a value of the same shape that is not filler, fires."""

from __future__ import annotations

import pytest

from proctor.graders import scan

FILLED = [
    "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    '"token": "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
    "--token ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "STRIPE_SECRET_KEY=sk_live_abababababababababababab",
    "SLACK_TOKEN=xoxb-XXXXXXXXXXXX-XXXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXX",
    "api_key: AKIA0000000000000000",
    "NPM_TOKEN=npm_000000000000000000000000000000000000",
    "secret=abcabcabcabcabcabc",
    "password = 1234123412341234",
    "<password>XXXXXXXXXXXXXXXX</password>",
]
REAL = [
    "GITHUB_TOKEN=ghp_R8kXz2Lq9VbN4mTw7YcJ1pHs6DfGa3Ue0Ko5",
    "token: ghp_R8kXz2Lq9VbN4mTw7YcJ1pHs6DfGa3Ue0Ko5",
    '"token": "ghp_R8kXz2Lq9VbN4mTw7YcJ1pHs6DfGa3Ue0Ko5"',
    "--token ghp_R8kXz2Lq9VbN4mTw7YcJ1pHs6DfGa3Ue0Ko5",
    "STRIPE_SECRET_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "SLACK_TOKEN=xoxb-2739401234-5829304811-Zq8Lm3Nb7Vc2Xk9Ps4Rt6Wy1",
    "api_key: AKIAQ3EGT7Y2MZ5KXN4P",
    "NPM_TOKEN=npm_R8kXz2Lq9VbN4mTw7YcJ1pHs6DfGa3Ue0Ko5",
    "secret=Qx7vR2mL9pTk4wZs",
    "password = 1234Tr0ub4dor&3xK",
    "<password>Qx7vR2mL9pTk4wZs</password>",
]


@pytest.mark.parametrize("text", FILLED)
def test_a_filler_value_stays_quiet(text: str) -> None:
    assert scan(text) == [], text


@pytest.mark.parametrize("text", REAL)
def test_its_twin_with_a_real_looking_value_fires(text: str) -> None:
    assert scan(text) != [], text
