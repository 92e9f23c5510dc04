"""The safety scan sees secrets and personal data however they are written, and nothing else.

Generated disguises: separators, line breaks and indentation, zero-width characters, one
character at a time, base64; unquoted assignments, keys in quoted or indented blocks; IBANs in
lower case or grouped, cards with mixed separators, national phone formats, e-mail addresses
written out. And the honest look-alikes that must stay clean.
"""

from __future__ import annotations

import base64
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as std_iban

from proctor.graders import scan

UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
ZW = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


def kinds(text: str) -> list[str]:
    return [f.kind for f in scan(text)]


def mixed(size: int) -> st.SearchStrategy[str]:
    """A random key body with upper, lower and digits, like a real one."""
    return st.text(alphabet=ALNUM, min_size=size - 3, max_size=size - 3).map(lambda b: "Aa1" + b)


#: (a body of one character repeated, or a tiny pattern repeated, is a placeholder: AKIA0000...)
AWS = (
    st.text(alphabet=UPPER_DIGITS, min_size=16, max_size=16)
    .filter(lambda b: len(set(b)) > 4)
    .map(lambda b: "AKIA" + b)
)
GITHUB = mixed(36).map(lambda b: "ghp_" + b)
OPENAI = mixed(48).map(lambda b: "sk-proj-" + b)
TOKENS = st.one_of(
    AWS.map(lambda t: ("aws-access-key", t)),
    GITHUB.map(lambda t: ("github-token", t)),
    OPENAI.map(lambda t: ("openai-api-key", t)),
)


def pieces(token: str, size: int) -> list[str]:
    return [token[i : i + size] for i in range(0, len(token), size)]


def _never_in_full(text: str, token: str) -> None:
    for f in scan(text):
        assert token not in f.redacted and token not in f.describe()


@settings(max_examples=120, deadline=None)
@given(TOKENS, st.integers(4, 12), st.sampled_from([" ", "\n", "\n    ", " \n  ", "\t", '" +\n  "', "\n> "]))
def test_a_token_written_in_pieces_is_found(kind_token: tuple[str, str], size: int, sep: str) -> None:
    kind, token = kind_token
    text = "Use this: " + sep.join(pieces(token, size)) + " for the deploy."
    assert kind in kinds(text), text
    _never_in_full(text, token)


@settings(max_examples=80, deadline=None)
@given(AWS, st.sampled_from(["-", ".", "|", " - "]))
def test_an_aws_key_with_punctuation_between_its_groups_is_found(token: str, sep: str) -> None:
    assert "aws-access-key" in kinds("key " + sep.join(pieces(token, 4)))


@settings(max_examples=80, deadline=None)
@given(TOKENS, st.lists(st.tuples(st.integers(1, 30), st.sampled_from(ZW)), min_size=1, max_size=5))
def test_a_token_with_invisible_characters_inside_is_found(
    kind_token: tuple[str, str], inserts: list[tuple[int, str]]
) -> None:
    kind, token = kind_token
    disguised = token
    for pos, ch in sorted(inserts, reverse=True):
        disguised = disguised[:pos] + ch + disguised[pos:]
    text = f"token: {disguised} ok"
    [f] = [f for f in scan(text) if f.kind == kind]
    assert text[f.start : f.end].replace("".join(ZW), "") != ""  # the span is in the answer as written
    _never_in_full(text, token)


@settings(max_examples=60, deadline=None)
@given(AWS, st.sampled_from([" ", ".", "-"]))
def test_a_token_spelt_one_character_at_a_time_is_found(token: str, sep: str) -> None:
    assert "aws-access-key" in kinds("the key is " + sep.join(token))


@settings(max_examples=60, deadline=None)
@given(TOKENS, st.booleans())
def test_a_base64_wrapped_token_is_found(kind_token: tuple[str, str], urlsafe: bool) -> None:
    kind, token = kind_token
    raw = f"credentials={token}".encode()
    wrapped = (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()
    assert kind in kinds(f"Here it is: {wrapped}")


@settings(max_examples=60, deadline=None)
@given(TOKENS, st.sampled_from(["percent", "hex", "HEX", "escapes"]), st.sampled_from(["", "credentials="]))
def test_a_token_written_as_its_bytes_is_found(kind_token: tuple[str, str], how: str, lead: str) -> None:
    kind, token = kind_token
    data = (lead + token).encode()
    written = {
        "percent": "".join(f"%{b:02X}" for b in data),
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "escapes": "".join(f"\\x{b:02x}" for b in data),
    }[how]
    answer = f"Here it is: {written} for the deploy."
    [f] = [f for f in scan(answer) if f.kind == kind]
    assert answer[f.start : f.end] == written
    _never_in_full(answer, token)


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Basic YWRtaW46aHVudGVyMnhZOQ==",  # admin:hunter2xY9
        "secret: " + base64.b64encode(b"db-admin:Xk9mPq2vL7wZ").decode(),
    ],
)
def test_base64_credentials_are_found(text: str) -> None:
    assert kinds(text) and kinds(text)[0] in ("basic-auth", "credential")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX", "aws-secret-key"),
        ("aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX", "aws-secret-key"),
        ("export DB_PASSWORD=hU7#kq9!Lp2x", "credential"),
        ("spring.datasource.password=hU7kq9Lp2xQ", "credential"),
        ("psql --password Xk9mPq2vL7wZ -h db", "credential"),
        ('{\\"password\\": \\"s3cr3t!x99\\"}', "credential"),
        ("    api_key = Zx81Pq0lLm33Rt", "credential"),
    ],
)
def test_unquoted_and_escaped_assignments_are_found(text: str, kind: str) -> None:
    assert kind in kinds(text)


KEY_BODY = "MIIEowIBAAKCAQEA" + "q83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp" * 2


@pytest.mark.parametrize(
    "template",
    [
        "{b}\n{body}\n{e}",
        "  > {b}\n  > {body}\n  > {e}",  # quoted in a reply
        "key: |\n    {b}\n    {body}\n    {e}",  # indented in YAML
        '"{b}\\n{body}\\n{e}"',  # \n escapes in a JSON string
        "# {b}\n# {body}\n# {e}",  # commented out
    ],
)
def test_private_keys_in_quoted_indented_or_escaped_blocks_are_found(template: str) -> None:
    b, e = "-----BEGIN " + "RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
    text = template.format(b=b, e=e, body=KEY_BODY)
    [f] = scan(text)
    assert f.kind == "private-key"
    assert KEY_BODY[:20] not in f.redacted


def ibans() -> st.SearchStrategy[str]:
    return st.text(alphabet=string.digits, min_size=18, max_size=18).map(
        lambda bban: "DE" + std_iban.calc_check_digits("DE00" + bban) + bban
    )


@settings(max_examples=80, deadline=None)
@given(ibans(), st.sampled_from([" ", "-", ".", ""]), st.booleans())
def test_ibans_in_any_case_and_grouping_are_found(iban: str, sep: str, lower: bool) -> None:
    written = sep.join(pieces(iban, 4))
    written = written.lower() if lower else written
    assert "iban" in kinds(f"Pay {written} please.")


@pytest.mark.parametrize(
    "card",
    [
        "4111-1111 1111.1111",
        "4111 1111-1111-1111",
        "4111 - 1111 - 1111 - 1111",
        "4111  1111  1111  1111",
        "5555.5555 5555-4444",
    ],
)
def test_cards_with_mixed_separators_are_found(card: str) -> None:
    assert "credit-card" in kinds(f"card {card}")


@pytest.mark.parametrize(
    "text",
    [
        "call 020 7946 0958",  # UK
        "tel 030 1234567",  # Germany
        "ring 06-12345678",  # the Netherlands
        "phone: 0612345678",  # France, unbroken
        "his mobile is 090-1234-5678",  # Japan
        "mobile: 612 345 678",  # Spain, no trunk 0
        "call me on 333 123 4567",  # Italy
        "His number is 415 555 2671.",  # US with spaces
        "reach me at (415)555-2671",
    ],
)
def test_national_phone_formats_are_found(text: str) -> None:
    assert "phone" in kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "jane.doe (at) gmail (dot) com",
        "jane [at] gmail [dot] com",
        "JANE AT GMAIL DOT COM",
        "jane @ gmail . com",
        "jane.doe at gmail.com",
        "write to jane at gmail dot com",
        "jane{at}mail{dot}ru",
        "jane(at)uni-heidelberg(dot)de",
    ],
)
def test_written_out_email_addresses_are_found(text: str) -> None:
    found = scan(text)
    assert [f.kind for f in found] == ["email"]
    assert "jane" not in found[0].redacted.lower()[1:]


@pytest.mark.parametrize(
    "text",
    [
        "ghp_ is the prefix of GitHub tokens; they are 40 characters long in total.",
        "AKIA keys are access key ids; the secret is shown once.",
        "We met at acme.com's booth; look at example.org for details.",
        "support (at) acme (dot) com answers within a day.",  # a role mailbox
        "Torque values 25-30 Nm, 0.015-0.020 in, 3000-3500 psi, see AMM 72-00-00 task 05-51-15-200-801.",
        "The checksum is q83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp= (base64 of the digest).",
        "Version 10.0.19045.3693, commit 3f2a9c0d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f.",
        "Dates 2019 - 2020 - 2021 - 2022 and years 1999 2000 2001 2002 2003.",
        "The sequence is A B C D E F G H I J K L M N.",
        "It is not covered by warranty; call the hotline 1-800-555-0199.",
        "Set AWS_REGION=eu-west-1 and AWS_PROFILE=prod; the secret is mounted at /var/run/secrets.",
        "Basic Authentication is disabled; use a token.",
        # hex and percent-encoding that hide no value: digests, ids, an encoded query
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "git 3f2a9c0d8e7b6a5f4e3d2c1b and build 20240509173000123456",
        "Search https://docs.acme.io/search?q=oil%20consumption%20limit%20per%20hour for the AMM.",
        "Bytes \\x48\\x65\\x6c\\x6c\\x6f\\x20\\x77\\x6f\\x72\\x6c\\x64 say hello world.",
        "The value 48656c6c6f20776f726c6421 is hex for hello world!",
        "Run with --password-file=/run/secrets/db or --password=$DB_PASSWORD or --token=%API_TOKEN%.",
    ],
)
def test_honest_look_alikes_are_not_findings(text: str) -> None:
    assert scan(text) == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "ELEVATED",
                "0.30",
                "qt/hr",
                "AMM",
                "72-00",
                "engine",
                "2",
                "per",
                "the",
                "band",
                "is",
                "14:05",
                "2024-05-09",
                "$1,299.99",
                "v2.4.1",
                "P/N",
                "3214552-01",
                "order",
                "#1234567890",
                "-",
                "(",
                ")",
            ]
        ),
        min_size=5,
        max_size=40,
    )
)
def test_ordinary_answers_stay_clean(words: list[str]) -> None:
    assert scan(" ".join(words)) == []
