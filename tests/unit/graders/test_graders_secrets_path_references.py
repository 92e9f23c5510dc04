"""A value that only says where a secret lives is no secret: a path, or a reference to one.

systemd loads a credential from a file (``LoadCredential=stripe:/etc/credstore/stripe-api-key``),
a setting names the file its password is read from (``password=file:/run/secrets/db``), curl and
HTTPie read an option's value from a file after ``@`` (``DB_PASSWORD=@/run/secrets/db``): none of
them holds the secret. A path in the strict sense: absolute with two segments or more, the first a
directory's name in small letters, or from ``~/``, ``./``, ``../``; a segment holds no ``+`` or
``=``. The twins keep firing: a credential's name with its value inline
(``SetCredential=db-password:Xk9mPq2vL7wQz``), a secret that merely holds a slash or a colon, base64
with slashes, ``user:pass`` under an auth key, a value after ``@`` or ``name:/`` that is no path."""

from __future__ import annotations

import base64

import pytest

from proctor.graders import scan

PATH_REFERENCES = [
    "LoadCredential=stripe:/etc/credstore/stripe-api-key",
    "LoadCredential=db-password:/etc/credstore/loen-db",
    "LoadCredentialEncrypted=db-password:/etc/credstore.encrypted/loen-db",
    "ImportCredential=db-password",
    "password=file:/run/secrets/db",
    "password=file:///run/secrets/db",
    "DB_PASSWORD=file:/run/secrets/db_password",
    "DB_PASSWORD=@/run/secrets/db",
    "api_key=@~/.config/app/key.txt",
    "api_key=file:~/.config/app/key.txt",
    "token: file:./secrets/token.txt",
    "DB_PASSWORD=/run/secrets/db_password",
    "DB_PASSWORD=../secrets/db_password",
    "--password @/run/secrets/db",
    "--client-secret=file:/var/lib/app/secrets/client",
    '"password": "file:/run/secrets/db"',
    "credentials: vault:/secret/data/app/db",
    "[Service]\nLoadCredential=smtp-password:/etc/credstore/smtp\nExecStart=/usr/bin/app",
]


@pytest.mark.parametrize("text", PATH_REFERENCES)
def test_a_path_or_a_reference_to_one_is_no_secret(text: str) -> None:
    assert scan(text) == [], text


SECRETS = [
    "SetCredential=db-password:Xk9mPq2vL7wQz",
    "password=Xk9:mP/q2vL7w",
    "password=Xk9mP/q2vL7w+Zt/8Qw==",
    "password=@Xk9mPq2vL7w",
    "token: db:/Xk9mPq2vL7wQz",  # one segment: no path
    "password=ab:/cD9x/Qm7Kp2vL",  # a first segment no directory is named
    "password=file:Xk9mPq2vL7wQz",  # (file: of no path)
    "DB_PASSWORD=@/Xk9+mPq2/vL7w=",
    "--password Xk9mPq2vL7w/run",
]


@pytest.mark.parametrize("text", SECRETS)
def test_a_secret_with_a_slash_or_a_colon_in_it_still_fires(text: str) -> None:
    assert [f.kind for f in scan(text)] == ["credential"], text


@pytest.mark.parametrize("password", ["Xk9mPq2vL7wQ", "Xk9:/mP/q2vL7w"])
def test_user_and_password_under_an_auth_key_still_fire(password: str) -> None:
    text = f"_auth={base64.b64encode(f'deploy:{password}'.encode()).decode()}"
    assert [f.kind for f in scan(text)] == ["basic-auth"], text
