"""Bad input is refused, never guessed: duplicate keys, alias bombs, answers that are not text, and
safety cases that would measure nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api import ManifestError, load_manifests, parse_cases, parse_responses
from proctor.api.caseset import Case

CASESET = """\
apiVersion: proctor.dev/v1alpha1
kind: CaseSet
metadata: {name: oil}
spec:
  cases:
    - id: boundary
      tier: safety
      tier: form
      input: "Oil consumption is 0.30 qt/hr."
      assert: [{type: contains, value: ELEVATED}]
"""


def problems(exc: pytest.ExceptionInfo[ManifestError]) -> str:
    return "\n".join(exc.value.problems)


def test_a_key_written_twice_in_a_manifest_is_an_error_naming_it_and_its_lines() -> None:
    # the last value would win and move the case out of the safety tier
    with pytest.raises(ManifestError) as exc:
        load_manifests(CASESET, source="cs.yaml")
    assert problems(exc) == "cs.yaml: duplicate key 'tier' at line 8 (first at line 7)"


@settings(deadline=None)
@given(st.sampled_from(["yaml", "json", "json-lines"]), st.sampled_from(["answers", "cases"]))
def test_duplicate_keys_are_refused_in_yaml_and_json_answers_and_case_lists(syntax: str, what: str) -> None:
    if what == "answers":
        pairs = [("c1", "ELEVATED"), ("c2", "NORMAL"), ("c1", "HIGH")]
        parse = parse_responses
    else:
        pairs = [("id", "c1"), ("tier", "safety"), ("input", "x"), ("tier", "form")]
        parse = parse_cases  # type: ignore[assignment]
    if syntax == "yaml":
        body = "".join(f"{k}: {v}\n" for k, v in pairs)
        text = body if what == "answers" else "- " + body.replace("\n", "\n  ").rstrip() + "\n"
    else:
        sep = ",\n " if syntax == "json-lines" else ", "
        obj = "{" + sep.join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"
        text = obj if what == "answers" else f"[{obj}]"
    with pytest.raises(ManifestError, match=r"duplicate key '(c1|tier)'"):
        parse(text, where="f")  # type: ignore[call-arg]


def test_keys_merged_from_an_anchor_may_be_overridden() -> None:
    # "<<" merges are YAML's way of overriding on purpose: not a duplicate
    text = (
        "apiVersion: proctor.dev/v1alpha1\nkind: CaseSet\nmetadata: {name: m}\nspec:\n  cases:\n"
        "    - &base {id: c1, tier: form, input: x}\n"
        "    - <<: *base\n      id: c2\n"
    )
    [caseset] = load_manifests(text)
    assert [c.id for c in caseset.spec.cases] == ["c1", "c2"]  # type: ignore[union-attr]


def bomb(depth: int, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, depth):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["answers", "case values", "json schema"])
def test_an_alias_bomb_is_refused_before_it_expands(where: str) -> None:
    if where == "answers":
        with pytest.raises(ManifestError, match="alias bomb"):
            parse_responses(bomb(9))
        return
    body = bomb(8).replace("\n", "\n      ")
    if where == "case values":
        assertion = "{type: contains-any, value: *a7}"
    else:
        assertion = "{type: json-schema, value: {type: object, enum: *a7}}"
    text = (
        "apiVersion: proctor.dev/v1alpha1\nkind: CaseSet\nmetadata: {name: b}\n"
        f"x-anchors:\n      {body}\n"
        f"spec:\n  cases:\n    - {{id: c, tier: safety, input: x, assert: [{assertion}]}}\n"
    )
    with pytest.raises(ManifestError, match="alias bomb"):
        load_manifests(text)


def test_ordinary_anchors_are_fine() -> None:
    text = "a: &doc 'ELEVATED (AMM 72-00)'\nb: *doc\n"
    assert parse_responses(text) == {"a": "ELEVATED (AMM 72-00)", "b": "ELEVATED (AMM 72-00)"}


@pytest.mark.parametrize(
    ("written", "what"),
    [
        ("0.30", "a number (0.3)"),
        ("42", "a number (42)"),
        ("true", "a boolean"),
        ("yes", "a boolean"),
        ("2024-05-09", "a date (2024-05-09)"),
        ("2024-05-09T10:00:00Z", "a date (2024-05-09T10:00:00+00:00)"),
        ("~", "null"),
        ("", "null"),
    ],
)
def test_an_answer_that_is_not_text_is_refused_not_stringified(written: str, what: str) -> None:
    with pytest.raises(ManifestError) as exc:
        parse_responses(f"c1: {written}\n", where="a.yaml")
    assert problems(exc).startswith(f"a.yaml: case 'c1': the answer must be text, not {what}")


@pytest.mark.parametrize("written", ["'0.30'", '"2024-05-09"', "'yes'", '"12:30"'])
def test_a_quoted_answer_is_text_as_written(written: str) -> None:
    assert parse_responses(f"c1: {written}\n") == {"c1": written.strip("'\"")}


def test_json_answers_must_be_strings_too() -> None:
    with pytest.raises(ManifestError, match="not a number"):
        parse_responses('{"c1": 0.30}')


def test_a_safety_case_that_measures_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="a safety case must measure something"):
        Case.model_validate({"id": "s", "tier": "safety", "input": "x", "dimensions": []})
    # an assertion, judged dimensions, or the profile's dimensions measure something
    Case.model_validate({"id": "s", "tier": "safety", "input": "x", "assert": [{"type": "refusal"}]})
    Case.model_validate({"id": "s", "tier": "safety", "input": "x", "dimensions": ["factual_grounding"]})
    Case.model_validate({"id": "s", "tier": "safety", "input": "x"})
    # and a trust case may be judged on the scan alone
    Case.model_validate({"id": "t", "tier": "trust", "input": "x", "dimensions": []})
