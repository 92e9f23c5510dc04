"""The redaction a report shows: how much of a token, number or address a finding may reveal."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.graders._redact import Finding, mask_chars, redact, redact_token


@pytest.mark.parametrize(
    ("token", "shown"),
    [
        ("abcdefghijk", "********"),  # 11 characters: nothing shown, a fixed 8 stars
        ("abcdefghijkl", "ab********kl"),  # 12: a fifth (2) at each end
        ("ABCDEFGHIJKLMNOPQRS", "ABC*************QRS"),  # 19: 3 at each end
        ("ABCDEFGHIJKLMNOPQRST", "ABCD************QRST"),  # 20: 4, the most shown
        ("A" * 4 + "x" * 15 + "Z" * 4, "AAAA" + "*" * 15 + "ZZZZ"),  # 23: 15 stars
        ("A" * 4 + "x" * 16 + "Z" * 4, "AAAA" + "*" * 16 + "ZZZZ"),  # 24: 16 stars
        ("A" * 4 + "x" * 40 + "Z" * 4, "AAAA" + "*" * 16 + "ZZZZ"),  # long: still 16 stars, 4 shown
    ],
)
def test_a_token_shows_at_most_a_fifth_at_each_end(token: str, shown: str) -> None:
    assert redact_token(token) == shown
    assert redact("github-token", token) == shown


def test_digits_keep_only_their_tail_and_separators_stay() -> None:
    assert mask_chars("4111-1111-1111-1111", keep_tail=4) == "****-****-****-1111"
    assert mask_chars("DE89 3704", keep_tail=2, keep_head=2) == "DE** **04"
    assert mask_chars("AB12CD", keep_tail=0, keep_head=2) == "AB****"
    assert mask_chars("AB12CD", keep_tail=0) == "******"


@pytest.mark.parametrize(
    ("kind", "value", "shown"),
    [
        ("email", "jane.doe@mail.acme.com", "j***@m***.com"),
        ("phone", "+44 20 7946 0958", "+** ** **** **58"),
        ("credit-card", "4111 1111 1111 1111", "**** **** **** 1111"),
        ("iban", "GB82WEST12345698765432", "GB****************5432"),
        ("national-id", "536-22-8751", "***-**-**51"),
        ("basic-auth", "Tr0ub4dor3xK", "********"),
        ("credential", "x", "********"),
        (
            "private-key",
            "-----BEGIN OPENSSH PRIVATE KEY-----abc",
            "-----BEGIN OPENSSH PRIVATE KEY----- [38 characters redacted]",
        ),
        ("private-key", "PuTTY-User-Key-File-3: ssh-rsa", "PuTTY-User-Key-File-3 [30 characters redacted]"),
        ("private-key", "no header here", "private key [14 characters redacted]"),
    ],
)
def test_each_kind_has_its_redaction(kind: str, value: str, shown: str) -> None:
    assert redact(kind, value) == shown


def test_a_finding_describes_itself_with_and_without_detail_and_cannot_be_changed() -> None:
    f = Finding("email", "j***@a***.com", 5, 22)
    assert f.describe() == "email at 5-22: j***@a***.com"
    assert Finding("aws-access-key", "AKIA****", 1, 2, "AWS Access Key").describe() == (
        "aws-access-key (AWS Access Key) at 1-2: AKIA****"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.redacted = "jane@acme.com"  # type: ignore[misc]
