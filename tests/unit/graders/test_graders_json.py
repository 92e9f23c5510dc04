"""is-json, contains-json and json-schema, with schema compile errors."""

from __future__ import annotations

import json

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import AssertionCompileError, Check, CheckOutcome, compile_assertion

SCHEMA = {
    "type": "object",
    "required": ["band", "rate"],
    "properties": {"band": {"enum": ["NORMAL", "ELEVATED", "HIGH"]}, "rate": {"type": "number"}},
}


def run(type_: str, answer: str, value: object = None) -> Check:
    return compile_assertion(Assertion(type=type_, value=value)).check(answer)


def test_is_json() -> None:
    assert run("is-json", ' {"band": "ELEVATED"} ') == Check(
        "is-json", CheckOutcome.PASS, "is-json: answer is JSON"
    )
    c = run("is-json", "band: ELEVATED")
    assert c.passed is False
    assert c.reason == "is-json: answer is not JSON: Expecting value at line 1 column 1"


def test_is_json_hints_at_a_code_fence() -> None:
    c = run("is-json", '```json\n{"band": "ELEVATED"}\n```')
    assert c.passed is False
    assert "code fence: contains-json accepts that" in c.reason


def test_is_json_with_schema() -> None:
    assert run("is-json", '{"band": "ELEVATED", "rate": 0.3}', SCHEMA).passed is True
    c = run("is-json", '{"band": "LOW", "rate": 0.3}', SCHEMA)
    assert c.passed is False
    assert c.reason.startswith("is-json: answer is JSON but does not match the schema: ")
    assert "at band" in c.reason


def test_json_schema() -> None:
    assert run("json-schema", '{"band": "HIGH", "rate": 0.7}', SCHEMA).passed is True
    c = run("json-schema", '{"band": "HIGH"}', SCHEMA)
    assert c.passed is False
    assert "'rate' is a required property" in c.reason
    assert run("json-schema", "not json", SCHEMA).reason.startswith("json-schema: answer is not JSON")


def test_contains_json_finds_embedded_objects_and_arrays() -> None:
    c = run("contains-json", 'Result:\n```json\n{"band": "ELEVATED", "rate": 0.3}\n```\nDone.')
    assert c.passed is True
    assert c.reason == "contains-json: answer contains a JSON object at 16"
    assert (
        run("contains-json", "codes: [1, 2, 3] ok").reason
        == "contains-json: answer contains a JSON array at 7"
    )
    c = run("contains-json", "no json {here} or [there")
    assert c == Check(
        "contains-json", CheckOutcome.FAIL, "contains-json: answer contains no JSON object or array"
    )


def test_contains_json_with_schema_skips_objects_that_do_not_match() -> None:
    answer = 'Old: {"band": "LOW"}. New: {"band": "ELEVATED", "rate": 0.3}'
    assert run("contains-json", answer, SCHEMA).reason == (
        "contains-json: answer contains a JSON object at 27 matching the schema"
    )
    c = run("contains-json", 'Only {"band": "LOW"}', SCHEMA)
    assert c.passed is False
    assert c.reason.startswith("contains-json: answer contains JSON, but none matches the schema: ")


def test_contains_json_survives_deep_nesting_and_many_brackets() -> None:
    assert run("contains-json", "[" * 100_000).passed is False
    c = run("contains-json", "{" * 5_000 + '{"a": 1}')
    assert c.passed is False
    assert c.reason.endswith("(looked at the first 200 '{' and '[')")


def test_contains_json_reads_on_after_a_long_candidate_that_fails_at_its_end() -> None:
    # the array is read to its last character before it fails: a long failed read is not the
    # end of the search (the budget grows with the answer)
    answer = "[" + ", ".join(["1"] * 3000) + ' oops, then {"a": 1}'
    c = run("contains-json", answer)
    assert c.passed is True
    assert c.reason == f"contains-json: answer contains a JSON object at {answer.index('{')}"


def test_not_is_json() -> None:
    assert run("not-is-json", "plain text").passed is True
    assert run("not-is-json", "[]").passed is False


@pytest.mark.parametrize(
    ("type_", "schema", "needle"),
    [
        ("json-schema", {"type": "nope"}, "invalid JSON schema at type"),
        ("is-json", {"required": "band"}, "invalid JSON schema at required"),
        (
            "contains-json",
            {"properties": {"band": {"minLength": -1}}},
            "invalid JSON schema at properties/band/minLength",
        ),
        ("is-json", "{not json", "value is not a JSON schema"),
        ("is-json", 42, "value must be a JSON schema object"),
    ],
)
def test_invalid_schema_is_a_compile_error(type_: str, schema: object, needle: str) -> None:
    with pytest.raises(AssertionCompileError) as err:
        compile_assertion(Assertion(type=type_, value=schema))
    assert needle in str(err.value)
    assert str(err.value).startswith(f"{type_}: ")


def test_schema_given_as_a_json_string() -> None:
    assert run("is-json", '{"a": 1}', '{"type": "object"}').passed is True


def _failed_reads(answer: str) -> int:
    """The characters contains-json's failed decodes read before the first JSON that decodes."""
    total = 0
    for i, ch in enumerate(answer):
        if ch in "[{":
            try:
                json.JSONDecoder().raw_decode(answer, i)
            except json.JSONDecodeError as e:
                total += e.pos - i
            else:
                return total
    return total


def test_contains_json_reads_at_most_four_characters_per_answer_character_and_4096() -> None:
    """The decode budget (linear time on bracket-heavy answers) at exactly its cap: nested
    brackets that each fail at the same late point (and one that fails at once), then a JSON
    object, padded so that the failed reads are the budget, 4 * len(answer) + 4096, plus one
    or exactly (given up) or one less (found)."""
    found: dict[int, str] = {}
    for spaces in range(4):
        head = "{x " + "[" * 149 + "1" + " " * spaces + "x"  # the first fails after one character
        reads = _failed_reads(head + ' {"a": 1}')  # the padding comes after every failure point
        for left in (-1, 0, 1):
            pad, odd = divmod(reads + left - 4096 - 4 * len(head + ' {"a": 1}'), 4)
            if not odd and pad >= 0:
                found[left] = head + "." * pad + ' {"a": 1}'
    assert {left: 4 * len(a) + 4096 - _failed_reads(a) for left, a in found.items()} == {-1: -1, 0: 0, 1: 1}
    assert run("contains-json", found[-1]).passed is False
    exhausted = run("contains-json", found[0])
    assert exhausted.passed is False
    assert (
        exhausted.reason
        == "contains-json: answer contains no JSON object or array (looked at the first 150 '{' and '[')"
    )
    assert run("contains-json", found[1]).passed is True


def test_is_json_of_a_document_nested_too_deeply_fails_with_the_reason() -> None:
    c = run("is-json", "[" * 100_000 + "]" * 100_000)
    assert c == Check("is-json", CheckOutcome.FAIL, "is-json: answer is not JSON: nested too deeply")


def test_contains_json_reads_on_after_a_candidate_that_is_not_json() -> None:
    # NaN is not JSON: the first object is no candidate, the second is found
    c = run("contains-json", 'first {"a": NaN} then {"b": 1}')
    assert c.reason == "contains-json: answer contains a JSON object at 22"


def test_a_schema_pattern_and_pattern_properties_decide_the_match() -> None:
    schema = {
        "type": "object",
        "properties": {"tail": {"type": "string", "pattern": "^N[0-9]+$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
    }
    assert run("json-schema", '{"tail": "N123", "x-a": 1}', schema).passed is True
    c = run("json-schema", '{"tail": "X1"}', schema)
    assert c.passed is False
    assert "does not match '^N[0-9]+$'" in c.reason and c.reason.endswith(" at tail")
    c = run("json-schema", '{"x-a": "s"}', schema)
    assert c.passed is False
    assert "is not of type 'integer'" in c.reason and c.reason.endswith(" at x-a")


@pytest.mark.parametrize("as_text", [False, True])
def test_a_schema_nested_too_deeply_is_refused_when_compiled(as_text: bool) -> None:
    schema: object = {"type": "array"}
    for _ in range(5000):
        schema = {"items": schema}
    value = '{"items": ' * 5000 + "{}" + "}" * 5000 if as_text else schema
    with pytest.raises(AssertionCompileError, match="nested too deeply"):
        compile_assertion(Assertion(type="is-json", value=value))
