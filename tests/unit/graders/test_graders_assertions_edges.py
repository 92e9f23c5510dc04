"""Edges of the assertion graders a wrong grader would get wrong: boundaries, position 0, errors."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import (
    CaseContext,
    Check,
    CheckOutcome,
    compile_assertion,
    compile_assertions,
    grade_case,
)
from proctor.graders._assertions import CompiledAssertion
from proctor.protocol.types import Outcome, Tier


def check(answer: str, ctx: CaseContext | None = None, **a: object) -> Check:
    return compile_assertion(Assertion(**a)).check(answer, ctx or CaseContext())  # type: ignore[arg-type]


SCHEMA = {"type": "object", "required": ["band"], "properties": {"band": {"enum": ["NORMAL", "ELEVATED"]}}}


def test_contains_json_fails_when_no_json_matches_the_schema() -> None:
    c = check('Result: {"band": "HIGH"} and [1, 2]', type="contains-json", value=SCHEMA)
    assert c.passed is False
    assert c.reason.startswith("contains-json: answer contains JSON, but none matches the schema")
    assert check('{"band": "HIGH"}', type="not-contains-json", value=SCHEMA).passed is True


def test_contains_json_passes_on_a_later_match_after_a_mismatch() -> None:
    c = check('{"band": "HIGH"} then {"band": "ELEVATED"}', type="contains-json", value=SCHEMA)
    assert c.passed is True
    assert c.reason.endswith("object at 22 matching the schema")


def test_contains_json_finds_json_at_position_zero() -> None:
    for answer, kind in (('{"a": 1} trailing', "object"), ("[1, 2] trailing", "array")):
        c = check(answer, type="contains-json")
        assert c.passed is True
        assert c.reason == f"contains-json: answer contains a JSON {kind} at 0"


def test_contains_json_skips_brackets_inside_a_decoded_value() -> None:
    # the array inside the object is not a second candidate: the object is found at 0 and matches
    c = check('{"a": [1]} and more', type="contains-json")
    assert c.reason == "contains-json: answer contains a JSON object at 0"


def test_contains_json_stops_looking_after_its_candidate_limit() -> None:
    # each candidate fails at once, so the decode budget is not what stops the search
    c = check("[x " * 300 + '{"a": 1}', type="contains-json")
    assert c.passed is False
    assert "looked at the first 200" in c.reason


def test_is_json_schema_mismatch_fails_with_the_path() -> None:
    c = check('{"band": "HIGH"}', type="is-json", value=SCHEMA)
    assert c.passed is False
    assert "does not match the schema" in c.reason and "band" in c.reason


def _embedder(sim: float):  # type: ignore[no-untyped-def]
    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0], [sim, math.sqrt(max(0.0, 1 - sim * sim))]]

    return embed


def test_similar_passes_at_exactly_its_threshold() -> None:
    at = CaseContext(embedder=_embedder(0.75))
    assert check("a", at, type="similar", value="b", threshold=0.75).passed is True
    below = CaseContext(embedder=_embedder(0.7499))
    assert check("a", below, type="similar", value="b", threshold=0.75).passed is False
    assert check("a", CaseContext(embedder=_embedder(0.8)), type="similar", value="b").passed is True
    assert check("a", CaseContext(embedder=_embedder(0.7999)), type="similar", value="b").passed is False


def test_similar_of_a_zero_vector_is_zero_not_an_error() -> None:
    ctx = CaseContext(embedder=lambda texts: [[0.0, 0.0], [1.0, 0.0]])
    c = check("a", ctx, type="similar", value="b", threshold=0.1)
    assert c.passed is False
    assert "similarity 0.00" in c.reason


def test_similar_with_vectors_of_different_lengths_is_unmeasured() -> None:
    ctx = CaseContext(embedder=lambda texts: [[1.0], [1.0, 0.0]])
    assert check("a", ctx, type="similar", value="b").passed is None


def test_a_grader_that_raises_is_unmeasured_and_never_crashes_the_run() -> None:
    def boom(answer: str, ctx: CaseContext) -> tuple[bool | None, str]:
        raise RuntimeError("grader bug with AKIAIOSFODNN7EXAMPLX inside")

    broken = CompiledAssertion(Assertion(type="contains", value="x"), boom)
    for negated in (False, True):
        c = (
            broken if not negated else CompiledAssertion(Assertion(type="not-contains", value="x"), boom)
        ).check("x")
        assert c.passed is None
        assert "grader error RuntimeError" in c.reason
        assert "AKIAIOSFODNN7EXAMPLX" not in c.reason  # the message may quote the answer: masked
    result = grade_case(
        "c", Tier.SAFETY, "x", [broken, *compile_assertions([Assertion(type="contains", value="x")])]
    )
    assert result.outcome is Outcome.UNMEASURED
    assert [d.name for d in result.dimensions] == ["contains"]


def test_max_length_at_exactly_the_limit_passes() -> None:
    assert check("12345", type="max-length", value=5).passed is True
    assert check("123456", type="max-length", value=5).passed is False
    # an empty answer measures nothing, whatever the assertion (issue 10: never a pass)
    assert check("", type="max-length", value=0).passed is None


@pytest.mark.parametrize(("answer", "passed"), [("a", True), (" ", None), ("b", False)])
def test_not_prefix_inverts_only_measured_results(answer: str, passed: bool | None) -> None:
    assert check(answer, type="contains", value="a").passed is passed
    assert check(answer, type="not-contains", value="a").passed is (None if passed is None else not passed)


def test_contains_json_never_counts_a_value_inside_json_it_already_read() -> None:
    schema = {"type": "object", "required": ["b"]}
    # the outer object does not match; the inner one does, but it is part of the outer JSON
    assert check('{"x": {"b": 1}}', type="contains-json", value=schema).passed is False
    assert check('{"x": 1} {"b": 1}', type="contains-json", value=schema).passed is True


def test_contains_json_looks_at_exactly_its_candidate_limit() -> None:
    from proctor.graders._assertions import _MAX_JSON_CANDIDATES

    within = "{" * (_MAX_JSON_CANDIDATES - 1) + ' ["found"]'
    assert check(within, type="contains-json").passed is True
    beyond = "{" * _MAX_JSON_CANDIDATES + ' ["found"]'
    assert check(beyond, type="contains-json").passed is False


def test_a_check_is_immutable() -> None:
    import dataclasses

    c = check("a", type="contains", value="a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.outcome = CheckOutcome.FAIL  # type: ignore[misc]


def test_a_label_assertion_carries_its_labels_for_the_rest_of_the_case() -> None:
    c = compile_assertion(Assertion(type="label", value="HIGH", labels=["NORMAL", "ELEVATED", "HIGH"]))
    assert c.labels == ("NORMAL", "ELEVATED", "HIGH")
    assert compile_assertion(Assertion(type="contains", value="x")).labels == ()


def test_contains_json_keeps_looking_after_a_nested_value() -> None:
    schema = {"type": "object", "required": ["b"]}
    assert check('{"a": [1]} then {"b": 1}', type="contains-json", value=schema).passed is True


def test_similar_to_a_zero_vector_is_zero_whichever_side_it_is() -> None:
    ctx = CaseContext(embedder=lambda texts: [[1.0, 0.0], [0.0, 0.0]])
    c = check("a", ctx, type="similar", value="b", threshold=0.1)
    assert c.passed is False and "similarity 0.00" in c.reason


@pytest.mark.parametrize("value", ["", "   ", 5])
def test_similar_to_a_blank_or_non_text_value_is_refused(value: object) -> None:
    from proctor.graders import AssertionCompileError

    with pytest.raises(AssertionCompileError, match="similar: value must be a non-empty string"):
        compile_assertion(Assertion(type="similar", value=value))


def test_a_case_context_is_immutable() -> None:
    # one context serves every assertion of a case (and EMPTY_CONTEXT every case without one)
    import dataclasses

    from proctor.graders._assertions import EMPTY_CONTEXT

    with pytest.raises(dataclasses.FrozenInstanceError):
        EMPTY_CONTEXT.reference = "x"  # type: ignore[misc]
    assert EMPTY_CONTEXT.reference is None
