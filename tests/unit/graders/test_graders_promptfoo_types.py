"""promptfoo's other deterministic types in Proctor's vocabulary, and promptfoo's meaning of shared names."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import AssertionCompileError, CaseContext, compile_assertion
from proctor.graders._assertions import json_equal, levenshtein


def verdict(answer: str, ctx: CaseContext | None = None, **assertion: Any) -> bool | None:
    return compile_assertion(Assertion(**assertion)).check(answer, ctx or CaseContext()).passed


# --- equals with a JSON value ----------------------------------------------------------------


def test_equals_a_json_value_compares_parsed_json() -> None:
    want = {"band": "ELEVATED", "rate": 0.3, "flags": [True, None]}
    assert verdict('{"flags": [true, null], "rate": 0.30, "band": "ELEVATED"}', type="equals", value=want)
    assert not verdict('{"flags": [1, null], "rate": 0.3, "band": "ELEVATED"}', type="equals", value=want)
    assert not verdict('{"band": "ELEVATED"}', type="equals", value=want)
    assert not verdict("band: ELEVATED", type="equals", value=want)
    assert verdict("[1, 2]", type="not-equals", value=[2, 1])


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (1, True, False),
        (False, False, True),
        (None, None, True),
        (None, 0, False),
        ("1", 1, False),
        ([1, [2]], [1, [2]], True),
        ([1, 2], [1, 2, 3], False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ({"a": [1]}, {"a": 1}, False),
        ([], {}, False),
    ],
)
def test_json_equality_is_javascripts_strict_deep_equality(a: Any, b: Any, equal: bool) -> None:
    assert json_equal(a, b) is equal
    assert json_equal(b, a) is equal


# --- case folding ----------------------------------------------------------------------------


def test_ignoring_case_folds_as_javascripts_to_lower_case() -> None:
    assert verdict("The STRASSE", type="icontains", value="strasse")
    assert not verdict("Die Straße", type="icontains", value="STRASSE")  # toLowerCase keeps ß
    assert verdict("ΣΟΦΟΣ", type="icontains", value="σοφος")  # final sigma, as JavaScript lowers it
    assert verdict("ELEVATED per AMM", type="icontains-all", value=["elevated", "amm"])
    assert not verdict("ELEVATED", type="icontains-all", value=["elevated", "amm"])
    assert verdict("it is HIGH", type="icontains-any", value=["normal", "high"])
    assert not verdict("it is low", type="icontains-any", value=["normal", "high"])
    assert verdict("PASSWORD: x", type="not-icontains-any", value=["password"]) is False


def test_icontains_all_names_what_is_missing() -> None:
    c = compile_assertion(Assertion(type="icontains-all", value=["a", "bb", "cc"])).check("A")
    assert c.passed is False
    assert '"bb", "cc"' in c.reason and "2 of 3" in c.reason


# --- levenshtein -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        ("", "", 0),
        ("a", "", 1),
        ("", "abc", 3),
        ("kitten", "sitting", 3),
        ("flaw", "lawn", 2),
        ("abc", "abc", 0),
    ],
)
def test_levenshtein_distance(a: str, b: str, d: int) -> None:
    assert levenshtein(a, b) == d
    assert levenshtein(b, a) == d


def test_levenshtein_passes_at_exactly_its_threshold() -> None:
    assert verdict("sitting", type="levenshtein", value="kitten", threshold=3)
    assert not verdict("sitting", type="levenshtein", value="kitten", threshold=2)
    five = "abcdefghij"
    # promptfoo's default threshold is 5: five edits still pass
    assert verdict("abcde", type="levenshtein", value=five) is True
    assert not verdict("abcd", type="levenshtein", value=five)  # distance 6 > the default 5
    assert verdict("abd", type="not-levenshtein", value="abc", threshold=0)


def _reference_distance(a: str, b: str) -> int:
    """The textbook Wagner-Fischer table, rows over ``a`` whatever the lengths."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


@settings(deadline=None)
@given(st.text(alphabet="abc\u00e9", max_size=9), st.text(alphabet="abc\u00e9", max_size=9))
def test_levenshtein_is_the_edit_distance_in_either_order(a: str, b: str) -> None:
    # levenshtein() keeps the shorter string inner (a speed choice): the distance is the same
    assert levenshtein(a, b) == levenshtein(b, a) == _reference_distance(a, b)


def test_levenshtein_counts_utf16_units_in_the_promptfoo_dialect() -> None:
    emoji = "a\U0001f600b"  # one character here, two UTF-16 units in JavaScript
    assert verdict(emoji, type="levenshtein", value="ab", threshold=1)
    assert not verdict(emoji, type="levenshtein", value="ab", threshold=1, dialect="promptfoo")
    assert verdict(emoji, type="levenshtein", value="ab", threshold=2, dialect="promptfoo")


def test_levenshtein_of_a_huge_answer_is_decided_by_length_or_unmeasured() -> None:
    assert not verdict("x" * 100_000, type="levenshtein", value="x")  # lengths differ by far more
    assert verdict("x" * 30_000, type="levenshtein", value="y" * 30_000) is None


# --- OpenAI tools and function calls ---------------------------------------------------------

WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    },
}
TOOLS = [{"type": "function", "function": WEATHER}, {"type": "function", "function": {"name": "bare"}}]


def call(name: str, args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(args) if not isinstance(args, str) else args}


def tools_answer(*calls: dict[str, Any], wrap: bool = False) -> str:
    items = [{"id": f"c{i}", "type": "function", "function": c} for i, c in enumerate(calls)]
    return json.dumps({"content": None, "tool_calls": items} if wrap else items)


def test_a_valid_tools_call_passes() -> None:
    ok = tools_answer(call("get_weather", {"city": "Oslo", "days": 2}))
    assert verdict(ok, type="is-valid-openai-tools-call", value=TOOLS)
    assert verdict(
        tools_answer(call("get_weather", {"city": "Oslo"}), wrap=True),
        type="is-valid-openai-tools-call",
        value=TOOLS,
    )


@pytest.mark.parametrize(
    "answer",
    [
        tools_answer(call("get_weather", {"days": 2})),  # required argument missing
        tools_answer(call("get_weather", {"city": 5})),  # wrong type
        tools_answer(call("get_weather", {"city": "Oslo", "days": 0})),  # below the minimum
        tools_answer(call("book_flight", {"to": "Oslo"})),  # no such tool
        tools_answer(call("bare", {})),  # promptfoo: a tool without parameters cannot be called validly
        tools_answer(call("get_weather", "{not json")),  # arguments are not JSON
        tools_answer(
            call("get_weather", {"city": "Oslo"}), call("get_weather", {"city": 1})
        ),  # one bad of two
        json.dumps(
            [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]
        ),  # arguments not a string
        "[]",
        "It is sunny in Oslo.",
        json.dumps({"content": "It is sunny."}),
    ],
)
def test_an_invalid_tools_call_fails(answer: str) -> None:
    assert verdict(answer, type="is-valid-openai-tools-call", value=TOOLS) is False


def test_no_tools_defined_fails_every_call() -> None:
    assert (
        verdict(
            tools_answer(call("get_weather", {"city": "Oslo"})), type="is-valid-openai-tools-call", value=[]
        )
        is False
    )


def test_function_calls() -> None:
    fns = [WEATHER, {"name": "bare"}]
    assert verdict(
        json.dumps(call("get_weather", {"city": "Oslo"})), type="is-valid-openai-function-call", value=fns
    )
    wrapped = json.dumps({"content": "Sure", "function_call": call("get_weather", {"city": "Oslo"})})
    assert verdict(wrapped, type="is-valid-openai-function-call", value=fns)
    for bad in (
        call("get_weather", {"city": 3}),
        call("nope", {}),
        call("bare", {}),
        {"name": "get_weather"},
    ):
        assert verdict(json.dumps(bad), type="is-valid-openai-function-call", value=fns) is False
    assert verdict("no call", type="is-valid-openai-function-call", value=fns) is False


def test_a_definition_with_a_broken_schema_is_refused_when_compiled() -> None:
    broken = [{"type": "function", "function": {"name": "f", "parameters": {"type": "objekt"}}}]
    with pytest.raises(AssertionCompileError, match="invalid JSON schema"):
        compile_assertion(Assertion(type="is-valid-openai-tools-call", value=broken))
    with pytest.raises(AssertionCompileError, match="no function name"):
        compile_assertion(Assertion(type="is-valid-openai-function-call", value=[{"parameters": {}}]))


# --- latency and cost ------------------------------------------------------------------------


def test_latency_and_cost_are_unmeasured_unless_the_run_records_them() -> None:
    for type_ in ("latency", "not-latency", "cost", "not-cost"):
        c = compile_assertion(Assertion(type=type_, threshold=100)).check("x", CaseContext())
        assert c.passed is None
        assert "does not record" in c.reason


def test_latency_and_cost_compare_with_the_threshold_inclusively() -> None:
    assert verdict("x", CaseContext(latency_ms=100), type="latency", threshold=100)
    assert verdict("x", CaseContext(latency_ms=42), type="latency", threshold=100)
    assert verdict("x", CaseContext(cost=0.001), type="cost", threshold=0.01)
    assert not verdict("x", CaseContext(latency_ms=100.5), type="latency", threshold=100)
    assert verdict("x", CaseContext(latency_ms=250), type="not-latency", threshold=100)
    assert verdict("x", CaseContext(cost=0.01), type="cost", threshold=0.01)
    assert not verdict("x", CaseContext(cost=0.02), type="cost", threshold=0.01)


def test_the_model_requires_and_bounds_thresholds() -> None:
    with pytest.raises(ValueError, match="needs a threshold"):
        Assertion(type="latency")
    with pytest.raises(ValueError, match="at most 1"):
        Assertion(type="similar", value="x", threshold=2)
    with pytest.raises(ValueError, match="'threshold' only applies"):
        Assertion(type="contains", value="x", threshold=2)
    with pytest.raises(ValueError, match="'dialect' only applies"):
        Assertion(type="max-length", value=3, dialect="promptfoo")
    assert Assertion(type="levenshtein", value="x", threshold=12).threshold == 12


# --- the promptfoo dialect of contains-json and regex -----------------------------------------


@pytest.mark.parametrize(
    ("answer", "proctor", "promptfoo"),
    [
        ('Here: {"a": 1} done', True, True),
        ("[1, 2, 3]", True, False),  # promptfoo looks for objects only
        ("{a: 1}", False, True),  # promptfoo reads YAML
        ('{"a": 1', False, True),  # promptfoo closes an unclosed brace at the end
        ("Use {braces} here", False, True),
        ("no json", False, False),
    ],
)
def test_contains_json_in_each_dialect(answer: str, proctor: bool, promptfoo: bool) -> None:
    assert verdict(answer, type="contains-json") is proctor
    assert verdict(answer, type="contains-json", dialect="promptfoo") is promptfoo


def test_contains_json_promptfoo_dialect_with_a_schema() -> None:
    schema = {"type": "object", "required": ["b"]}
    assert verdict('{"a": 1} then {"b": 2}', type="contains-json", value=schema, dialect="promptfoo")
    assert not verdict('{"a": 1}', type="contains-json", value=schema, dialect="promptfoo")
    assert verdict('{"a": 1}', type="not-contains-json", value=schema, dialect="promptfoo")


def test_regex_promptfoo_dialect_is_javascript() -> None:
    assert verdict("30 qt\n", type="regex", value=r"^\d+ qt$")  # Python's $ before a final newline
    assert not verdict("30 qt\n", type="regex", value=r"^\d+ qt$", dialect="promptfoo")
    assert not verdict("\u0663", type="regex", value=r"\d", dialect="promptfoo")
    with pytest.raises(AssertionCompileError, match="Nothing to repeat"):
        compile_assertion(Assertion(type="regex", value="a**", dialect="promptfoo"))


def test_levenshtein_below_the_threshold_passes_and_counts_the_values_units_too() -> None:
    assert verdict("hallo", type="levenshtein", value="hello", threshold=3)
    assert verdict("ab", type="levenshtein", value="a\U0001f600b", threshold=1)
    assert not verdict("ab", type="levenshtein", value="a\U0001f600b", threshold=1, dialect="promptfoo")


def test_only_function_tools_count() -> None:
    tools = [{"type": "retrieval", "function": WEATHER}, {"type": "code_interpreter", "function": WEATHER}]
    answer = tools_answer(call("get_weather", {"city": "Oslo"}))
    assert verdict(answer, type="is-valid-openai-tools-call", value=tools) is False


def test_a_function_tool_after_other_tools_is_still_defined() -> None:
    tools = [{"type": "retrieval"}, {"type": "function", "function": WEATHER}]
    answer = tools_answer(call("get_weather", {"city": "Oslo"}))
    assert verdict(answer, type="is-valid-openai-tools-call", value=tools) is True


def test_a_function_after_one_without_parameters_is_still_defined() -> None:
    tools = [{"type": "function", "function": {"name": "bare"}}, {"type": "function", "function": WEATHER}]
    answer = tools_answer(call("get_weather", {"city": "Oslo"}))
    assert verdict(answer, type="is-valid-openai-tools-call", value=tools) is True


def test_a_tool_call_without_a_function_is_not_a_tools_call() -> None:
    c = compile_assertion(Assertion(type="is-valid-openai-tools-call", value=TOOLS)).check(
        json.dumps([{"id": "c0", "type": "function"}])
    )
    assert c.passed is False
    assert "every call needs function.name and function.arguments" in c.reason


def test_json_equal_tells_true_from_false() -> None:
    assert json_equal(False, True) is False
    assert json_equal(True, False) is False
    assert json_equal([True, False], [True, False]) is True
    assert verdict('{"ok": false}', type="equals", value={"ok": True}) is False
    assert json_equal("HIGH", "LOW") is False
    assert verdict('{"band": "LOW"}', type="equals", value={"band": "HIGH"}) is False


def test_levenshtein_measures_an_answer_of_exactly_its_length_cap() -> None:
    from proctor.graders._assertions import MAX_LEVENSHTEIN_CHARS

    assert MAX_LEVENSHTEIN_CHARS == 20_000
    # a one-character value and a threshold as long as the answer: only the cap decides
    assert verdict("b" * 20_000, type="levenshtein", value="a", threshold=20_000) is True
    assert verdict("b" * 20_001, type="levenshtein", value="a", threshold=20_001) is None


def test_a_javascript_regex_that_backtracks_for_ever_is_unmeasured() -> None:
    c = compile_assertion(Assertion(type="regex", value="(a+)+$", dialect="promptfoo")).check(
        "a" * 30_000 + "!"
    )
    assert c.passed is None
    assert c.reason.startswith("regex: regex timed out after ")
