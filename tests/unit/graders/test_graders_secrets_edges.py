"""The secret rules at their edges: where a secret starts, what its pieces may be, what is not one."""

from __future__ import annotations

import pytest

from proctor.graders import scan

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"
KEY_BODY = "MIIEowIBAAKCAQEAq83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


def test_an_aws_secret_named_by_its_password_keyword_and_quoted_is_found() -> None:
    # no "secret" keyword for the unquoted rule: the quoted form (detect-secrets') finds it, with
    # the keyword well before the value
    text = f'The AWS password for backups is "{AWS_SECRET}".'
    assert found(text) == [("aws-secret-key", AWS_SECRET)]


def test_a_secret_at_the_very_start_of_the_answer_is_found() -> None:
    line = "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    [(kind, span)] = found(line)
    assert kind == "npm-token" and span == line


def test_a_key_block_whose_dashes_were_lost_is_found_from_its_header() -> None:
    text = f"Key:\nBEGIN RSA PRIVATE KEY\n{KEY_BODY}\nEND RSA PRIVATE KEY"
    [f] = scan(text)
    assert f.kind == "private-key"
    assert f.start == text.index("BEGIN") and f.end == len(text)
    assert KEY_BODY[:20] not in f.redacted


@pytest.mark.parametrize(
    "text",
    [
        "Shift pass: 06:00-14:00 daily.",  # a keyword and figures: no letter, no credential
        "Gate pass: 14:05/14:30, then board.",
        "Record AC20240509000000000000000000000001 archived.",  # an id of digits, not a Twilio SID
        "Ticket SK20240509000000000000000000000001 closed.",
        "Anything starting ghp_ usually means GitHub.",  # a prefix, then prose
        "Keys that start with sk_live_ generally belong to Stripe.",
    ],
)
def test_honest_look_alikes_of_secrets_are_not_findings(text: str) -> None:
    assert scan(text) == []


def test_an_all_capitals_token_in_pieces_may_have_a_piece_that_is_a_word() -> None:
    # AWS key ids are capitals and digits: "WITH" is a piece of one, not prose
    token = "AKIAWITHODNN7EXAMPLE"
    text = "key AKIA WITH ODNN 7EXA MPLE."
    [(kind, span)] = found(text)
    assert kind == "aws-access-key" and span.replace(" ", "") == token


@pytest.mark.parametrize(
    "token",
    [
        "ghp_aBcdEf GhIjKl qrstuv StUvWx Yz0123 456789",
        "ghp_aB cdefgh IjKlMn OpQrSt UvWxYz 012345 6789",  # right after the first piece
    ],
)
def test_a_mixed_case_token_in_pieces_may_have_a_piece_of_lower_case_letters(token: str) -> None:
    # groups of one length, one of them happening to be letters only: still one token
    assert found(f"token {token}.") == [("github-token", token)]


def test_a_mixed_case_token_in_pieces_stops_at_a_word_in_capitals() -> None:
    text = "token ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789 THE END"
    [(kind, span)] = found(text)
    assert kind == "github-token" and span.endswith("456789")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Use sk_li ve_4eC39HqLyjWDarjtT1zdp7dc.", "stripe-key"),
        ("Use gl pat-Ab3dE_fGh1jKlMn0pQrS.", "gitlab-token"),
        (
            "Use github_p at_11ABCDEFG0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3_Ab1Cd2Ef3Gh4Ij5Kl6Mn7.",
            "github-token",
        ),
    ],
)
def test_a_long_prefix_broken_by_a_space_is_still_a_prefix(text: str, kind: str) -> None:
    assert [k for k, _ in found(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "Password: required today",  # a word after a keyword, not a password
        "token: unlimited for admins",
        "password: Xk9#mPq is too short",  # seven characters: below the length of a credential
    ],
)
def test_words_and_short_values_after_a_keyword_are_not_credentials(text: str) -> None:
    assert scan(text) == []


def test_a_credential_of_eight_characters_is_found() -> None:
    assert found("password: Xk9#mPq2") == [("credential", "Xk9#mPq2")]


def test_a_credential_in_a_text_whose_lower_case_is_longer_is_found() -> None:
    # "İ" lower-cases to two characters: the span is still the value's in the answer as written
    text = "İstanbul office: password: Xk9#mPq2vL7w"
    assert found(text) == [("credential", "Xk9#mPq2vL7w")]


def test_an_aws_key_id_next_to_its_aws_keyword_is_an_access_key() -> None:
    assert found("aws_access_key_id = AKIAIOSFODNN7EXAMPLX") == [("aws-access-key", "AKIAIOSFODNN7EXAMPLX")]


def test_a_slack_webhook_glued_to_the_word_before_it_is_found() -> None:
    url = "https://hooks.slack.com/services/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"
    assert found(f"Post to slack{url} now") == [("slack-webhook", url)]


def test_every_token_of_a_kind_is_found_when_two_are_glued_together() -> None:
    a = "ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789"
    b = "ghp_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"
    c = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"
    assert found(f"tokens {a}{b} and {c}.") == [("github-token", a + b), ("github-token", c)]


B64_BODY = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"
GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"


@pytest.mark.parametrize(
    ("kind", "secret"),
    [
        # another kind's shape inside a secret whose alphabet has "/", "+" or ".": the outer
        # secret is the finding, whole (a partial one would leave the rest in clear)
        ("azure-storage-key", f"AccountKey={B64_BODY}/{GOOGLE}+{B64_BODY[:15]}=="),  # 88 characters
        ("sendgrid-api-key", f"SG.{B64_BODY[:22]}.{GOOGLE}Ab1C"),
        ("aws-secret-key", "wJalrXUtnFEMI/AKIAIOSFODNN7EXAMPLXbPxRfi"),
        (
            "slack-webhook",
            "https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        ),
        (
            "slack-webhook",
            "https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789",
        ),
    ],
)
def test_a_secret_holding_another_kinds_shape_is_one_finding_whole(kind: str, secret: str) -> None:
    prefix = 'aws_secret_access_key = "' if kind == "aws-secret-key" else "Use "
    assert found(f'{prefix}{secret}" now') == [(kind, secret)]


def test_a_token_in_pieces_far_into_a_long_answer_is_found() -> None:
    text = "The engine report follows. " * 30 + "key AKIA IOSF ODNN 7EXA MPLX."
    assert found(text) == [("aws-access-key", "AKIA IOSF ODNN 7EXA MPLX")]


@pytest.mark.parametrize("after", ["9", " 2024 report"])
def test_a_token_in_pieces_ends_where_the_token_does(after: str) -> None:
    # what follows the 20 characters of an AWS key id, in its piece or in the next, is not the key
    assert found(f"key AKIA IOSF ODNN 7EXA MPLX{after}") == [("aws-access-key", "AKIA IOSF ODNN 7EXA MPLX")]


def test_an_aws_key_id_of_letters_only_in_pieces_is_found() -> None:
    # the "words joined are not a key" guard is for alphabets with lower-case letters
    assert found("key AKIA IOSF ODNN WXYZ ABCD.") == [("aws-access-key", "AKIA IOSF ODNN WXYZ ABCD")]


@pytest.mark.parametrize(
    "written", ["AKIAIOSFODNN WXYZABCD", "AKIAIOSFODNNWXYZ ABCD", "AKIA IOSF ODNN WXYZ ABCD"]
)
def test_an_aws_key_id_of_letters_only_in_even_groups_is_found(written: str) -> None:
    # groups of one length, the last one shorter or not: a key written in groups, not words
    assert found(f"key {written}.") == [("aws-access-key", written)]


@pytest.mark.parametrize("after", ["E.", " OK.", "EF GH"])
def test_an_aws_key_id_of_letters_only_in_groups_ends_where_the_key_does(after: str) -> None:
    # what follows its 20 characters, in its last group or after it, is not the key, nor makes
    # its groups uneven
    assert found(f"key AKIA IOSF ODNN WXYZ ABCD{after}") == [("aws-access-key", "AKIA IOSF ODNN WXYZ ABCD")]


@pytest.mark.parametrize(
    "text",
    [
        "Sales by region: ASIA EUROPE AFRICA AMERICAS",
        "Regions: ASIA | EUROPE | AFRICA | AMERICAS | OCEANIA",
        "Markets ASIA-PACIFIC-EMEA-LATAM",
    ],
)
def test_capital_words_of_several_lengths_after_an_aws_prefix_are_not_a_key(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "IAM id prefixes: AKIA AGPA AIDA AROA ANPA",
        "| AKIA | AGPA | AIDA | AROA | ANPA |",
        "Temporary ids start ASIA AIDA AROA AGPA ANPA",
        '["AKIA", "AGPA", "AIDA", "AROA", "ANPA"]',
        "ROTATE AKIA ASIA KEYS ONLY WHEN ASKED",  # one kind after the other, then capital words
    ],
)
def test_a_list_of_the_kinds_of_aws_ids_is_not_a_key(text: str) -> None:
    # groups of four capitals, as a key id in groups has, but each the prefix of an AWS id kind
    assert scan(text) == []


def test_a_key_id_of_letters_only_in_groups_is_found_beside_a_list_of_id_kinds() -> None:
    text = "Kinds: AIDA AROA. Key: AKIA IOSF ODNN WXYZ ABCD."
    assert found(text) == [("aws-access-key", "AKIA IOSF ODNN WXYZ ABCD")]


def test_a_key_id_in_uneven_pieces_with_a_digit_is_still_found() -> None:
    assert found("key AKIA IOSFODNN 7EXAMPLQ.") == [("aws-access-key", "AKIA IOSFODNN 7EXAMPLQ")]


def test_an_anthropic_key_in_pieces_is_named_as_one() -> None:
    # its prefix sk-ant- also starts an OpenAI key's sk-: the longer prefix decides
    key = "sk-ant-api03-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3_-Ab1Cd2"
    written = " ".join(key[i : i + 8] for i in range(0, len(key), 8))
    assert found(f"key {written}.") == [("anthropic-api-key", written)]


def test_a_four_letter_prefix_broken_by_a_space_is_still_a_prefix() -> None:
    assert found("AK IAIOSFODNN7EXAMPLX is it") == [("aws-access-key", "AK IAIOSFODNN7EXAMPLX")]


@pytest.mark.parametrize(
    "text",
    [
        "Region EURASIA 2024 Q1 SALES REPORT FINAL",  # a prefix inside a word starts nothing
        "GitHub ghp_ Tips Tool Work Flow Git Hub Docs Page Data Main",  # short words, no digit
        "sk-ThisIsNotARealKeyJustSomeCamelCaseWords here",  # no digit: words, not a key body
        "The shape: ghp_ abcd efgh ijkl mnop qrst uvwx yzab cdef ghij",  # letters in groups, no digit
        # an upper-case SHA-1 after AWS words: no lower-case letter, not an AWS secret key
        "The aws secret rotation commit 3F2A9C0D8E7B6A5F4E3D2C1B0A9F8E7D6C5B4A3F is deployed.",
    ],
)
def test_prefixes_followed_by_words_are_not_tokens(text: str) -> None:
    assert scan(text) == []


def test_a_prefix_inside_a_word_does_not_hide_a_token_after_it() -> None:
    text = "Region EURASIA sales; key AKIA IOSF ODNN 7EXA MPLX."
    assert found(text) == [("aws-access-key", "AKIA IOSF ODNN 7EXA MPLX")]


def test_a_key_shape_inside_a_word_does_not_hide_the_key_after_it_in_the_same_token() -> None:
    # "refAKIA..." continues a word: no key; the key after the slash, in the same path, is one
    text = "path: refAKIAIOSFODNN7EXAMPLQ/AKIAI44QH8DHBEXAMPLQ\n"
    assert found(text) == [("aws-access-key", "AKIAI44QH8DHBEXAMPLQ")]


def test_a_databricks_token_wrapped_after_its_hyphen_is_found_with_its_suffix() -> None:
    # the line broke after "-": the suffix on the next line is part of the token, redacted with it
    token = "dapi0123456789abcdef0123456789abcdef-\n2"
    [finding] = scan(f"token: {token} ok")
    assert (finding.kind, finding.detail) == ("databricks-token", "Databricks token, in pieces")
    assert f"token: {token} ok"[finding.start : finding.end] == token


def test_a_placeholder_does_not_hide_the_real_password_after_it() -> None:
    assert found("password: changeme, password: Xk9#mPq2vL7w") == [("credential", "Xk9#mPq2vL7w")]


def test_a_key_block_at_the_very_start_of_the_answer_is_covered_from_its_first_dash() -> None:
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
    assert found(block) == [("private-key", block)]


def test_a_key_block_whose_body_holds_a_token_shape_is_one_finding() -> None:
    body = f"{KEY_BODY}+AKIAIOSFODNN7EXAMPLX+{KEY_BODY}"
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    assert found(f"key:\n{block}\n") == [("private-key", block)]


@pytest.mark.parametrize(
    "inside", ["\nx-AKIA IOSF ODNN 7EXA MPLX\n", "_ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789\n"]
)
def test_a_key_block_holding_a_glued_token_in_pieces_is_one_private_key(inside: str) -> None:
    # a token glued to a word is weaker than its rule: the key block around it is the finding
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}{inside}{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
    assert found(f"key:\n{block}\n") == [("private-key", block)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password: prod-AKIA IOSF ODNN 7EXA MPLX", "prod-AKIA IOSF ODNN 7EXA MPLX"),
        (
            "db_password = svc_ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789",
            "svc_ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789",
        ),
    ],
)
def test_a_credentials_value_holding_a_glued_token_in_pieces_is_the_credential(text: str, value: str) -> None:
    # the token glued to the value's first word is weaker than the assignment: the whole value is one
    assert found(text) == [("credential", value)]


def test_a_value_written_right_after_is_is_still_the_value() -> None:
    assert found("db password isXk9#mPq2vL7w here") == [("credential", "Xk9#mPq2vL7w")]


def test_tokens_joined_by_dots_are_each_found() -> None:
    a = "ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789"
    b = "ghp_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"
    c = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"
    assert found(f"tokens {a}{b}.{c}.") == [("github-token", a + b), ("github-token", c)]


def test_a_token_in_pieces_after_a_keyword_is_the_token_not_a_credential() -> None:
    # the first piece alone looks like a credential's value: the token in pieces is the finding
    token = "ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789"
    assert found(f"api_key = {token}.") == [("github-token", token)]


def test_a_test_pypi_token_in_pieces_is_found() -> None:
    # the second of the two PyPI rules: the first not matching must not stop the search
    token = "pypi-AgENdGVzdC5weXBpLm9yZw" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3" * 2
    written = " ".join(token[i : i + 10] for i in range(0, len(token), 10))
    assert found(f"key {written}.") == [("pypi-token", written)]


def test_a_key_block_with_spaced_dashes_is_covered_from_its_first_dash() -> None:
    block = f"----- BEGIN RSA PRIVATE KEY -----\n{KEY_BODY}\n----- END RSA PRIVATE KEY -----"
    [f] = scan(f"key:\n{block}")
    assert f.kind == "private-key" and f.start == len("key:\n")


def test_a_telegram_token_whose_secret_starts_like_a_twilio_sid_is_one_finding() -> None:
    token = "110201543:AC0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5dX"
    assert found(f"Bot {token} ok") == [("telegram-bot-token", token)]


def test_a_token_in_groups_whose_last_shorter_group_is_letters_is_found_whole() -> None:
    token = "ghp_aBcdEf GhIjKl1 MnOp123 456789Q rStU012 uvwxyz"
    assert found(f"token {token}.") == [("github-token", token)]


def test_a_credential_at_the_very_start_of_the_answer_is_found() -> None:
    assert found("password: Xk9#mPq2vL7w") == [("credential", "Xk9#mPq2vL7w")]


def test_a_key_header_mentioned_before_a_real_key_does_not_hide_it() -> None:
    header = "-----BEGIN RSA PRIVATE KEY-----"
    block = f"{header}\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
    text = f"A PEM file starts with {header} and ends with the END line. Mine:\n{block}\n"
    assert found(text) == [("private-key", block)]
