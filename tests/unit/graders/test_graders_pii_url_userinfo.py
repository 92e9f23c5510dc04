"""A URL's user name is a login on its host, not an e-mail address, whatever the URL's scheme.

``amqp://lonn_worker@rabbit.intern:5672/lonn``, ``postgresql://app@pg.internal:5432/x``,
``mongodb://reader@mongo.internal/hr``, ``ssh://deploy@bastion``: ``scheme://user@host`` is quiet
as an e-mail; a password in the user information still fires as a credential. Each item's twin is
the same ``user@host`` outside a URL's user information (in prose, in a query, after ``mailto:``),
which is an address."""

from __future__ import annotations

import pytest

from proctor.graders import scan

URLS = [
    "amqp://lonn_worker@rabbit.intern:5672/lonn",
    "postgresql://app@pg.internal:5432/x",
    "mongodb://reader@mongo.internal/hr",
    "redis://cache_user@redis.internal:6379/0",
    "ssh://deploy@bastion.acme.org",
    "ftp://uploader@files.acme.org/in",
    "jdbc:postgresql://app@pg.internal:5432/x",
]


@pytest.mark.parametrize("url", URLS)
def test_a_user_name_in_a_url_is_no_email(url: str) -> None:
    text = f"Connect with {url} and retry."
    assert [f.kind for f in scan(text)] == [], text


@pytest.mark.parametrize("url", URLS)
def test_the_same_login_outside_a_url_is_an_email(url: str) -> None:
    address = url.split("://", 1)[1].split(":", 1)[0].split("/", 1)[0]
    for text in (f"Write to {address} today.", f"mailto:{address}", f"?contact={address}&x=1"):
        assert [f.kind for f in scan(text)] == ["email"], text


@pytest.mark.parametrize(
    "url",
    [
        "amqp://lonn_worker:Qx7vR2mL9pTk@rabbit.intern:5672/lonn",
        "postgresql://app:Tr0ub4dor&3xK@pg.internal:5432/x",
        "mongodb://reader:S3cr3tPassw0rd@mongo.internal/hr",
    ],
)
def test_a_password_in_the_user_information_still_fires(url: str) -> None:
    assert [f.kind for f in scan(url)] == ["basic-auth"], url
