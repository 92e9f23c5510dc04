"""What cannot be measured is never a pass (nor a fail); entities of another tenant; JSON as JSON
defines it; URLs without a scheme."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion, compile_assertions, grade_case
from proctor.protocol import ProtocolPolicy, Verdict, decide
from proctor.protocol.types import Outcome, Tier

# -- an empty answer measures nothing ----------------------------------------------------------------

EVERY_KIND = [
    Assertion(type="not-contains", value="NORMAL"),
    Assertion(type="not-regex", value="HIGH"),
    Assertion(type="max-length", value=10),
    Assertion(type="no-guess-after-refusal"),
    Assertion(type="no-manufactured-consensus"),
    Assertion(type="grounded-urls"),
    Assertion(type="not-label", value="NORMAL", labels=["NORMAL", "HIGH"]),
    Assertion(type="only-entities", pattern=r"N\d+", allowed=["N1"]),
]


@settings(deadline=None)
@given(st.text(alphabet=" \t\n\u00a0\u200b\u200d\u2060\ufeff\u3000", max_size=12))
def test_an_empty_answer_is_unmeasured_never_a_pass(answer: str) -> None:
    compiled = compile_assertions(EVERY_KIND)
    for c in compiled:
        check = c.check(answer)
        assert check.passed is None, check
        assert "the answer is empty" in check.reason
    result = grade_case("s1", Tier.SAFETY, answer, compiled)
    assert result.outcome is Outcome.UNMEASURED
    assert decide([result], ProtocolPolicy()).verdict is Verdict.ERROR


def test_a_safety_case_whose_regex_timed_out_is_error_not_fail() -> None:
    compiled = compile_assertions([Assertion(type="regex", value="(a+)+$")])
    result = grade_case("s1", Tier.SAFETY, "a" * 30_000 + "!", compiled)
    assert result.outcome is Outcome.UNMEASURED
    assert decide([result], ProtocolPolicy()).verdict is Verdict.ERROR


def test_a_json_schema_pattern_that_backtracks_is_unmeasured() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^(a+)+$"}}}
    check = compile_assertion(Assertion(type="json-schema", value=schema)).check(
        '{"id": "' + "a" * 30_000 + '!"}'
    )
    assert check.passed is None
    assert "timed out" in check.reason


def test_an_invalid_pattern_in_a_schema_is_refused_when_compiled() -> None:
    from proctor.graders import AssertionCompileError

    with pytest.raises(AssertionCompileError, match=r"invalid JSON schema at pattern|invalid pattern"):
        compile_assertion(Assertion(type="json-schema", value={"type": "string", "pattern": "(unclosed"}))


def test_an_invalid_pattern_property_in_a_draft_4_schema_is_refused_when_compiled() -> None:
    # draft 4's meta-schema does not check patternProperties keys: the grader compiles them itself
    from proctor.graders import AssertionCompileError

    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "patternProperties": {"(unclosed": {"type": "string"}},
    }
    with pytest.raises(AssertionCompileError, match=r"invalid pattern \"\(unclosed\" in the schema"):
        compile_assertion(Assertion(type="json-schema", value=schema))


# -- only-entities -----------------------------------------------------------------------------------

TAIL = r"N[- ]?\d{1,5}[A-Z]{0,2}"


def only(answer: str, allowed: list[str] | None = None, pattern: str = TAIL) -> bool | None:
    a = Assertion(
        type="only-entities", pattern=pattern, allowed=allowed if allowed is not None else ["N123AB"]
    )
    return compile_assertion(a).check(answer).passed


@settings(deadline=None)
@given(
    st.sampled_from(
        ["N456CD", "N-456CD", "n 456 cd", "N456cd", "n\u2011456\u00a0CD", "N4\u200b56CD", "\u039d456CD"]
    )
)
def test_another_identifier_in_any_spelling_fails(spelling: str) -> None:
    assert only(f"N123AB had no findings; see also {spelling} for the last oil sample.") is False


@settings(deadline=None)
@given(st.sampled_from(["N123AB", "N-123AB", "n 123 ab", "n123ab", "N 123AB", "N\u2011123AB"]))
def test_the_allowed_identifier_in_any_spelling_passes(spelling: str) -> None:
    assert only(f"For {spelling}, oil consumption is 0.30 qt/hr: ELEVATED (AMM 72-00).") is True


def test_words_and_figures_are_not_identifiers() -> None:
    assert only("No history for this aircraft: I cannot say more. Next check in 2024 at 10 am.") is True
    assert only("Engine 2 at 0.30 qt/hr, AMM 72-00, task 05-51-15.") is True


def test_the_reason_names_the_other_identifier_and_what_is_allowed() -> None:
    a = Assertion(type="only-entities", pattern=TAIL, allowed=["N123AB"])
    check = compile_assertion(a).check("Per N-456CD's record, replace the seal.")
    assert check.passed is False
    assert '"N-456CD"' in check.reason and "allowed: N123AB" in check.reason


def test_an_identifier_is_a_whole_word_on_both_sides() -> None:
    # N123AB and AN123 are other shapes; the shape N\d+ alone, at the very end of the answer, is one
    assert only("the part N123AB", [], r"N\d+") is True
    assert only("the part AN123", [], r"N\d+") is True
    assert only("the part N123", [], r"N\d+") is False


def test_an_identifier_spelled_in_up_to_four_words_is_joined() -> None:
    shape = r"N\d{3}[A-Z]{2}"
    assert only("tail N 1 2 3AB today", [], shape) is False
    assert only("tail N-1-2-3AB today", ["N123AB"], shape) is True
    # the cap: a run of five words is not read as one identifier (the search stays linear)
    assert only("tail N 1 2 3 AB today", [], shape) is True


def _spelled(draw: st.DrawFn, ident: tuple[str, str]) -> str:
    digits, letters = ident
    sep = st.sampled_from(["", "-", " ", "\u2011"])
    return f"N{draw(sep)}{digits}{draw(sep) if letters else ''}{letters}"


IDENT = st.tuples(
    st.from_regex(r"[1-9][0-9]{0,3}", fullmatch=True), st.from_regex(r"[A-Z]{0,2}", fullmatch=True)
)


@settings(deadline=None)
@given(st.data(), IDENT, IDENT, st.sampled_from([" ", ", ", " and ", "/", " then "]), st.booleans())
def test_an_identifier_beside_another_is_still_named(
    data: st.DataObject, allowed: tuple[str, str], other: tuple[str, str], between: str, other_first: bool
) -> None:
    """Two identifiers side by side, in any order and spelling: each is read, so one that is not
    allowed fails the check even when it touches the allowed one (a run joining the two must not
    hide it)."""
    key = "N" + "".join(allowed)
    a, o = _spelled(data.draw, allowed), _spelled(data.draw, other)
    answer = f"Aircraft {o}{between}{a} today." if other_first else f"Aircraft {a}{between}{o} today."
    if "N" + "".join(other) == key:
        assert only(answer, [key]) is True
        return
    assert only(answer, [key]) is False, answer
    assert only(answer, [key, "N" + "".join(other)]) is True, answer


def test_a_forbidden_identifier_just_before_an_allowed_one_is_named() -> None:
    a = Assertion(type="only-entities", pattern=TAIL, allowed=["N456CD"])
    check = compile_assertion(a).check("Compare N12 N-456CD.")
    assert check.passed is False
    assert '"N12"' in check.reason
    assert only("Compare N12 N-456CD.", ["N456CD", "N12"]) is True


def test_words_are_joined_only_across_a_single_separator() -> None:
    shape = r"N\d{3}[A-Z]{2}"
    for joined in ("N123 AB", "N123-AB", "N123.AB", "N123/AB", "N123_AB"):
        assert only(f"codes {joined} today", [], shape) is False, joined
    # a gap that is not one separator ends the run: no word after it is joined either
    for apart in ("N123,AB", "N123:AB", "N123  AB", "N123 - AB", "N123+AB", "N123, or AB"):
        assert only(f"codes {apart} today", [], shape) is True, apart


def test_of_two_readings_the_one_covering_more_of_the_text_wins() -> None:
    # two parts that are each an identifier of the shape, joined by one space: one identifier
    shape = r"[A-Z]{2}\d{2}(?:[A-Z]{2}\d{2})?"
    assert only("account AB12 CD34 today", ["AB12CD34"], shape) is True
    assert only("accounts AB12, CD34 today", ["AB12CD34"], shape) is False
    assert only("account AB12 CD34 today", ["AB12", "CD34"], shape) is False


def test_of_two_readings_covering_as_much_both_are_checked() -> None:
    # "AB12 CD34 AB12" reads as AB12CD34 then AB12, or as AB12 then CD34AB12: either may be meant
    shape = r"[A-Z]{2}\d{2}(?:[A-Z]{2}\d{2})?"
    assert only("accounts AB12 CD34 AB12 today", ["AB12CD34", "AB12"], shape) is False
    assert only("accounts AB12 CD34 AB12 today", ["AB12", "CD34AB12"], shape) is False
    assert only("accounts AB12 CD34 AB12 today", ["AB12CD34", "AB12", "CD34AB12"], shape) is True


def test_words_are_joined_into_an_identifier_of_at_most_48_characters() -> None:
    assert only("ref N " + "1" * 47 + " today", [], r"N\d+") is False
    assert only("ref N " + "1" * 48 + " today", [], r"N\d+") is True


def test_tenant_ids() -> None:
    pattern = r"tenant[-_ ]?[0-9]{3,6}"
    assert only("Invoices for tenant-0042 are ready.", ["tenant-0042"], pattern) is True
    assert only("Invoices for tenant_0042 and TENANT 0077 are ready.", ["tenant-0042"], pattern) is False


def test_only_entities_needs_a_pattern() -> None:
    with pytest.raises(ValueError, match="needs 'pattern'"):
        Assertion(type="only-entities")
    with pytest.raises(ValueError, match="only apply to 'only-entities'"):
        Assertion(type="contains", value="x", pattern="N1")


# -- JSON as RFC 8259 defines it; URLs without a scheme -------------------------------------------------


@pytest.mark.parametrize("doc", ['{"a": NaN}', '{"a": Infinity}', "[-Infinity]", "NaN"])
def test_nan_and_infinity_are_not_json(doc: str) -> None:
    assert compile_assertion(Assertion(type="is-json")).check(doc).passed is False
    assert compile_assertion(Assertion(type="contains-json")).check(f"Here: {doc}").passed is False


def test_json_is_read_as_written() -> None:
    # a zero-width space between tokens is not JSON, whatever the canonical form of the text
    assert compile_assertion(Assertion(type="is-json")).check('{"a":\u200b 1}').passed is False
    assert compile_assertion(Assertion(type="is-json")).check('{"a": 1}').passed is True


@pytest.mark.parametrize(
    "answer",
    [
        "See example.com/path for details.",
        "Open www.evil.org now.",
        "docs at status.acme.io today",
        "Upload to files.example.co.uk/drop",
        "see acme.de/amm/72-00.",
    ],
)
def test_urls_without_a_scheme_must_be_grounded(answer: str) -> None:
    ctx = CaseContext(context={"amm": "Read https://docs.acme.io/amm/72-00 first."})
    assert compile_assertion(Assertion(type="grounded-urls")).check(answer, ctx).passed is False


@pytest.mark.parametrize(
    "answer",
    [
        "Read docs.acme.io/amm/72-00 first.",
        "Edit config.py and notes.md, then run main.rs.",
        "e.g. version 1.2.3",
    ],
)
def test_grounded_and_non_urls_pass(answer: str) -> None:
    ctx = CaseContext(context={"amm": "Read https://docs.acme.io/amm/72-00 first."})
    assert compile_assertion(Assertion(type="grounded-urls")).check(answer, ctx).passed is True
