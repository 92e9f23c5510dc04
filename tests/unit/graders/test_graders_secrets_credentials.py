"""Credential assignments (``password: ...``, ``--token ...``) found whatever their key or value length.

The credential rules are tried only from the words a keyword is in (a speed device: the
case-insensitive keyword alternation at every word of a long answer is slow). That device must
find what the plain pattern finds: a key name of any length, a value of any length, a keyword
that starts inside the word before it.
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from proctor.graders import scan
from proctor.graders._secrets import _rule_findings, _secret_engine

VALUE = "Xk9#mPq2vL7w"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize(
    "key",
    [
        "MY_SERVICE_PRODUCTION_EU_WEST_1_DATABASE_REPLICA_READ_ONLY_REPORTING_USER_PASSWORD",
        "spring.datasource.hikari.data-source-properties.reporting.replica.password",
        "--reporting-replica-eu-west-1-read-only-batch-export-service-account-password",
    ],
)
def test_a_credential_under_a_long_key_name_is_found(key: str) -> None:
    # more than 64 characters of words before the keyword
    sep = " " if key.startswith("--") else "="
    assert found(f"export {key}{sep}{VALUE}") == [("credential", VALUE)]


def test_a_long_credential_value_is_covered_whole() -> None:
    value = VALUE * 40  # 480 characters: none of it may stay in clear
    assert found(f"password={value} end") == [("credential", value)]


def test_a_keyword_joined_to_the_word_before_it_hides_no_credential() -> None:
    # "client secret" starts inside "myclient": the assignment is still "secret: ..."
    assert found(f"the myclient secret: {VALUE}") == [("credential", VALUE)]


@pytest.mark.parametrize("gap", [" " * 64, "\n" * 64])
def test_a_credential_a_screen_of_blank_lines_after_its_key_is_found(gap: str) -> None:
    assert found(f"password ={gap}{VALUE}") == [("credential", VALUE)]


def test_a_credential_in_base64_text_whose_lower_case_is_longer_is_found() -> None:
    # decoded text is scanned as decoded: "İ" lower-cases to two characters there
    text = f"İstanbul office: password: {VALUE}"
    wrapped = base64.b64encode(text.encode()).decode()
    [f] = scan(f"config {wrapped} end")
    assert (f.kind, f.detail) == ("credential", "password or secret assignment, base64")
    assert VALUE not in f.redacted


_WORDS = ["the", "db", "my", "x", "prod", "spring.datasource", "client", "sub", "api", "x" * 70, "a.-" * 30]
_KEYWORDS = ["password", "secret", "token", "api_key", "client secret", "access key", "pass", "auth"]
_GLUE = ["", "_", ".", "-", "--", " ", "\n", " " * 200, "x_" * 250]
_ASSIGN = ["=", ": ", " is ", " ", '": "', '\\": \\"', " = " + " " * 64, ":\n", "  " * 70 + "= "]
_VALUES = [VALUE, "changeme", "short", VALUE * 40, "v1.2.3", "Xk9mPq2vL7w,", "${SECRET}"]

_PIECE = st.one_of(
    st.sampled_from(_WORDS), st.sampled_from(_KEYWORDS), st.sampled_from(_GLUE), st.sampled_from(_ASSIGN)
)
_ASSIGNMENT = st.tuples(
    st.lists(st.sampled_from(_WORDS + _GLUE), max_size=4),
    st.sampled_from(_KEYWORDS),
    st.sampled_from(_ASSIGN),
    st.sampled_from(_VALUES),
).map(lambda t: "".join(t[0]) + t[1] + t[2] + t[3])


@given(st.lists(st.one_of(_PIECE, _ASSIGNMENT), min_size=1, max_size=12))
# a keyword whose assignment matches only while the window cuts its value short
@example(["password", "=", "\n" + "x_" * 250 + "password: Xk9#mPq2vL7w"])
# a sentence whose first reading fails the check and whose branch passes it, read either way
@example(["password is changeme", "password: Xk9#mPq2vL7w"])
def test_the_credential_rules_find_from_their_keywords_what_they_find_everywhere(parts: list[str]) -> None:
    # the speed device (tried only from the words a keyword is in) changes nothing found
    text = "".join(parts)
    rules = [r for r in _secret_engine().rules if r.anchor is not None]
    assert rules
    for rule in rules:
        anchored = list(_rule_findings(rule, text, 0, len(text), text.lower()))
        everywhere = list(_rule_findings(rule, text, 0, len(text)))
        assert anchored == everywhere, (rule.pattern.pattern[:40], text)


@pytest.mark.parametrize(
    "text",
    [
        "mysql --password=Xk9#mPq2vL7w -h db",
        "deploy --db-password='Xk9#mPq2vL7w'",
        "cli --api-key=Xk9#mPq2vL7w",
        "psql -W --password Xk9#mPq2vL7w",
    ],
)
def test_a_command_line_flag_with_its_value_after_an_equals_sign_is_a_credential(text: str) -> None:
    [f] = scan(text)
    assert (f.kind, text[f.start : f.end]) == ("credential", VALUE)


@pytest.mark.parametrize("value", ["wo1f1%uJNkzNh2", "%h6yBA5Ts5RiZJ", "AXaxR5js&5t%l%", "pass%sword1x"])
def test_a_password_with_a_percent_sign_is_a_credential(value: str) -> None:
    assert [(f.kind, f.end - f.start) for f in scan(f"password={value}")] == [("credential", len(value))]


@pytest.mark.parametrize("value", ["%DB_PASSWORD%", "%s", "%(password)s", "%d"])
def test_a_format_or_environment_placeholder_is_not(value: str) -> None:
    assert scan(f"password={value}") == []
    assert scan(f"--password={value}") == []


@pytest.mark.parametrize("url", ["redis://:Xk9mPq2vL7w@cache:6379", "postgres://:Xk9mPq2vL7w@db/app"])
def test_a_url_password_without_a_user_name_is_found(url: str) -> None:
    [f] = scan(f"connect to {url} now")
    assert (f.kind, f"connect to {url} now"[f.start : f.end]) == ("basic-auth", "Xk9mPq2vL7w")
