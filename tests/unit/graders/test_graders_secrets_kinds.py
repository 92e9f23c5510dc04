"""Every kind of secret the scan names is found where it stands, whole, and never shown in full.

test_graders_scan.py covers the common kinds in ordinary sentences; these are the rest of the
rules (detect-secrets' plugins and our own), each with a value of the provider's documented shape.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan

BODY = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"  # upper, lower and digits, like a real key

SECRETS = [
    ("slack-webhook", "https://hooks.slack.com/services/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"),
    ("sendgrid-api-key", "SG." + BODY[:22] + "." + (BODY * 2)[:43]),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + BODY * 2),
    ("square-oauth-secret", "sq0csp-" + (BODY * 2)[:43]),
    ("azure-storage-key", "AccountKey=" + (BODY + "+/") * 2 + BODY[:4] + "=="),  # 88 characters
    ("discord-bot-token", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"),
    ("telegram-bot-token", "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawX"),
    ("mailchimp-api-key", "0123456789abcdef0123456789abcdef-us12"),
    ("twilio-api-key", "AC0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
    ("twilio-api-key", "SK0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
    ("anthropic-api-key", "sk-ant-api03-" + BODY + "_-Ab1Cd2"),
    ("github-token", "github_pat_11ABCDEFG0" + BODY + "_" + BODY),
    ("openai-api-key", "sk-" + BODY[:20] + "T3BlbkFJ" + BODY[:20]),  # the legacy shape
    ("openai-api-key", "sk-svcacct-" + BODY),
    ("google-api-key", "AIza" + BODY[:35]),
    ("gitlab-token", "glpat-" + BODY[:20]),
    ("gitlab-token", "glptt-" + (BODY * 2)[:40]),
    ("aws-access-key", "ASIA" + "IOSFODNN7EXAMPLE"),
    ("stripe-key", "rk_live_" + BODY[:24]),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SECRETS)])
@pytest.mark.parametrize("sentence", ["Use {} for the export.", "{}", "token:\n  {}\n"])
def test_each_kind_is_found_whole_where_it_stands(kind: str, secret: str, sentence: str) -> None:
    answer = sentence.format(secret)
    findings = scan(answer)
    assert [f.kind for f in findings] == [kind], answer
    [f] = findings
    assert answer[f.start : f.end] == secret
    assert secret not in f.redacted and secret not in f.describe()


def test_an_npm_token_line_is_found_and_redacted() -> None:
    token = "npm_" + BODY
    answer = f".npmrc:\n//registry.npmjs.org/:_authToken={token}\nalways-auth=true"
    [f] = scan(answer)
    assert f.kind == "npm-token"
    assert token in answer[f.start : f.end] and token not in f.redacted
