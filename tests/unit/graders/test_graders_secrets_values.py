"""What a value after a keyword is, where a token's body ends, which of two overlapping secrets is named."""

from __future__ import annotations

import base64
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.graders import scan

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"
GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize(
    "text",
    [
        "password: DB_PASSWORD_FILE",  # the name of a variable holding it, not the password
        "password: my-Secret",  # a placeholder joined to a word
    ],
)
def test_a_name_or_placeholder_after_a_keyword_is_not_a_credential(text: str) -> None:
    assert scan(text) == []


def test_a_twilio_sid_whose_only_digit_is_its_first_is_found() -> None:
    sid = "AC1" + "abcdef" * 5 + "a"
    assert found(f"SID {sid} ok") == [("twilio-api-key", sid)]


def test_an_aws_secret_written_right_after_is_is_an_aws_secret() -> None:
    assert found(f"the aws secret key is{AWS_SECRET}.") == [("aws-secret-key", AWS_SECRET)]


def test_an_unquoted_aws_secret_holding_a_key_id_shape_is_one_finding_whole() -> None:
    secret = "wJalrXUtnFEMI/AKIAIOSFODNN7EXAMPLXbPxRfi"
    assert found(f"AWS_SECRET_ACCESS_KEY={secret}\n") == [("aws-secret-key", secret)]


def test_an_npmrc_line_holding_another_key_is_one_finding() -> None:
    line = f"//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2 # {GOOGLE}"
    [(kind, span)] = found(line)
    assert kind == "npm-token" and span == line


def test_a_key_id_in_pieces_glued_inside_a_sendgrid_key_is_part_of_it() -> None:
    # the key id's pieces (joined by "-") lie inside the SendGrid key: one finding, the whole key
    second = "ab1-AKIA-IOSF-ODNN-7EXA-MPLE" + "x9Yz8Wv7Ut6Sr5Q"
    key = "SG.Ab1Cd2Ef3Gh4Ij5Kl6Mn7O." + second
    assert len(second) == 43
    assert found(f"Use {key}\n") == [("sendgrid-api-key", key)]


@pytest.mark.parametrize(
    "text",
    [
        "Plan A SIA 2024 AUDIT REPORT FINAL",  # a one-letter word, then capitals: no broken prefix
        "Grade A KIA TEAM 2024 REPORT FINAL",
    ],
)
def test_a_one_letter_word_before_capitals_is_not_a_broken_prefix(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize("after", [" end", " ok", " 42", "\nabc"])
def test_a_short_word_after_a_whole_token_is_not_a_piece_of_it(after: str) -> None:
    token = "glpat-Xk9mPq2vL7wZ3rT8nB4s"
    assert found(f"token {token}{after}") == [("gitlab-token", token)]
    # a token not yet whole as written still takes its pieces (and may take the word after:
    # where a token of no fixed length ends is then a guess, and the wider reading is the safe one)
    [(kind, text)] = found(f"token {token[:14]} {token[14:]}{after}")
    assert kind == "gitlab-token" and text.startswith(f"{token[:14]} {token[14:]}")


# --- a value with an escape written in it ---------------------------------------------------------

#: The ways a character of a value can be written as an escape (an HTML character reference in
#: decimal, hex or by name, a \x or \u escape): its ";" or "\" must not end the value.
ESCAPES = [
    lambda c: f"&#{ord(c)};",
    lambda c: f"&#x{ord(c):x};",
    lambda c: f"&#X{ord(c):X};",
    lambda c: f"\\x{ord(c):02x}",
    lambda c: f"\\u{ord(c):04x}",
]
NAMED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "!": "&excl;", ";": "&semi;"}


@given(
    head=st.text(alphabet=string.ascii_letters + string.digits, min_size=3, max_size=10),
    tail=st.text(alphabet=string.ascii_letters + string.digits, min_size=3, max_size=10),
    char=st.sampled_from("!;#&<>@$%*+=?"),
    how=st.integers(0, len(ESCAPES)),
    key=st.sampled_from(
        ["password=", "db_password: ", "API_KEY=", "--db-password=", "clientSecret: ", "token="]
    ),
    after=st.sampled_from(["", " ", "\n", "; next", ". Done."]),
)
def test_an_escape_written_in_a_value_neither_ends_it_nor_hides_it(
    head: str, tail: str, char: str, how: int, key: str, after: str
) -> None:
    escape = ESCAPES[how](char) if how < len(ESCAPES) else NAMED.get(char, f"&#{ord(char)};")
    value = "Q7" + head + escape + tail + "9z"
    text = key + value + after
    findings = scan(text)
    assert findings, text
    covered = {i for f in findings for i in range(f.start, f.end)}
    start = len(key)
    assert set(range(start, start + len(value))) <= covered, (text, [(f.start, f.end) for f in findings])
    for f in findings:  # the redacted description shows no piece of the value after the escape
        assert tail + "9z" not in f.describe(), f.describe()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password=Tr0ub4dor&#33;3xK", "Tr0ub4dor&#33;3xK"),
        ('"password": "Tr0ub&#x21;4dor3xK"', "Tr0ub&#x21;4dor3xK"),
        ("db_password: Tr0ub4dor&amp;3xKq\n", "Tr0ub4dor&amp;3xKq"),
        ("PASSWORD=abc&#59;def&#59;ghi123", "abc&#59;def&#59;ghi123"),  # found nothing before
        ("--db-password=Tr0ub4dor&#33;3xK now", "Tr0ub4dor&#33;3xK"),
    ],
)
def test_a_value_with_an_html_reference_is_found_whole(text: str, value: str) -> None:
    assert found(text) == [("credential", value)]


@pytest.mark.parametrize(
    "text",
    [
        "pwd=C:\\Users\\bob",  # a backslash that is no \x or \u escape still ends the value
        "password: &amp;",  # a reference alone is no value
        "password: &lt;your password&gt;",  # a placeholder written with references
    ],
)
def test_references_and_backslashes_make_no_credential_of_a_non_value(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("--db-password=Rct2HH%zCJu8%d.", "Rct2HH%zCJu8%d."),  # a password that ends in "%d"
        ("password=Q9%sLm2Xw7Tz", "Q9%sLm2Xw7Tz"),
        ("api_key: %d4Kz9Pq2Rt7W", "%d4Kz9Pq2Rt7W"),
    ],
)
def test_a_value_holding_a_printf_placeholder_is_a_credential_when_the_rest_is_one(
    text: str, value: str
) -> None:
    assert found(text) == [("credential", value)]


@pytest.mark.parametrize(
    "text",
    ["password=%s", 'password: "%s"', "password=user%d", "token: prefix-%s-suffix", "password=%s_%s_%s_%s"],
)
def test_a_template_is_no_credential(text: str) -> None:
    assert found(text) == []


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    "raw",
    [
        b"secret",  # 8 characters of base64, the fewest read: a placeholder
        b"pass",  # 4 bytes, the fewest read: too short for a password
        b"<your password>",  # a space is printable: a template
        b"~/.pgpass",  # so is a tilde: a path
    ],
)
def test_a_kubernetes_secret_value_in_base64_is_judged_as_the_text_it_encodes(raw: bytes) -> None:
    # a Secret manifest's data holds base64; what it encodes is no password, so nothing is reported
    assert found(f"data:\n  password: {b64(raw)}\n") == []


@pytest.mark.parametrize(
    "value",
    [
        b64(b"ab\x7fc"),  # decodes to DEL, no printable text: the value is a password as written
        b64(b"ab\x1fc"),  # decodes to a control character
        b64(b"$DB_PASSWORD") + "==",  # padding after a whole last group: no base64
        b64(b"Rct2HH8zCJu8"),  # base64 of a password
    ],
)
def test_a_value_that_is_no_base64_of_printable_text_is_a_password_as_written(value: str) -> None:
    assert found(f"data:\n  password: {value}\n") == [("credential", value)]


@pytest.mark.parametrize(
    "text",
    [
        "password=Xk9mPq2vL7wRt4Yz8uI0/${SUFFIX}",
        "password: Xk9mPq2vL7wRt4Yz8uI0wq<your-suffix>",
        "db_password=Xk9mPq2vL7wRt4Yz8uI0(prod)",
    ],
)
def test_a_template_whose_literal_part_is_a_long_token_is_no_credential(text: str) -> None:
    # the value is read whole, to the template's end, never only to where its long token ends
    assert scan(text) == []
