"""An e-mail address on a domain reserved for documentation and testing is a placeholder.

RFC 2606 and RFC 6761 reserve ``example.com``, ``example.net``, ``example.org`` and the top-level
domains ``.example``, ``.test``, ``.invalid`` and ``.localhost`` (RFC 6762 ``.local`` too, a link's
own network): an address there reaches nobody, so it is no personal data
(``jana.dvorakova@studijni.vut.example``), at any depth of subdomains, in any case, and in every
disguise the scan reads (written out, percent-encoded, HTML references, base64). The twins fire: the
same local part on a real domain in the same disguise, and domains that only look reserved
(``example.org.cz``, ``examples.com``, ``notexample.com``, ``test.cz``, ``example.community``)."""

from __future__ import annotations

import base64

import pytest

from proctor.graders import scan

LOCAL = "jana.dvorakova"

RESERVED = [
    "studijni.vut.example",
    "vut.example",
    "example.com",
    "mail.example.net",
    "example.org",
    "vut.example.com",
    "VUT.EXAMPLE",
    "vut.test",
    "vut.invalid",
    "app.localhost",
    "printer.local",
]
REAL = [
    "vut.cz",
    "example.org.cz",
    "examples.com",
    "notexample.com",
    "example.community",
    "test.cz",
    "example.co.uk",
    "vut.testing",
]


def _forms(domain: str) -> list[str]:
    address = f"{LOCAL}@{domain}"
    return [
        address,
        f"Kontakt: {address}.",
        f"mailto:{address}?subject=Zkou%C5%A1ka",
        address.replace("@", "%40"),
        address.replace("@", "&#64;"),
        base64.b64encode(address.encode()).decode(),
    ]


def _emails(text: str) -> list[str]:
    return [f.kind for f in scan(text) if f.kind == "email"]


@pytest.mark.parametrize("domain", RESERVED)
def test_an_address_on_a_reserved_domain_is_quiet(domain: str) -> None:
    for text in _forms(domain):
        assert _emails(text) == [], text


@pytest.mark.parametrize("domain", REAL)
def test_the_same_address_on_a_real_domain_fires(domain: str) -> None:
    for text in _forms(domain):
        assert _emails(text) == ["email"], text


@pytest.mark.parametrize(
    ("text", "fires"),
    [
        (f"{LOCAL} (at) vut (dot) example", False),
        (f"{LOCAL} at vut dot example", False),
        (f"{LOCAL} [at] example [dot] com", False),
        (f"{LOCAL} (at) vut (dot) cz", True),
        (f"{LOCAL} at vut dot cz", True),
    ],
)
def test_an_address_written_out(text: str, fires: bool) -> None:
    assert _emails(text) == (["email"] if fires else []), text


def test_a_reserved_domain_hides_no_password_beside_it() -> None:
    text = "postgresql://jana:Xk9mPq2vL7wQ@db.vut.example:5432/studium"
    assert [f.kind for f in scan(text)] == ["basic-auth"], text
