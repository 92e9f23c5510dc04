"""Shapes of secrets and identifiers the scan's earlier rules misread (held-out set 26), each beside
the harmless twin that must keep the other verdict.

- A credential's keyword with a qualifier after it in an environment variable's name (the host,
  the environment or the instance it is for: ``TF_TOKEN_app_terraform_io``, ``VAULT_TOKEN_PROD``)
  still names the credential; a word after it naming another setting (``TOKEN_URL``,
  ``API_KEY_HEADER``, ``SECRET_ID``) does not.
- A secret's spec as Docker BuildKit and Podman take it (``--secret id=npmrc,src=...``) names a
  secret and its file, no value; a value after ``--secret`` still fires.
- A header's name with its colon after a prose ``auth:`` is a label, not the value; a real
  Basic header after it still fires.
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


# --- 2. BuildKit's secret spec -------------------------------------------------------------------

SPECS = [
    "docker build --secret id=npmrc,src=$HOME/.npmrc --build-arg APP_VERSION=${APP_VERSION} .",
    "docker buildx build --secret id=aws,src=$HOME/.aws/credentials -t app .",
    "podman build --secret=id=gh_token,env=GH_TOKEN .",
    "docker build --secret type=env,id=npm_token,env=NPM_TOKEN .",
    "RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci",
    "docker build --secret src=./secrets/pip.conf,id=pipconf .",
]


@pytest.mark.parametrize("line", SPECS)
def test_a_buildkit_secret_spec_names_no_secret(line: str) -> None:
    assert found(line) == [], line


def test_a_value_after_the_secret_flag_still_fires() -> None:
    text = f"docker build --secret {TOKEN} ."
    assert found(text) == [("credential", TOKEN)]


# --- 3. a header's name after a prose "auth:" ----------------------------------------------------

HEADER_LABELS = [
    "Adyen sends the notifications with basic auth: `Authorization: Basic <base64 of username:password>`.",
    "The API expects auth: `X-Api-Key: <your key>` on every call.",
    "Pour l'auth : `Authorization: Bearer <jeton>` dans chaque requête.",
    "Für die Auth: `Authorization: Basic <Base64 von benutzer:passwort>` mitschicken.",
]


@pytest.mark.parametrize("text", HEADER_LABELS)
def test_a_header_name_after_a_prose_auth_is_no_value(text: str) -> None:
    assert found(text) == [], text


def test_a_real_basic_header_after_a_prose_auth_fires() -> None:
    text = "Use basic auth: `Authorization: Basic dXNlcjpQNHNzdzByZCE3`"
    assert [k for k, _ in found(text)] == ["basic-auth"]


def test_a_password_after_auth_still_fires() -> None:
    text = "auth: Zq8mN3vL:p2Rt7Yw"
    assert found(text) == [("credential", "Zq8mN3vL:p2Rt7Yw")]
