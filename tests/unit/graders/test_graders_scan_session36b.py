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
- A passport's number after its keyword fires in every language the tables read
  (``Reisepassnummer:``, ``numéro de passeport :``, ``Numer paszportu:``); the keyword with no
  number after it, or a bare ``pass``, stays quiet.
- An id after its keyword and one word naming a party of a lease, a sale or a surety, in the case
  its language puts it in (``rodné číslo nájomcu``, ``PESEL wynajmującego``, ``Steuer-ID
  Vermieters``) is that person's; a word naming no person there leads to nothing.
- A company's number after its keyword and words naming the company (``NIF da empresa:``,
  ``Steuer-ID des Unternehmens:``) is no person's id, and no phone; the same words naming a
  person (``NIF do senhorio:``) still lead to an id.
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
    "OAUTH_TOKEN_ENCRYPTION=aes256gcm",
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


# --- 4. a passport's keyword in every language the tables read -----------------------------------

PASSPORTS = [
    ("Reisepassnummer: RK5R76LNW, gültig bis 08/2032", "RK5R76LNW"),
    ("Die Passnummer lautet C01X00T47.", "C01X00T47"),
    ("Numéro de passeport : 18AV12345, délivré à Lyon.", "18AV12345"),
    ("Le passeport n° 18AV12345 expire en mai.", "18AV12345"),
    ("Número de pasaporte: PAA123456.", "PAA123456"),
    ("O número do passaporte é CA123456.", "CA123456"),
    ("Il numero del passaporto è YA1234567.", "YA1234567"),
    ("Paspoortnummer: NPH1234K5", "NPH1234K5"),
    ("Numer paszportu: ZS1234567", "ZS1234567"),
    ("Passnummer: AB1234567", "AB1234567"),
    ("Číslo pasu: 41234567", "41234567"),
    ("Pasaport numaras\u0131: U12345678", "U12345678"),
    ("Útlevélszám: BE1234567", "BE1234567"),
    ("Passport number: 512345678", "512345678"),
]


@pytest.mark.parametrize(("text", "number"), PASSPORTS)
def test_a_passport_number_after_its_keyword_fires_in_every_language(text: str, number: str) -> None:
    assert found(text) == [("national-id", number)], text


PASSPORT_TWINS = [
    "Reisepass: beantragt am 12.03.2024, noch nicht da.",
    "Passeport : NON FOURNI",
    "Il a passé 123456 euros sur le compte.",
    "Pasaporte: pendiente de renovación",
    "Il passaporto è scaduto nel 2021.",
    "Paspoort: VERLOPEN",
    "Passnummer: unbekannt",
]


@pytest.mark.parametrize("text", PASSPORT_TWINS)
def test_a_passport_keyword_without_a_number_stays_quiet(text: str) -> None:
    assert found(text) == [], text


# --- 5. a person's word of a lease, a sale or a surety, in its case -------------------------------

OWNED = [
    ("rodné číslo nájomcu 895210/3996", "895210/3996"),
    ("rodné číslo prenajímateľa 895210/3996", "895210/3996"),
    ("rodné číslo ručiteľa 895210/3996", "895210/3996"),
    ("rodné číslo nájemce 895210/3996", "895210/3996"),
    ("rodné číslo kupujícího 895210/3996", "895210/3996"),
    ("PESEL wynajmującego 44051401359", "44051401359"),
    ("PESEL poręczyciela 44051401359", "44051401359"),
    ("Steuer-ID Vermieters 23859560478", "23859560478"),
    ("BSN verhuurder 111222333", "111222333"),
    ("NIF fiador 501964843", "501964843"),
]


@pytest.mark.parametrize(("text", "number"), OWNED)
def test_an_id_after_its_keyword_and_a_party_of_a_lease_fires(text: str, number: str) -> None:
    assert found(text) == [("national-id", number)], text


NOT_OWNED = [
    "rodné číslo objednávky 895210/3996",
    "PESEL zamówienia 44051401359",
    "BSN bestelling 111222333",
    "NIF pedido 501964843",
]


@pytest.mark.parametrize("text", NOT_OWNED)
def test_an_id_after_its_keyword_and_a_word_naming_no_person_stays_quiet(text: str) -> None:
    assert found(text) == [], text


# --- 6. a company's number after its keyword and words naming the company -----------------------

COMPANY = [
    "Senhorio: Imobiliária Douro Lda, NIF da empresa: 510284671, com sede no Porto.",
    "NIF da sociedade: 510284671",
    "O NIF da firma é 510284671.",
    "Steuer-ID des Unternehmens: 23859560478",
    "Steuer-ID der Firma: 23859560478",
    "BSN van het bedrijf: 111222333",
    "PESEL spółki: 44051401359",
]


@pytest.mark.parametrize("text", COMPANY)
def test_a_companys_number_after_its_keyword_is_no_id_and_no_phone(text: str) -> None:
    assert found(text) == [], text


PERSON = [
    ("Senhorio: Manuel Sousa, NIF do senhorio: 501964843, residente no Porto.", "501964843"),
    ("O NIF do sócio-gerente é 501964843.", "501964843"),
    ("Steuer-ID des Mieters: 23859560478", "23859560478"),
    ("Het BSN van de huurder is 111222333", "111222333"),
    ("PESEL najemcy: 44051401359", "44051401359"),
]


@pytest.mark.parametrize(("text", "number"), PERSON)
def test_a_persons_number_after_the_same_words_fires(text: str, number: str) -> None:
    assert found(text) == [("national-id", number)], text
