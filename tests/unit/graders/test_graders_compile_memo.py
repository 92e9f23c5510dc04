"""An assertion stated by many cases is compiled once per case set, and grades exactly as before."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.api.caseset import Case
from proctor.graders._assertions import CompileMemo, assertion_key, compile_assertion, compile_assertions
from proctor.graders._exam import compile_cases, grade_answer


def case(case_id: str, *asserts: dict[str, Any], **kw: Any) -> Case:
    return Case.model_validate({"id": case_id, "tier": "form", "input": "q?", "assert": list(asserts), **kw})


def test_cases_that_state_the_same_assertion_share_one_compiled_check() -> None:
    order = {"type": "starts-with", "value": "Order "}
    compiled = compile_cases(
        [
            case("a", order, {"type": "contains", "value": "ORD-1"}),
            case("b", {"type": "contains", "value": "ORD-2"}, order),
        ]
    )
    assert compiled[0].assertions[0] is compiled[1].assertions[1]
    assert compiled[0].assertions[1] is not compiled[1].assertions[0]


def test_a_memo_carries_compiled_checks_from_one_batch_to_the_next() -> None:
    order = {"type": "starts-with", "value": "Order "}
    memo: CompileMemo = {}
    first = compile_cases([case("a", order)], memo=memo)
    second = compile_cases([case("b", {"type": "contains", "value": "x"}, order)], memo=memo)
    alone = compile_cases([case("c", order)])
    assert second[0].assertions[1] is first[0].assertions[0]
    assert alone[0].assertions[0] is not first[0].assertions[0]
    assert not grade_answer(second[0], "Order 1: x").failures
    assert len(grade_answer(second[0], "Invoice: x").failures) == 1


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"type": "contains", "value": "x"}, {"type": "not-contains", "value": "x"}),
        ({"type": "contains", "value": "x"}, {"type": "icontains", "value": "x"}),
        ({"type": "contains", "value": "x"}, {"type": "contains", "value": "X"}),
        ({"type": "regex", "value": "a.b"}, {"type": "regex", "value": "a.b", "dialect": "promptfoo"}),
        ({"type": "levenshtein", "value": "ab", "threshold": 1}, {"type": "levenshtein", "value": "ab"}),
        (
            {"type": "label", "value": "A", "labels": ["A", "B"]},
            {"type": "label", "value": "A", "labels": ["A", "C"]},
        ),
        (
            {"type": "only-entities", "pattern": "N[0-9]+", "allowed": ["N1"]},
            {"type": "only-entities", "pattern": "N[0-9]+", "allowed": ["N2"]},
        ),
        ({"type": "max-length", "value": 1}, {"type": "max-length", "value": 2}),
    ],
)
def test_assertions_that_differ_in_anything_are_compiled_apart(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    a, b = Assertion.model_validate(one), Assertion.model_validate(other)
    assert assertion_key(a) != assertion_key(b)
    memo: CompileMemo = {}
    (ca,) = compile_assertions([a], memo)
    (cb,) = compile_assertions([b], memo)
    assert ca is not cb
    assert cb.assertion == b


def test_a_json_value_is_compiled_each_time() -> None:
    # equal JSON values may differ in what they mean (1 and true), so they are not memoised
    a = Assertion.model_validate({"type": "equals", "value": {"ok": 1}})
    assert assertion_key(a) is None
    memo: CompileMemo = {}
    assert compile_assertions([a], memo)[0] is not compile_assertions([a], memo)[0]
    assert memo == {}


def test_shared_checks_grade_every_case_as_its_own_compilation_would() -> None:
    asserts = [
        {"type": "regex", "value": r"^Order ORD-\d{4} "},
        {"type": "icontains", "value": "riga"},
        {"type": "not-contains", "value": "CANCELLED"},
        {"type": "is-json"},
    ]
    cases = [case(f"c{i}", *asserts[: 1 + i % 4]) for i in range(8)]
    answers = [
        "Order ORD-1234 goes to Riga.",
        "Order ORD-12 goes to Riga.",
        '{"order": "ORD-1234"}',
        "Order ORD-9999 was CANCELLED, Riga.",
    ]
    shared = compile_cases(cases)
    for c, cc in zip(cases, shared, strict=True):
        alone = tuple(compile_assertion(a) for a in c.assert_)
        for answer in answers:
            assert [x.check(answer, cc.ctx) for x in cc.assertions] == [
                x.check(answer, cc.ctx) for x in alone
            ]
            assert grade_answer(cc, answer) == grade_answer(
                compile_cases([c])[0], answer
            )  # a memo per call: the same case alone
