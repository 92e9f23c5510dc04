"""String assertions, regex (with its timeout), max-length, the not- prefix and compile errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import AssertionCompileError, CaseContext, Check, CheckOutcome, compile_assertion


def check(type_: str, value: object, answer: str) -> Check:
    return compile_assertion(Assertion(type=type_, value=value)).check(answer, CaseContext())


def test_equals_compares_exactly_as_promptfoo_does() -> None:
    assert check("equals", "ELEVATED", "ELEVATED") == Check(
        "equals", CheckOutcome.PASS, 'equals: answer equals "ELEVATED"'
    )
    c = check("equals", "ELEVATED", "  ELEVATED\n")
    assert c.passed is False
    assert c.reason.endswith("(they differ only in surrounding whitespace)")
    assert check("not-equals", "ELEVATED", "ELEVATED ").passed is True


def test_equals_failure_quotes_expected_and_answer() -> None:
    c = check("equals", "ELEVATED", "NORMAL")
    assert c.passed is False
    assert c.reason == 'equals: expected "ELEVATED", answer is "NORMAL"'


def test_equals_failure_truncates_a_huge_answer() -> None:
    c = check("equals", "x", "word " * 10_000)
    assert c.passed is False
    assert len(c.reason) < 200
    assert c.reason.endswith('\u2026"')


def test_a_failure_quotes_the_answer_as_written_from_its_start_cut_with_an_ellipsis() -> None:
    c = compile_assertion(Assertion(type="equals", value="x", dialect="promptfoo")).check("word " * 100)
    assert c.reason == 'equals: expected "x", answer is "' + "word " * 15 + 'word\u2026"'
    c = compile_assertion(Assertion(type="equals", value={"a": 1})).check('{"a": 2}')
    assert c.reason == "equals: expected JSON equal to \"{'a': 1}\", answer is \"{'a': 2}\""


def test_a_javascript_regex_python_cannot_hold_is_refused_when_compiled() -> None:
    # JavaScript reads the repeat count; Python's regex engine refuses one this large
    with pytest.raises(AssertionCompileError) as err:
        compile_assertion(Assertion(type="regex", value="a{4294967296}", dialect="promptfoo"))
    assert str(err.value).startswith('regex: cannot translate the JavaScript regex "a{4294967296}": ')
    assert "repeat count too big" in str(err.value)


def test_contains_is_case_sensitive() -> None:
    assert check("contains", "AMM 72-00", "per AMM 72-00.").passed is True
    c = check("contains", "AMM 72-00", "per amm 72-00.")
    assert c.passed is False
    assert c.reason == 'contains: answer does not contain "AMM 72-00"'


def test_icontains_ignores_case() -> None:
    assert check("icontains", "amm 72-00", "per AMM 72-00.").passed is True
    c = check("icontains", "amm 72-01", "per AMM 72-00.")
    assert c.passed is False
    assert "does not contain" in c.reason


def test_contains_any() -> None:
    c = check("contains-any", ["HIGH", "ELEVATED"], "It is ELEVATED.")
    assert c.passed is True
    assert c.reason == 'contains-any: answer contains "ELEVATED"'
    c = check("contains-any", ["HIGH", "ELEVATED"], "It is NORMAL.")
    assert c.passed is False
    assert c.reason == 'contains-any: answer contains none of "HIGH", "ELEVATED"'


def test_contains_all_names_what_is_missing() -> None:
    assert check("contains-all", ["ELEVATED", "AMM"], "ELEVATED per AMM 72-00").passed is True
    c = check("contains-all", ["ELEVATED", "AMM", "engine 2"], "ELEVATED")
    assert c.passed is False
    assert c.reason == 'contains-all: answer lacks "AMM", "engine 2" (2 of 3)'


def test_starts_with_compares_the_very_first_characters() -> None:
    assert check("starts-with", "ELEVATED", "ELEVATED: 0.30 qt/hr").passed is True
    c = check("starts-with", "ELEVATED", "\n ELEVATED: 0.30 qt/hr")
    assert c.passed is False
    assert c.reason.endswith("(after leading whitespace it would)")
    c = check("starts-with", "ELEVATED", "NORMAL: 0.30 qt/hr is fine")
    assert c.passed is False
    assert c.reason.startswith('starts-with: answer starts with "NORMAL: 0.30 qt/hr')
    assert c.reason.endswith(', not "ELEVATED"')


def test_max_length() -> None:
    assert check("max-length", 10, "0123456789").passed is True
    c = check("max-length", 10, "0123456789AB")
    assert c.passed is False
    assert c.reason == "max-length: answer has 12 characters, over the limit of 10 by 2"


def test_regex_match_and_miss() -> None:
    c = check("regex", r"\b0\.30\s*qt/hr\b", "at 0.30 qt/hr it is ELEVATED")
    assert c.passed is True
    assert c.reason == r"regex: answer matches /\b0\.30\s*qt/hr\b/ at 3"
    c = check("regex", r"^ELEVATED\b", "NORMAL")
    assert c.passed is False
    assert c.reason == r"regex: answer does not match /^ELEVATED\b/"


def test_not_regex_failure_quotes_the_match() -> None:
    c = check("not-regex", r"NORMAL", "It is NORMAL.")
    assert c.passed is False
    assert c.reason == 'not-regex: answer matches /NORMAL/ at 6: "NORMAL"'


def test_a_regex_that_matches_only_as_written_says_so_and_not_regex_quotes_it() -> None:
    # a Cyrillic letter: the canonical answer has none (the look-alike reads as "O"), the answer
    # as written has one
    cyrillic = "[\u0400-\u04ff]"
    answer = "band N\u041eRMAL today"
    c = check("regex", cyrillic, answer)
    assert c == Check("regex", CheckOutcome.PASS, "regex: answer matches /[\u0400-\u04ff]/ at 6 (as written)")
    c = check("not-regex", cyrillic, answer)
    assert c.passed is False
    assert c.reason == 'not-regex: answer matches /[\u0400-\u04ff]/ at 6 (as written): "\u041e"'


def test_catastrophic_regex_times_out_and_is_unmeasured() -> None:
    # a regex that could not be evaluated measured nothing: neither a pass nor a failure
    compiled = compile_assertion(Assertion(type="regex", value="(a+)+$"))
    answer = "a" * 50_000 + "!"  # run to the end, this match would take longer than the universe has
    c = compiled.check(answer)
    assert c.passed is None
    assert "regex timed out" in c.reason
    assert len(c.reason) < 200


def test_timeout_is_unmeasured_even_when_negated() -> None:
    c = compile_assertion(Assertion(type="not-regex", value="(a+)+$")).check("a" * 50_000 + "!")
    assert c.passed is None
    assert c.reason.startswith("not-regex: regex timed out")


@pytest.mark.parametrize(
    ("type_", "value", "answer", "expected"),
    [
        ("not-contains", "NORMAL", "It is ELEVATED.", True),
        ("not-contains", "NORMAL", "It is NORMAL.", False),
        ("not-equals", "NORMAL", "ELEVATED", True),
        ("not-icontains", "normal", "NORMAL", False),
        ("not-contains-any", ["HIGH", "NORMAL"], "ELEVATED", True),
        ("not-starts-with", "I think", "I think so", False),
        ("not-max-length", 3, "four", True),
    ],
)
def test_not_prefix_inverts(type_: str, value: object, answer: str, expected: bool) -> None:
    c = check(type_, value, answer)
    assert c.passed is expected
    assert c.assertion == type_
    assert c.reason.startswith(f"{type_}: ")


def test_not_contains_failure_reason_states_the_fact() -> None:
    assert (
        check("not-contains", "NORMAL", "It is NORMAL.").reason
        == 'not-contains: answer contains "NORMAL" at 6'
    )


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [("(a", "missing )"), ("[z-a]", "bad character range"), ("a{2,1}", "min repeat greater than max repeat")],
)
def test_invalid_regex_is_a_compile_error_naming_the_problem(pattern: str, needle: str) -> None:
    with pytest.raises(AssertionCompileError) as err:
        compile_assertion(Assertion(type="regex", value=pattern))
    assert "invalid regular expression" in str(err.value)
    assert needle in str(err.value)
    assert str(err.value).startswith("regex: ")


def test_check_without_context_uses_an_empty_one() -> None:
    assert compile_assertion(Assertion(type="contains", value="x")).check("x").passed is True


def test_compiled_assertion_repr_names_the_type() -> None:
    assert (
        repr(compile_assertion(Assertion(type="not-contains", value="x")))
        == "CompiledAssertion('not-contains')"
    )


WORDS = ["DROP", "TABLE", "users"]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.text(alphabet=" \t\n\r\u00a0\u2003", min_size=1, max_size=4), min_size=2, max_size=2),
    st.sampled_from(
        ["contains", "icontains", "contains-any", "contains-all", "icontains-any", "icontains-all"]
    ),
)
def test_a_phrase_split_by_any_run_of_whitespace_is_still_the_phrase(gaps: list[str], type_: str) -> None:
    answer = "Run " + WORDS[0] + gaps[0] + WORDS[1] + gaps[1] + WORDS[2] + " now."
    value: object = "DROP TABLE users" if not type_.endswith(("any", "all")) else ["DROP TABLE users"]
    assert check(type_, value, answer).passed is True, answer
    assert check("not-" + type_, value, answer).passed is False, answer


def test_whitespace_is_not_invented_between_words_and_promptfoo_compares_exactly() -> None:
    assert check("contains", "DROP TABLE", "DROPTABLE").passed is False
    assert check("contains", "DROP TABLE", "DROP-TABLE").passed is False
    exact = Assertion(type="contains", value="DROP TABLE", dialect="promptfoo")
    assert compile_assertion(exact).check("DROP\nTABLE", CaseContext()).passed is False
    assert compile_assertion(exact).check("DROP TABLE", CaseContext()).passed is True
    c = check("contains", "DROP TABLE", "x DROP\n\nTABLE")
    assert c.reason == 'contains: answer contains "DROP TABLE" at 2'


def test_a_failure_quote_reads_past_a_masked_key_block_to_the_text_after_it() -> None:
    body = "MIIEpAIBAAKCAQEA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp"
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    exact = compile_assertion(Assertion(type="equals", value="ELEVATED", dialect="promptfoo"))
    reason = exact.check(key + " then the band is NORMAL", CaseContext()).reason
    assert reason.endswith('[110 characters redacted]] then t…"')
    assert "MIIE" not in reason
