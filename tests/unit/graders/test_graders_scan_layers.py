"""What the scan adds over the secret and personal-data rules: spelt-out and base64-wrapped values,
the strongest of overlapping findings, and masking a window of an answer."""

from __future__ import annotations

import base64

import pytest

from proctor.graders import scan
from proctor.graders._scan import _strongest, mask_findings

AWS = "AKIAIOSFODNN7EXAMPLE"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_value_spelt_one_character_at_a_time_is_found_where_it_is_written() -> None:
    answer = "key: " + " ".join(AWS) + "."
    [f] = scan(answer)
    assert (f.kind, f.detail, f.redacted) == (
        "aws-access-key",
        "AWS Access Key, spelt out",
        "AKIA************MPLE",
    )
    assert (f.start, f.end) == (5, answer.index("."))


@pytest.mark.parametrize("prefix", ["", " ", "a ", "ab ", "abc ", "key: "])
@pytest.mark.parametrize("padded", [True, False])
def test_a_base64_wrapped_key_is_found_whatever_its_length_and_padding(prefix: str, padded: bool) -> None:
    run = b64(prefix + AWS)
    run = run if padded else run.rstrip("=")
    answer = f"blob {run} end"
    [f] = scan(answer)
    assert (f.kind, f.detail) == ("aws-access-key", "AWS Access Key, base64")
    assert (f.start, f.end) == (5, 5 + len(run))
    assert f.redacted == "AKIA************MPLE"


def test_base64_is_unwrapped_two_levels_deep_and_no_deeper() -> None:
    [f] = scan("x " + b64(b64(AWS)))
    assert (f.kind, f.detail) == ("aws-access-key", "AWS Access Key, base64, base64")
    assert scan("x " + b64(b64(b64(AWS)))) == []


def test_a_run_that_is_not_base64_text_does_not_hide_a_later_one() -> None:
    # a hex digest decodes to bytes that are not text; the wrapped key after it is still found
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    assert [f.kind for f in scan(f"sha {digest} and {b64(AWS)}")] == ["aws-access-key"]


def test_a_base64_run_is_read_up_to_64_kib_and_a_longer_one_is_skipped_not_the_rest() -> None:
    def run_of(size: int) -> str:
        filler = "x" * (size // 4 * 3 - len(AWS) - 1)
        run = b64(f"{AWS} {filler}")
        assert len(run) == size
        return run

    longest = run_of(1 << 16)
    found = scan(f"blob: {longest}")
    assert [(f.kind, f.start, f.end) for f in found] == [("aws-access-key", 6, 6 + len(longest))]
    too_long = run_of((1 << 16) + 4)
    assert scan(f"blob: {too_long}") == []
    # a skipped run does not end the scan of the runs after it
    assert [f.kind for f in scan(f"blob: {too_long} then {b64('key: ' + AWS)}")] == ["aws-access-key"]


def test_http_basic_credentials_need_eight_characters_of_user_colon_password() -> None:
    [f] = scan("Authorization: Basic " + b64("u:Xk9mPq"))
    assert (f.kind, f.redacted, f.start, f.end) == ("basic-auth", "********", 21, 33)
    assert f.detail == "HTTP Basic credentials, base64"
    assert scan("Authorization: BASIC " + b64("u:Xk9mPq"))[0].kind == "basic-auth"
    assert scan("Authorization: Basic " + b64("u:Xk9mP")) == []  # 7 characters: too short to be one
    assert scan("Authorization: Basic " + b64("just some words here")) == []  # no user:password
    assert scan("Authorization: Basic " + b64("svc:${PASSWORD}")) == []  # a placeholder


def test_a_base64_user_password_pair_is_a_credential() -> None:
    [f] = scan("creds " + b64("deploy:Xk9mPq2vL7wZ") + " in the runbook")
    assert (f.kind, f.detail, f.redacted) == ("credential", "user:password, base64", "********")


def test_decoded_text_may_have_line_breaks_but_not_control_characters() -> None:
    assert [f.kind for f in scan("x " + b64(f"line one\n{AWS}\r\n\tend"))] == ["aws-access-key"]


def test_of_overlapping_findings_the_strongest_then_the_earliest_then_the_longest_is_kept() -> None:
    raw = [
        (0, 10, 50, "weak", "", None),
        (5, 15, 90, "strong", "", None),
        (20, 30, 50, "short", "", None),
        (20, 35, 50, "long", "", None),
        (35, 40, 10, "adjacent", "", None),
        (14, 21, 10, "straddles", "", None),
        (40, 41, 10, "after", "", None),
        (3, 6, 10, "inside", "", None),
    ]
    assert [f[3] for f in _strongest(raw)] == ["strong", "long", "adjacent", "after"]
    # findings that only touch are both kept, in text order
    assert [f[3] for f in _strongest([(5, 9, 2, "b", "", None), (0, 5, 1, "a", "", None)])] == ["a", "b"]
    assert [f[3] for f in _strongest([(0, 5, 2, "a", "", None), (5, 9, 1, "b", "", None)])] == ["a", "b"]


def test_a_private_key_block_wins_over_the_tokens_inside_it() -> None:
    body = "MIIEpAIBAAKCAQEA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp"
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{AWS}\n-----END RSA PRIVATE KEY-----"
    assert [f.kind for f in scan(f"key:\n{block}\n")] == ["private-key"]


TEXT = "Mail jane.doe@acme.com the key AKIAIOSFODNN7EXAMPLE."


@pytest.mark.parametrize(
    ("start", "end", "masked"),
    [
        (0, len(TEXT), "Mail [email: j***@a***.com] the key [aws-access-key: AKIA************MPLE]."),
        (0, 5, "Mail "),  # ends where the address starts
        (22, 31, " the key "),  # between the two findings, touching both
        (25, 31, "e key "),  # after the address, before the key
        (10, 31, "[email: j***@a***.com] the key "),  # starts inside the address
        (0, 10, "Mail [email: j***@a***.com]"),  # ends inside it
        (5, 51, "[email: j***@a***.com] the key [aws-access-key: AKIA************MPLE]"),
    ],
)
def test_a_window_of_an_answer_is_masked_wherever_it_cuts(start: int, end: int, masked: str) -> None:
    assert mask_findings(TEXT, start, end) == masked
    assert mask_findings("nothing to hide here", 3, 10) == "hing to"


@pytest.mark.parametrize("prefix", ["ke? ", "~~~ ", "k?? ", "?>? "])
@pytest.mark.parametrize("urlsafe", [False, True])
def test_base64_with_either_alphabets_symbols_is_unwrapped(prefix: str, urlsafe: bool) -> None:
    raw = (prefix + AWS).encode()
    run = (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()
    assert set(run) & (set("-_") if urlsafe else set("+/"))  # the alphabet's own symbols are in it
    [f] = scan(f"blob {run}")
    assert (f.kind, f.detail, f.start, f.end) == ("aws-access-key", "AWS Access Key, base64", 5, 5 + len(run))


def test_a_run_mixing_both_alphabets_is_not_base64() -> None:
    # "+" from one alphabet, "_" from the other: read with either one it is the key, but it is neither
    run = base64.b64encode(b"~~~ " + AWS.encode() + b" k??").decode().replace("/", "_")
    assert "+" in run and "_" in run and "/" not in run
    assert [f.detail for f in scan(f"blob {run}") if "base64" in f.detail] == []


def test_a_base64_pair_assigned_to_a_password_is_read_as_the_assignment() -> None:
    # the assignment and the decoded pair cover the same value with the same strength: the
    # assignment, found first, is the one reported
    [f] = scan("password: " + b64("deploy:Xk9mPq2vL7wZ"))
    assert (f.kind, f.detail, f.start, f.end) == ("credential", "password or secret assignment", 10, 38)
