"""The rules' index (hints, long-token windows, keyword anchors) only saves time: every rule run on
the whole text finds the same secrets (in ASCII text: a few non-ASCII letters match ``[a-z]`` when a
pattern ignores case, and a long token does not hold them)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from proctor.graders._secrets import _rule_findings, _secret_engine, secret_findings

_FRAGMENTS = [
    "AKIAIOSFODNN7EXAMPLX",
    "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
    "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ",
    "0123456789abcdef0123456789abcdsk-us12",
    "AC1abcdefabcdefabcdefabcdefabcdefa",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "xoxb-123456789012-abcdefABCDEF",
    "sk_live_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
    "SG.Ab1Cd2Ef3Gh4Ij5Kl6Mn7O.Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T",
    "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp\n",
    "https://user:s3cr3tPw9@example.com",
    "password=s3cr3tXyz9",
    "--api-key Zx9Yw8Vu7Ts6",
    'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"',
    "AWS secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX",
    "secret",
    "token",
    "12345678",
    "x",
    "-",
    "_",
    ".",
    ":",
    "=",
    '"',
    " ",
    "\n",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=10))
def test_the_indexed_scan_finds_what_every_rule_finds_on_the_whole_text(parts: list[str]) -> None:
    text = "".join(parts)
    everywhere = {f for rule in _secret_engine().rules for f in _rule_findings(rule, text, 0, len(text))}
    assert set(secret_findings(text)) == everywhere
