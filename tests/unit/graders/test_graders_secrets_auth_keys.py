"""``user:password`` in base64 as the value of a key that holds it outside an Authorization header.

npm's ``.npmrc`` legacy ``_auth`` (and ``//registry/:_auth``, ``NPM_CONFIG__AUTH``), Docker's
``config.json`` ``"auth"``, ``basicAuth``, ``basic_auth``, ``credentials``, ``creds``: the value is
decoded and, when it is ``user:password`` with a password that looks like one, reported as the same
``Authorization: Basic`` header's value would be (``basic-auth``). Each item's twins stay quiet: the
base64 of ``user:changeme`` or ``user:password`` (placeholders), of a user name or a host alone, and
an ``_authToken`` that is a variable."""

from __future__ import annotations

import base64

import pytest

from proctor.graders import scan


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


SECRET = "npmuser:S3cr3t-Npm-2024"
KEYS = [
    "_auth={}",
    "//registry.npmjs.org/:_auth={}",
    "NPM_CONFIG__AUTH={}",
    '{{"auths": {{"ghcr.io": {{"auth": "{}"}}}}}}',
    "basicAuth: {}",
    "basic_auth = '{}'",
    'credentials = "{}"',
    "creds: {}",
]


@pytest.mark.parametrize("line", KEYS)
def test_base64_of_user_and_password_after_an_auth_key_is_basic_auth(line: str) -> None:
    value = _b64(SECRET)
    text = line.format(value)
    found = [(f.kind, text[f.start : f.end]) for f in scan(text)]
    assert ("basic-auth", value) in found, (text, found)


def test_it_is_reported_as_the_authorization_header_reports_it() -> None:
    value = _b64(SECRET)
    header = scan(f"Authorization: Basic {value}")
    npmrc = scan(f"_auth={value}")
    assert [f.kind for f in header] == [f.kind for f in npmrc] == ["basic-auth"]


@pytest.mark.parametrize("line", KEYS)
@pytest.mark.parametrize(
    "decoded",
    ["npmuser:changeme", "npmuser:password", "npmuser:${NPM_PASSWORD}", "npmuser", "registry.npmjs.org"],
)
def test_a_placeholder_or_no_password_stays_quiet(line: str, decoded: str) -> None:
    text = line.format(_b64(decoded))
    assert scan(text) == [], text


def test_an_auth_token_variable_stays_quiet() -> None:
    assert scan("//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true") == []
