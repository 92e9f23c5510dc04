"""Which of two overlapping secrets is reported, and where a secret or a token in pieces starts and ends."""

from __future__ import annotations

import base64

import pytest

from proctor.graders import scan

NPM_LINE = "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
KEY_BODY = "MIIEowIBAAKCAQEAq83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp"
GHP = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "key",
    [
        "sk-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn" + "T3BlbkFJ" + "Op7Qr8St9Uv0Wx1Yz2Ab",  # OpenAI, legacy
        "SG." + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7O" + "." + "Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T",
        "pypi-AgEIcHlwaS5vcmc" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4W",
        "sq0csp-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4C",
        "AccountKey="
        + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9"
        + "Mn0Op1Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9G==",
    ],
)
def test_an_npmrc_line_ending_in_another_key_is_one_npm_finding_over_the_line(key: str) -> None:
    # the npm rule covers its whole line and starts first: the key after it is part of it
    line = f"{NPM_LINE} # {key}"
    assert found(line) == [("npm-token", line)]


def test_a_discord_token_whose_last_part_looks_like_a_mailchimp_key_is_one_discord_finding() -> None:
    mailchimp = "0123456789abcdef0123456789abcdef-us12"
    token = f"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.{mailchimp}"
    assert found(f"bot token {token} here") == [("discord-bot-token", token)]


def test_an_assigned_value_holding_a_base64_user_password_is_redacted_whole() -> None:
    run = b64("foo:bar12345678")
    value = f"abc:{run}"
    [f] = scan(f"password={value}")
    assert (f.kind, f.detail) == ("credential", "password or secret assignment")
    assert f.end - f.start == len(value)


def test_a_base64_user_password_pair_is_named_as_such_even_when_its_password_holds_an_assignment() -> None:
    run = b64("admin:password=s3cr3tXyz9")
    [f] = scan(f"Log in with {run} today.")
    assert (f.kind, f.detail) == ("credential", "user:password, base64")


def test_a_credential_in_base64_text_with_letters_that_lower_case_longer_is_found() -> None:
    # "İ" lower-cases to two characters: the keyword's offsets in the lower-cased text move
    run = b64("İİİİ İİİİ password=s3cr3tXyz9")
    [f] = scan(f"config {run} end")
    assert f.kind == "credential" and f.detail == "password or secret assignment, base64"


def test_a_discord_token_near_an_answer_that_opens_with_a_dot_is_found() -> None:
    token = "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"
    assert found(f"... token {token}") == [("discord-bot-token", token)]


def test_a_telegram_token_near_an_answer_that_opens_with_a_colon_is_found() -> None:
    token = "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"
    assert found(f": bot {token}") == [("telegram-bot-token", token)]


def test_a_token_continuing_the_answers_first_letter_is_not_that_token() -> None:
    assert scan("xAKIAIOSFODNN7EXAMPLX") == []


def test_a_token_after_two_glued_ones_in_the_same_run_is_found() -> None:
    # the first finding covers the two glued tokens; the third, after a dot, is its own
    third = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8N"
    text = f"tokens {GHP}{GHP}.{third} end"
    assert found(text) == [("github-token", GHP + GHP), ("github-token", third)]


def test_a_rule_above_a_key_header_whose_dashes_were_lost_is_not_part_of_the_key() -> None:
    text = f"-----\n\nBEGIN RSA PRIVATE KEY\n{KEY_BODY}\nEND RSA PRIVATE KEY"
    [f] = scan(text)
    assert f.kind == "private-key" and f.start == text.index("BEGIN")


@pytest.mark.parametrize(("gap", "joined"), [(16, True), (17, False)])
def test_pieces_of_a_token_at_most_16_separators_apart_are_joined(gap: int, joined: bool) -> None:
    text = "AKIA" + " " * gap + "IOSF ODNN 7EXA MPLX"
    assert [k for k, _ in found(text)] == (["aws-access-key"] if joined else [])


def test_a_blank_line_ends_a_token_in_pieces() -> None:
    assert scan("AKIA\nIOSF ODNN 7EXA MPLX") != []
    assert scan("AKIA\n\nIOSF ODNN 7EXA MPLX") == []


def test_a_word_longer_than_the_groups_of_a_token_in_pieces_ends_it() -> None:
    # groups of four, then "remember": prose after the pieces, not a piece
    assert scan("ghp_ Ab12 Cd34 Ef56 Gh78 Ij90 Kl12 Mn34 Op56 remember to rotate") == []


@pytest.mark.parametrize(("head", "joined"), [(11, 512), (8, 517), (2, 519)])
def test_a_token_in_pieces_is_read_up_to_512_characters(head: int, joined: int) -> None:
    body = "".join(f"A{i:03d}b1Cd" for i in range(80))  # 640 characters
    first = "sk-ant-api03-" + body[:head]  # then groups of 8
    pieces = [body[i : i + 8] for i in range(head, len(body), 8)]
    text = " ".join([first, *pieces])
    [(kind, span)] = found(text)
    assert kind == "anthropic-api-key"
    # the piece that reaches 512 characters is the last one read
    assert len(span.replace(" ", "")) == joined


def test_an_aws_secret_holding_a_key_id_in_pieces_is_one_finding_whole() -> None:
    # the key id inside, written in pieces between slashes, starts later: the secret is kept whole
    secret = "wJalrXUtnFEMI/AKIA/IOSF/ODNN/7EXA/MPLXab"
    assert len(secret) == 40
    assert found(f'aws_secret_access_key = "{secret}"') == [("aws-secret-key", secret)]


def test_a_token_in_pieces_holding_a_key_id_is_one_finding_whole() -> None:
    # a GitHub token written in pieces, one of which is an AWS key id: the token starts first
    text = "ghp_Ab12Cd34 AKIAIOSFODNN7EXAMPLX Ef56Gh78, ok"
    [(kind, span)] = found(text)
    assert kind == "github-token" and span == "ghp_Ab12Cd34 AKIAIOSFODNN7EXAMPLX Ef56Gh78"


def test_a_broken_prefix_after_a_false_start_of_it_is_found() -> None:
    text = "sq0c sq0 csp-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4C"
    [(kind, span)] = found(text)
    assert kind == "square-oauth-secret" and span == text[5:]


def test_a_three_character_prefix_broken_by_a_space_is_not_looked_for() -> None:
    # "A3T" is too short to tell from prose when broken: "A3 TEAM..." is a paper size and words
    assert scan("Print on A3 TEAM PLAN 2024 REPORT FINAL") == []


def test_prefixes_glued_inside_the_last_piece_of_a_token_are_not_read_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # linear, counted rather than timed: each of the 10,000 prefixes inside the token's last piece
    # is not a new start whose pieces are read again (which made the scan quadratic)
    from proctor.graders import _secrets

    starts: list[int] = []
    read = _secrets._pieces

    def counted(text: str, pos: int, alphabet: str, limit: int) -> list[tuple[int, int]]:
        starts.append(pos)
        return read(text, pos, alphabet, limit)

    monkeypatch.setattr(_secrets, "_pieces", counted)
    scan("ghp_ Ab12 x" + "_ghp" * 10000)
    assert len(starts) <= 2


@pytest.mark.parametrize("body", ["0123456789abcdef0123456789abcdsk", "0123456789abcdef0123456789aglpat"])
def test_a_mailchimp_key_whose_body_ends_in_another_keys_prefix_is_found(body: str) -> None:
    # "sk-" and "glpat-" end where Mailchimp's "-us" starts: both are looked for
    key = f"{body}-us12"
    assert found(f"key {key} ok") == [("mailchimp-api-key", key)]


JWT_HEADER, JWT_PAYLOAD = "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"


def test_a_jwt_in_pieces_is_judged_as_the_same_token_written_whole() -> None:
    assert [k for k, _ in found(f"sent {JWT_HEADER} .{JWT_PAYLOAD}")] == ["jwt"]
    # what follows the payload is part of the token, and no longer base64url: not a JWT, either way
    assert scan(f"sent {JWT_HEADER}.{JWT_PAYLOAD}+abc") == []
    assert scan(f"sent {JWT_HEADER} .{JWT_PAYLOAD}+abc") == []


def test_a_gitlab_runner_token_after_an_aws_secret_keyword_is_one_gitlab_finding_whole() -> None:
    # its first 40 characters look like an AWS secret; the token runs on past them, after a "-"
    token = "GR1348941" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0U" + "-Xy9Z"
    assert found(f"AWS_SECRET_ACCESS_KEY={token}\n") == [("gitlab-token", token)]


@pytest.mark.parametrize(("password", "is_one"), [("pa55wrd", False), ("pa55word", True)])
def test_a_base64_user_password_pair_needs_a_password_of_8_characters(password: str, is_one: bool) -> None:
    findings = scan(f"use {b64('admin:' + password)} now")
    assert [f.detail for f in findings] == (["user:password, base64"] if is_one else [])


def test_an_npmrc_line_right_after_a_word_is_found() -> None:
    [(kind, span)] = found(f"npmrc{NPM_LINE}")
    assert kind == "npm-token" and span == NPM_LINE


def test_a_quoted_aws_secret_holding_a_key_id_is_one_finding_whole() -> None:
    # named by "password", not "secret": only the quoted rule finds it; the key id inside starts later
    secret = "wJalrXUtnFEMI/AKIAIOSFODNN7EXAMPLXbPxRfi"
    assert found(f'The AWS password is "{secret}".') == [("aws-secret-key", secret)]


@pytest.mark.parametrize(
    "token",
    [
        "github_pat_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op",
        "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
    ],
)
def test_a_slack_webhook_whose_last_part_is_a_token_is_one_webhook_finding(token: str) -> None:
    # the webhook starts first: the token at its end is part of it, and the URL is covered whole
    text = f"hook https://hooks.slack.com/services/T00000000/B00000000/{token} ok"
    [(kind, span)] = found(text)
    assert kind == "slack-webhook" and span.startswith("https://") and span.endswith(token[-8:])


def test_a_credential_far_after_a_name_holding_two_keywords_is_found() -> None:
    # "secret" and "token" are in one name, with no value: the search goes on past both
    text = "Set secret_token_name first." + " Then wait a while." * 30 + " password=s3cr3tXyz9"
    assert found(text) == [("credential", "s3cr3tXyz9")]


@pytest.mark.parametrize(
    "text",
    [
        "ghp_ Ab123 Cd4567 hello Ef8901 Gh2345 Ij6789 Kl0123",  # groups of two lengths, then a word
        "ghp_Ab12Cd34Ef56 remember Gh78Ij90Kl12Mn34Op56Qr78",  # one piece, then a shorter word
        "ghp_ remember Ab12Cd34Ef56Gh78Ij90Kl12Mn34",  # one piece, then a longer word
    ],
)
def test_a_word_after_pieces_of_other_lengths_ends_a_token_in_pieces(text: str) -> None:
    assert scan(text) == []


def test_an_acca_key_id_in_pieces_is_found() -> None:
    # "ACCA" also starts with Twilio's "AC", whose SIDs are not looked for in pieces
    [(kind, span)] = found("id ACCA IOSF ODNN 7EXA MPLX.")
    assert kind == "aws-access-key" and span == "ACCA IOSF ODNN 7EXA MPLX"


def test_a_short_acca_in_pieces_is_not_a_finding() -> None:
    assert scan("Plan ACCA 2024 REVIEW now") == []


def test_a_word_as_long_as_the_first_piece_of_a_token_in_pieces_is_a_piece() -> None:
    text = "ghp_Ab12Cd34Ef56 abcdefghijklmnop Gh78Ij90"
    assert found(text) == [("github-token", text)]


@pytest.mark.parametrize(
    "last", ["glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "xoxb-1234567890-Ab1Cd2Ef3Gh4Ij5Kl6Mn7"], ids=["gitlab", "slack"]
)
def test_a_slack_webhook_whose_last_part_starts_with_a_token_prefix_is_one_webhook(last: str) -> None:
    # the token a prefix starts inside the URL is part of it: the URL is the secret, named as such
    url = "https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/" + last
    assert found(f"POST to {url}\n") == [("slack-webhook", url)]


def test_an_anthropic_key_holding_openais_marker_is_an_anthropic_key() -> None:
    key = "sk-ant-api03-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv" + "T3BlbkFJ" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn"
    assert found(f"ANTHROPIC_API_KEY={key}\n") == [("anthropic-api-key", key)]


def test_a_vault_token_whose_body_starts_with_an_openai_prefix_is_a_vault_token() -> None:
    token = "hvs.sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    assert found(f"VAULT_TOKEN={token}\n") == [("vault-token", token)]
