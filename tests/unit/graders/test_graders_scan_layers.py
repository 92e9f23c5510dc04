"""What the scan adds over the secret and personal-data rules: spelt-out and base64-wrapped values,
the strongest of overlapping findings, and masking a window of an answer."""

from __future__ import annotations

import base64
import itertools
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.profile import SafetyScanSpec
from proctor.graders import scan
from proctor.graders._redact import Finding
from proctor.graders._scan import _MAX_B64_RUN, _Candidate, _cover, mask_findings
from proctor.graders._scanpolicy import ScanPolicy

AWS = "AKIAIOSFODNN7EXAMPLX"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_value_spelt_one_character_at_a_time_is_found_where_it_is_written() -> None:
    answer = "key: " + " ".join(AWS) + "."
    [f] = scan(answer)
    assert (f.kind, f.detail, f.redacted) == (
        "aws-access-key",
        "AWS Access Key, spelt out",
        "AKIA************MPLX",
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
    assert f.redacted == "AKIA************MPLX"


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


TEXT64 = "x" * 80


def reading(start: int, end: int, priority: int, kind: str) -> _Candidate:
    return _Candidate(start, end, priority, Finding(kind, "", start, end))


def test_of_overlapping_findings_the_strongest_then_the_earliest_then_the_longest_is_reported() -> None:
    raw = [
        reading(0, 10, 50, "weak"),
        reading(5, 15, 90, "strong"),
        reading(20, 30, 50, "short"),
        reading(20, 35, 50, "long"),
        reading(35, 40, 10, "adjacent"),
        reading(14, 21, 10, "straddles"),
        reading(40, 41, 10, "after"),
        reading(3, 6, 10, "inside"),
    ]
    # each reported finding also covers the weaker readings it overlaps
    assert [(f.kind, f.start, f.end) for f in _cover(raw, TEXT64)] == [
        ("strong", 0, 20),
        ("long", 20, 35),
        ("adjacent", 35, 40),
        ("after", 40, 41),
    ]
    # findings that only touch are both kept, in text order
    assert [f.kind for f in _cover([reading(5, 9, 2, "b"), reading(0, 5, 1, "a")], TEXT64)] == ["a", "b"]
    assert [f.kind for f in _cover([reading(0, 5, 2, "a"), reading(5, 9, 1, "b")], TEXT64)] == ["a", "b"]


def test_a_weaker_reading_across_two_findings_fills_the_gap_between_them() -> None:
    raw = [
        reading(0, 4, 90, "a"),
        reading(10, 14, 90, "b"),
        reading(2, 12, 10, "weak"),
        reading(20, 24, 5, "c"),
    ]
    assert [(f.kind, f.start, f.end) for f in _cover(raw, TEXT64)] == [
        ("a", 0, 10),
        ("b", 10, 14),
        ("c", 20, 24),
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 60), st.integers(1, 12), st.integers(-5, 5)).map(
            lambda t: reading(t[0], t[0] + t[1], t[2], f"k{t[0]}-{t[1]}-{t[2]}")
        ),
        max_size=12,
    ),
    st.text(alphabet="x. ", min_size=80, max_size=80),
)
def test_the_findings_reported_are_disjoint_and_cover_every_letter_of_every_reading(
    raw: list[_Candidate], text: str
) -> None:
    reported = _cover(raw, text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(reported))
    covered = {i for f in reported for i in range(f.start, f.end)}
    read = {i for c in raw for i in range(c.start, c.end)}
    assert {i for i in read if text[i] == "x"} <= covered <= read
    if raw:
        top = max(c.priority for c in raw)
        assert any(c.priority == top and c.finding.kind == f.kind for f in reported for c in raw)


def test_a_part_of_a_weaker_reading_with_no_letter_or_digit_leaves_the_span_as_it_is() -> None:
    text = "token glpat.. and"
    raw = [reading(6, 11, 90, "token"), reading(6, 13, 60, "credential"), reading(0, 7, 10, "word")]
    assert [(f.kind, f.start, f.end) for f in _cover(raw, text)] == [("token", 0, 11)]


SLACK = "https://hooks.slack.com/services/T00000000/B00000000/"
GITLAB = "glpat-Xk9mPq2vL7wZ3rT8nB4s"


@pytest.mark.parametrize(
    ("answer", "secret_tail"),
    [
        # a webhook URL whose last part is a GitLab token: the URL is the stronger reading
        (f"hook {SLACK}{GITLAB} end", GITLAB[5:]),
        # a password whose value runs into an access key
        (f"password=Xk9mPq2vL7wZ-{AWS}x done", "Xk9mPq2vL7wZ"),
    ],
)
def test_no_part_of_an_overlapping_weaker_finding_is_left_in_clear(answer: str, secret_tail: str) -> None:
    masked = mask_findings(answer, 0, len(answer))
    assert secret_tail not in masked
    assert masked.endswith((" end", " done"))
    [f] = scan(answer)
    assert answer[f.end :] in (" end", " done")


def test_a_reading_left_out_by_the_profile_never_hides_a_secret_it_overlaps() -> None:
    # the documented example webhook is allowed; the token that runs on from it is still a secret
    answer = f"hook {SLACK}{GITLAB} end"
    policy = ScanPolicy.from_spec(SafetyScanSpec(allow=[re.escape(SLACK + "glpat")]))
    assert [(f.kind, answer[f.start : f.end]) for f in policy.findings(answer)] == [("gitlab-token", GITLAB)]
    both = ScanPolicy.from_spec(SafetyScanSpec(allow=[re.escape(SLACK + "glpat"), re.escape(GITLAB)]))
    assert both.findings(answer) == ()


def test_a_private_key_block_wins_over_the_tokens_inside_it() -> None:
    body = "MIIEpAIBAAKCAQEA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp"
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{AWS}\n-----END RSA PRIVATE KEY-----"
    assert [f.kind for f in scan(f"key:\n{block}\n")] == ["private-key"]


TEXT = "Mail jane.doe@acme.com the key AKIAIOSFODNN7EXAMPLX."


@pytest.mark.parametrize(
    ("start", "end", "masked"),
    [
        (0, len(TEXT), "Mail [email: j***@a***.com] the key [aws-access-key: AKIA************MPLX]."),
        (0, 5, "Mail "),  # ends where the address starts
        (22, 31, " the key "),  # between the two findings, touching both
        (25, 31, "e key "),  # after the address, before the key
        (10, 31, "[email: j***@a***.com] the key "),  # starts inside the address
        (0, 10, "Mail [email: j***@a***.com]"),  # ends inside it
        (5, 51, "[email: j***@a***.com] the key [aws-access-key: AKIA************MPLX]"),
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


def test_a_weaker_reading_before_a_finding_with_a_gap_is_a_finding_of_its_own() -> None:
    raw = [reading(5, 9, 90, "strong"), reading(0, 3, 1, "before")]
    assert [(f.kind, f.start, f.end) for f in _cover(raw, TEXT64)] == [("before", 0, 3), ("strong", 5, 9)]


@pytest.mark.parametrize(
    ("text", "raw", "spans"),
    [
        # punctuation before the finding
        ("--xxxx", [reading(2, 6, 90, "k"), reading(0, 6, 10, "w")], [(2, 6)]),
        # punctuation between two findings
        (
            "xx--xx",
            [reading(0, 2, 90, "a"), reading(4, 6, 90, "b"), reading(0, 6, 10, "w")],
            [(0, 2), (4, 6)],
        ),
        # letters between two findings: the gap is masked
        (
            "xxyyxx",
            [reading(0, 2, 90, "a"), reading(4, 6, 90, "b"), reading(0, 6, 10, "w")],
            [(0, 4), (4, 6)],
        ),
    ],
)
def test_only_letters_and_digits_of_a_weaker_reading_grow_a_finding(
    text: str, raw: list[_Candidate], spans: list[tuple[int, int]]
) -> None:
    assert [(f.start, f.end) for f in _cover(raw, text)] == spans


def hexed(text: str) -> str:
    return text.encode().hex()


def test_an_encoded_run_is_read_up_to_its_size_cap_and_no_further() -> None:

    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    body = f"token {token} "
    fill = (_MAX_B64_RUN // 2) - len(body)
    at_cap = hexed(body + "x" * fill)
    assert len(at_cap) == _MAX_B64_RUN
    assert [f.kind for f in scan(f"blob {at_cap} end")] == ["github-token"]
    over = hexed(body + "x" * (fill + 1))
    assert scan(f"blob {over} end") == []
    for encode in (
        lambda t: "".join(f"%{b:02X}" for b in t.encode()),
        lambda t: "".join(f"\\x{b:02x}" for b in t.encode()),
    ):
        run = encode(body)
        per_byte = len(run) // len(body.encode())
        pad = (_MAX_B64_RUN - len(run)) // per_byte
        assert [f.kind for f in scan("q " + encode(body + "x" * pad) + " end")] == ["github-token"]
        assert scan("q " + encode(body + "x" * (pad + 1)) + " end") == []


@pytest.mark.parametrize(
    ("text", "how"),
    [
        ("q=%41%4B%49%41IOSFODNN7Q3ZT7KP ok", "percent-encoded"),
        ("q=%41KIAIOSFODNN7Q3ZT7KP ok", "percent-encoded"),  # one escape hides the prefix
        ("q=A%4B%49%41IOSFODNN7Q3ZT7KP ok", "percent-encoded"),
        ("k \\u0041KIAIOSFODNN7Q3ZT7KP", "\\u-escaped"),
        ("k \\x41KIAIOSFODNN7Q3ZT7KP", "\\x-escaped"),
        ("k AK\\x49AIOSFODNN7Q3ZT7KP.", "\\x-escaped"),
    ],
)
def test_one_escape_in_a_word_is_enough_to_read_it_decoded(text: str, how: str) -> None:
    # a threshold of four escapes let "%41KIA..." (AKIA...) through as written
    [f] = scan(text)
    assert (f.kind, f.detail) == ("aws-access-key", f"AWS Access Key, {how}")


@pytest.mark.parametrize(
    "text",
    [
        "https://x.io/search?q=hello%20world&lang=en",
        "50%off and 100%25",
        "caf\\xc3\\xa9 ok",
        "the file a%2Fb%2Fc.txt",
    ],
)
def test_ordinary_escapes_are_no_finding(text: str) -> None:
    assert scan(text) == []


def percented(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


@pytest.mark.parametrize(
    "encode",
    [
        percented,
        lambda t: "".join(f"\\x{b:02x}" for b in t.encode()),
        lambda t: "".join(f"\\u{ord(c):04x}" for c in t),
        lambda t: "".join(f"&#{ord(c)};" for c in t),
    ],
)
def test_decoded_text_as_short_as_an_address_is_read_and_shorter_is_not(encode: Callable[[str], str]) -> None:
    # the shortest finding is an address of six characters; decoded text of seven was not read
    assert [f.kind for f in scan(f"id {encode('a@b.io')} ok")] == ["email"]
    assert [f.kind for f in scan(f"id {encode('a@cd.io')} ok")] == ["email"]
    assert scan(f"id {encode('a@b.i')} ok") == []


def test_decoded_text_of_eight_characters_is_read() -> None:
    assert [f.kind for f in scan(f"id {percented('ab@cd.io')} ok")] == ["email"]
    # line breaks and tabs in decoded text are text
    assert [f.kind for f in scan(f"id {percented('mail:' + chr(10) + chr(9) + 'ab@cd.io')} ok")] == ["email"]


def test_encodings_are_read_two_levels_deep_and_no_deeper() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    one = b64(f"token={token}")
    assert [f.kind for f in scan(f"x {hexed(one)} y")] == ["github-token"]  # hex of base64
    assert scan(f"x {hexed(b64(one))} y") == []  # hex of base64 of base64: three levels


def test_the_preview_of_an_encoded_token_is_the_tokens() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    [f] = scan(f"blob {hexed(token)} end")
    assert f.redacted == "ghp_****************q7R8"
    assert f.detail == "GitHub Token, hex"


def test_a_basic_authorization_header_is_found_on_its_base64_part() -> None:
    value = b64("admin:hunter2xY9")
    answer = f"Authorization: Basic {value}"
    [f] = scan(answer)
    assert (f.kind, answer[f.start : f.end]) == ("basic-auth", value)


def test_a_base64_user_password_pair_after_a_secret_keyword_is_the_assignment() -> None:
    value = b64("deploy:Xk9mPq2vL7wZ")
    [f] = scan(f"secret: {value}")
    assert (f.kind, f.detail) == ("credential", "password or secret assignment")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("mail jane&#64;acme.com now", "email"),
        ("mail jane&#x40;acme.com", "email"),
        ("mail jane&commat;acme.com", "email"),
        ("key &#65;&#75;&#73;&#65;IOSFODNN7Q3ZT7KP", "aws-access-key"),
        ("mail jane%40acme.com", "email"),  # one percent escape, for the @ of an address
    ],
)
def test_html_character_references_and_an_encoded_at_hide_nothing(text: str, kind: str) -> None:
    assert [f.kind for f in scan(text)] == [kind]


@pytest.mark.parametrize("text", ["AT&amp;T and R&amp;D", "Tom &amp; Jerry, 5 &lt; 6", "a%40b"])
def test_ordinary_entities_are_no_finding(text: str) -> None:
    assert scan(text) == []


GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    ("encode", "how"),
    [
        (lambda t: "".join(f"\\u{ord(c):04x}" for c in t), "\\u-escaped"),  # JSON, JavaScript, Java
        (lambda t: "\\u0067\\u0068\\u0070\\u005f" + t[4:], "\\u-escaped"),  # the prefix escaped only
        (lambda t: " ".join(f"{b:02x}" for b in t.encode()), "hex bytes"),
        (lambda t: ", ".join(f"0x{b:02X}" for b in t.encode()), "hex bytes"),  # a C array
        (lambda t: ",".join(f"0x{b:02x}" for b in t.encode()), "hex bytes"),
        (lambda t: ":".join(f"{b:02X}" for b in t.encode()), "hex bytes"),
        (lambda t: "[" + ", ".join(str(ord(c)) for c in t) + "]", "character codes"),  # fromCharCode
        (lambda t: ",".join(str(ord(c)) for c in t), "character codes"),
    ],
)
def test_a_token_in_escapes_bytes_or_character_codes_is_found_on_the_whole_run(
    encode: Callable[[str], str], how: str
) -> None:
    run = encode(GH)
    answer = f"value: {run} end"
    [f] = scan(answer)
    written = run.strip("[]")  # the finding is the codes, not the brackets around them
    assert (f.kind, f.detail, answer[f.start : f.end]) == ("github-token", f"GitHub Token, {how}", written)
    assert f.redacted == "ghp_****************q7R8"


@pytest.mark.parametrize(
    "text",
    [
        '{"city": "\\u00e9t\\u00e9 \\u00e0 Paris", "n": "\\u0031\\u0032\\u0033\\u0034"}',  # escaped text
        "\\u0041\\u004b\\u0049IOSFODNN7Q3ZT7KP",  # "AKIIOSF...": no key once decoded
        "MAC 00:1A:2B:3C:4D:5E, fingerprint AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89",
        "readings 12, 45, 78, 90, 33, 21, 56, 87, 65, 43, 98, 100 and 7",  # figures, not characters
        "codes 103,104,112,95,97,66,51,100,69",  # nine codes: too few
        "1 + 2 = 3 and 4 + 5 = 9 and 6 + 1 = 7",
    ],
)
def test_escaped_text_figures_and_fingerprints_are_no_finding(text: str) -> None:
    assert scan(text) == []


def test_a_token_spelt_one_character_at_a_time_keeps_its_punctuation() -> None:
    # "_" and "-" are characters of the token here, not the separators between them
    answer = "token: " + " ".join(GH) + "\nthanks"
    [f] = scan(answer)
    assert (f.kind, f.detail) == ("github-token", "GitHub Token, spelt out")
    assert answer[f.start : f.end] == " ".join(GH)
    anthropic = "sk-ant-api03-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9r"
    anthropic += "S1tU3vW5xY7zA9bC1dE3fG5hJ7kL9mN1pQ3rS5tU-AAAAAA"
    for end in (".", ",", ").", '".', "?"):  # the sentence's stop after the last character
        text = f'It is ("{" ".join(GH)}{end} Thanks'
        assert [f.kind for f in scan(text)] == ["github-token"], end
        codes = ",".join(str(ord(c)) for c in GH)
        assert [f.kind for f in scan(f"Codes: {codes}{end} Thanks")] == ["github-token"], end
    by_lines = "\n".join(anthropic)  # a character a line
    assert [f.kind for f in scan(f"key:\n{by_lines}\n")] == ["anthropic-api-key"]


@pytest.mark.parametrize(
    ("text", "kind", "said"),
    [
        (
            "Call four one five, five five five, two six seven one today.",
            "phone",
            "four one five, five five five, two six seven one",
        ),
        (
            "CALL FOUR ONE FIVE - FIVE FIVE FIVE - TWO SIX SEVEN ONE",
            "phone",
            "FOUR ONE FIVE - FIVE FIVE FIVE - TWO SIX SEVEN ONE",
        ),
        (
            "ring oh two oh dash seven nine four six dash oh nine five eight",
            "phone",
            "oh two oh dash seven nine four six dash oh nine five eight",
        ),
        (
            "SSN five three six, two two, eight seven five one",
            "national-id",
            "five three six, two two, eight seven five one",
        ),
        (
            "card four one one one one one one one one one one one one one one one, thanks",
            "credit-card",
            "four one one one one one one one one one one one one one one one",
        ),
        (
            "card four one double one, one one one one, one one one one, one one one one",
            "credit-card",
            "four one double one, one one one one, one one one one, one one one one",
        ),
    ],
)
def test_a_number_read_out_in_words_is_read_as_its_digits(text: str, kind: str, said: str) -> None:
    [f] = scan(text)
    assert (f.kind, text[f.start : f.end]) == (kind, said)
    assert f.detail.endswith(", in words")


@pytest.mark.parametrize(
    "text",
    [
        "Five, four, three, two, one, zero: liftoff!",  # too few
        "one two three four five six seven eight nine",  # counting: no number of any kind
        "Steps one, two and three; then four, five, six, seven, eight and nine.",
        "ONE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN",
    ],
)
def test_counting_in_words_is_no_finding(text: str) -> None:
    assert scan(text) == []


def test_a_word_with_no_escape_is_read_as_written_only() -> None:
    # a word of the escapes' alphabet with none in it is not a decoded reading of itself, which
    # would report the whole word ("AKIA.../prod") under an encoding it does not have
    for tail in ("and \\u00e9", "50%25", "\\xe9", "&zzz;"):
        text = f"key AKIAIOSFODNN7EXAMPLX/prod.x {tail}"
        [f] = scan(text)
        assert (f.detail, text[f.start : f.end]) == ("AWS Access Key", "AKIAIOSFODNN7EXAMPLX"), tail
    # an unknown reference decodes to itself: no decoded reading either
    text = "x &zzz;AKIAIOSFODNN7EXAMPLX y"
    [f] = scan(text)
    assert (f.detail, text[f.start : f.end]) == ("AWS Access Key", "AKIAIOSFODNN7EXAMPLX")


def test_references_are_decoded_whatever_the_first_one_decodes_to() -> None:
    # "!" sorts before "&": the decoded text compares lower than the written one, and is still read
    text = "x &#33;AK&#73;AIOSFODNN7EXAMPLX y"
    [f] = scan(text)
    assert (f.kind, f.detail) == ("aws-access-key", "AWS Access Key, HTML entities")


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: "".join(f"&#{ord(c)};" for c in t),
        lambda t: "".join(f"\\u{ord(c):04x}" for c in t),
        lambda t: " ".join(f"{b:02x}" for b in t.encode()),
        lambda t: ",".join(str(ord(c)) for c in t),
        percented,
        lambda t: "".join(f"\\x{b:02x}" for b in t.encode()),
    ],
)
def test_an_encoded_run_far_into_a_long_answer_is_read(encode: Callable[[str], str]) -> None:
    # each run's length is its end minus its start, wherever it starts
    text = "word " * 15_000 + encode(GH) + " end"
    assert [f.kind for f in scan(text)] == ["github-token"]


def test_character_codes_are_printable_ascii_and_a_space_is_one() -> None:
    codes = [ord(c) for c in "token " + GH]
    assert [f.kind for f in scan("c " + ",".join(map(str, codes)) + " end")] == [
        "github-token"
    ]  # 32 is a space
    for odd in (127, 233, 31):  # DEL, a code past ASCII, a control: the run is no text
        assert scan("c " + ",".join(map(str, [*codes, odd])) + " end") == [], odd


def test_a_run_of_character_codes_at_the_size_cap_is_read_and_past_it_is_not() -> None:
    body = ",".join(str(ord(c)) for c in "jane@acme.io x")
    rest = _MAX_B64_RUN - len(body)
    fours = rest % 3  # ",120" is 4 characters and ",97" 3: 3 * threes + 4 * fours == rest
    run = body + ",120" * fours + ",97" * ((rest - 4 * fours) // 3)
    assert len(run) == _MAX_B64_RUN
    assert [f.kind for f in scan(f"c {run} end")] == ["email"]
    assert scan(f"c {run},97 end") == []


def test_a_number_said_across_a_gap_of_ten_characters_is_one_number() -> None:
    # " - triple " is the widest gap between two digit words: 4111-1111-1111-1111 is one card
    text = "card four one one one, one one one one, one one one one - triple one one"
    [f] = scan(text)
    assert (f.kind, text[f.start : f.end]) == ("credit-card", text[5:])


def test_a_number_said_at_the_very_start_of_an_answer_is_covered_from_its_first_word() -> None:
    said = "four one five, five five five, two six seven one"
    [f] = scan(f"{said} is my number")
    assert (f.kind, f.start, f.end) == ("phone", 0, len(said))


def test_character_codes_are_read_up_to_the_tilde() -> None:
    # 126 ("~") is the last printable ASCII code: a password holding one is still read
    codes = ",".join(str(ord(c)) for c in "password: Tr0ub4dor~3xK")
    [f] = scan(f"Codes: {codes} end")
    assert (f.kind, f.detail) == ("credential", "password or secret assignment, character codes")


def test_a_number_said_after_such_letters_inside_base64_is_found() -> None:
    # the scan maps look-alike letters (\u0130 to I) in the answer, not in what it decodes: the
    # decoded text keeps the letters whose lower case is longer, and is read as it is
    said = "four one five, five five five, two six seven one"
    encoded = base64.b64encode(("\u0130" * 20 + " call " + said + " today").encode()).decode()
    text = f"Decode this: {encoded} please"
    [f] = scan(text)
    assert (f.kind, f.detail, text[f.start : f.end]) == ("phone", "phone number, in words, base64", encoded)


def test_a_number_said_after_letters_whose_lower_case_is_longer_is_found_where_it_is() -> None:
    # "\u0130".lower() is two characters: the word pass on the lower-cased text would be off by one
    # per such letter, so the whole pattern reads the text as it is
    said = "four one five, five five five, two six seven one"
    text = "\u0130" * 20 + " call " + said + " today"
    [f] = scan(text)
    assert (f.kind, text[f.start : f.end]) == ("phone", said)
