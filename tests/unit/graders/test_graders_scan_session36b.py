"""Shapes of secrets and identifiers the scan's earlier rules misread (held-out set 26), each beside
the harmless twin that must keep the other verdict.

- A credential's keyword with a qualifier after it in an environment variable's name (the host,
  the environment or the instance it is for: ``TF_TOKEN_app_terraform_io``, ``VAULT_TOKEN_PROD``)
  still names the credential; a word after it naming another setting (``TOKEN_URL``,
  ``API_KEY_HEADER``, ``SECRET_ID``) does not.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


# --- 1. a credential's keyword with a qualifier after it -----------------------------------------

TOKEN = "Qm7xVt2KpL9wRz4NcY8b"
QUALIFIED = [
    "TF_TOKEN_app_terraform_io={v}",
    "export VAULT_TOKEN_PROD={v}",
    "STRIPE_API_KEY_LIVE={v}",
    "DB_PASSWORD_2={v}",
    "secret_staging: {v}",
    "GITLAB_TOKEN_gitlab_example_com={v}",
    "AZURE_ACCOUNT_KEY_BACKUP={v}",
]


@pytest.mark.parametrize("line", QUALIFIED)
def test_a_credential_keyword_with_a_qualifier_after_it_fires(line: str) -> None:
    text = line.format(v=TOKEN)
    assert found(text) == [("credential", TOKEN)], text


ATTRIBUTES = [
    "API_KEY_HEADER=X-Api-Key-V2",
    "TOKEN_URL=https://auth.example.com/oauth/token",
    "SECRET_ID=a1b2c3d4e5f6a7b8",
    "PASSWORD_FILE=/run/secrets/db",
    "VAULT_TOKEN_TTL=768h30m0s",
    "SECRET_ARN_PROD=arn:aws:secretsmanager:eu-west-1:123456789012:secret:db",
    "AUTH_CLIENT=Qm7xVt2KpL9wRz4NcY8b",  # ("auth" takes no qualifier: AUTH_MODE, AUTH_CLIENT...)
    "CREDENTIALS_PROFILE=deploy-prod-2024",
]


@pytest.mark.parametrize("line", ATTRIBUTES)
def test_a_word_naming_another_setting_after_the_keyword_stays_quiet(line: str) -> None:
    assert found(line) == [], line
