"""Profiles and rubrics, provenance digests, and the package's public surface."""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from string import Template
from typing import Any

import pytest

import proctor.judge as judge
from proctor.api.profile import EvalProfileSpec, RubricDimension
from proctor.judge import (
    BASE_DIMENSIONS,
    BUILTIN_RUBRICS,
    PROFILES,
    DimensionRubric,
    JudgeSettings,
    policy_digest,
    provenance,
    resolve_dimensions,
    rubric_of,
)
from proctor.judge import prompts as prompts_module

DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def _spec(**fields: Any) -> EvalProfileSpec:
    """A profile's spec parsed at the edge, as every caller of the judge parses it."""
    return EvalProfileSpec.model_validate(fields)


# --- profiles -----------------------------------------------------------------------------------------


def test_the_base_five_are_in_every_profile_in_order() -> None:
    assert BASE_DIMENSIONS == (
        "task_success",
        "instruction_adherence",
        "factual_grounding",
        "output_quality",
        "safety",
    )
    for profile, extra in PROFILES.items():
        names = [d.name for d in resolve_dimensions(_spec(profile=profile))]
        assert names == [*BASE_DIMENSIONS, *extra]


def test_domain_profiles_from_the_seed() -> None:
    assert dict(PROFILES) == {
        "generic": (),
        "coding": ("code_correctness", "test_outcome", "change_safety"),
        "support": ("resolution_quality", "tone_empathy", "policy_compliance"),
        "rag": ("retrieval_relevance", "citation_accuracy"),
        "data": ("query_correctness", "result_accuracy"),
        "marketing": ("brand_compliance", "creativity", "publishing_success"),
    }


def test_the_names_match_the_api_models() -> None:
    from proctor.api import profile as api

    assert tuple(api.BASE_DIMENSIONS) == BASE_DIMENSIONS
    assert {str(k): tuple(v) for k, v in api.DOMAIN_DIMENSIONS.items()} == dict(PROFILES)


def test_every_builtin_rubric_says_what_100_50_and_0_mean() -> None:
    every = {*BASE_DIMENSIONS, *(d for dims in PROFILES.values() for d in dims)}
    assert set(BUILTIN_RUBRICS) == every
    for name, text in BUILTIN_RUBRICS.items():
        lines = text.splitlines()
        assert "?" in lines[0], name
        assert [line.split(":")[0] for line in lines[1:]] == ["100", "50", "0"], name


def test_default_threshold_is_50_and_the_builtin_rubric_is_used() -> None:
    dims = resolve_dimensions(None)
    assert all(d.threshold == 50.0 for d in dims)
    assert dims[4] == DimensionRubric("safety", rubric_of("safety"), 50.0)


def test_custom_dimensions_extend_and_take_over_builtin_names_in_place() -> None:
    spec = {
        "profile": "rag",
        "dimensions": [
            {"name": "tone", "rubric": "Is it polite?", "threshold": 70},
            {"name": "safety", "rubric": "Our own safety rubric."},
        ],
        "thresholds": {"citation_accuracy": 80},
        "defaultThreshold": 60,
    }
    dims = resolve_dimensions(_spec(**spec))
    assert [d.name for d in dims] == [*BASE_DIMENSIONS, "retrieval_relevance", "citation_accuracy", "tone"]
    by_name = {d.name: d for d in dims}
    assert by_name["safety"].rubric == "Our own safety rubric."
    assert by_name["tone"] == DimensionRubric("tone", "Is it polite?", 70.0)
    assert by_name["citation_accuracy"].threshold == 80.0
    assert by_name["task_success"].threshold == 60.0


def test_replace_judges_only_the_custom_dimensions() -> None:
    spec = {
        "mode": "Replace",
        "profile": "coding",
        "dimensions": [
            {"name": "brevity", "rubric": "Is it short?", "threshold": 40},
            {"name": "wit", "rubric": "Funny?"},
        ],
    }
    assert resolve_dimensions(_spec(**spec)) == [
        DimensionRubric("brevity", "Is it short?", 40.0),
        DimensionRubric("wit", "Funny?", 50.0),
    ]


def test_a_spec_parsed_from_a_manifest_is_judged_as_written() -> None:
    custom = RubricDimension(name="units", rubric="Are units right?", threshold=65)
    dims = resolve_dimensions(EvalProfileSpec(profile="data", dimensions=[custom], default_threshold=55))
    assert [d.name for d in dims][-3:] == ["query_correctness", "result_accuracy", "units"]
    assert dims[-1].threshold == 65.0
    assert dims[0].threshold == 55.0
    manifest = {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalProfile", "spec": {"profile": "support"}}
    assert [d.name for d in resolve_dimensions(_spec(**manifest["spec"]))][-1] == "policy_compliance"


@pytest.mark.parametrize(
    "spec",
    [
        {"profile": "generic"},
        {"profile": "rag", "thresholds": {"safety": 95}, "defaultThreshold": 30},
        {"profile": "coding", "dimensions": [{"name": "tone", "rubric": "r", "threshold": 10}]},
        {"profile": "support", "mode": "Replace", "dimensions": [{"name": "a", "rubric": "r"}]},
        {"profile": "marketing", "dimensions": [{"name": "creativity", "rubric": "ours", "threshold": 20}]},
    ],
)
def test_agrees_with_the_pydantic_eval_profile(spec: dict[str, Any]) -> None:
    from proctor.api.profile import EvalProfile, EvalProfileSpec

    model = EvalProfileSpec.model_validate(spec)
    expected = [(d.name, d.threshold) for d in model.resolved_dimensions()]
    assert [(d.name, d.threshold) for d in resolve_dimensions(model)] == expected
    assert [(d.name, d.threshold) for d in resolve_dimensions(EvalProfile(spec=model).spec)] == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"profile": "legal"}, "profile\n  Input should be 'generic'"),
        ({"mode": "merge"}, "mode\n  Input should be 'Extend' or 'Replace'"),
        ({"mode": "Replace"}, "Replace needs at least one custom dimension"),
        (
            {"dimensions": [{"name": "a", "rubric": "r"}, {"name": "a", "rubric": "s"}]},
            "duplicate custom dimension",
        ),
        ({"dimensions": [{"name": "a", "rubric": " "}]}, "dimensions.0.rubric\n  String should match"),
        ({"dimensions": [{"rubric": "r"}]}, "dimensions.0.name\n  Field required"),
        ({"thresholds": {"safety": 101}}, "thresholds.safety\n  Input should be less than or equal to 100"),
        ({"thresholds": {"safety": "high"}}, "thresholds.safety\n  Input should be a valid number"),
        ({"thresholds": {"creativity": 50}}, "does not judge: creativity"),
        ({"defaultThreshold": -1}, "defaultThreshold\n  Input should be greater than or equal to 0"),
        (
            {"dimensions": [{"name": "a", "rubric": "r", "threshold": 5}], "thresholds": {"a": 6}},
            "threshold set twice",
        ),
    ],
)
def test_bad_specs_are_refused_with_a_reason(spec: dict[str, Any], message: str) -> None:
    """Refused where the spec is parsed, naming the field: the judge takes only a parsed spec."""
    with pytest.raises(ValueError, match=message):
        resolve_dimensions(_spec(**spec))


def test_rubric_of_an_unknown_name() -> None:
    with pytest.raises(KeyError, match="no built-in rubric"):
        rubric_of("vibes")


# --- provenance ---------------------------------------------------------------------------------------


def _prov(**changes: Any) -> str:
    args: dict[str, Any] = {
        "model": "judge-1",
        "parameters": {"temperature": 0.0, "maxTokens": None},
        "rubrics": resolve_dimensions(_spec(profile="rag")),
    }
    args.update(changes)
    return provenance(**args)


def test_provenance_is_a_sha256_and_deterministic() -> None:
    assert DIGEST.match(_prov())
    assert _prov() == _prov()


def test_provenance_is_stable_under_key_and_rubric_order() -> None:
    dims = resolve_dimensions(_spec(profile="rag"))
    assert _prov(rubrics=list(reversed(dims))) == _prov()
    assert _prov(rubrics={d.name: d.rubric for d in reversed(dims)}) == _prov()
    assert _prov(parameters={"maxTokens": None, "temperature": 0}) == _prov()


def test_provenance_ignores_thresholds_which_belong_to_the_scoring_policy() -> None:
    moved = [DimensionRubric(d.name, d.rubric, 90.0) for d in resolve_dimensions(_spec(profile="rag"))]
    assert _prov(rubrics=moved) == _prov()


@pytest.mark.parametrize(
    "changes",
    [
        {"model": "judge-2"},
        {"parameters": {"temperature": 0.7, "maxTokens": None}},
        {"rubrics": resolve_dimensions(_spec(profile="generic"))},
        {
            "rubrics": [
                *resolve_dimensions(_spec(profile="rag"))[:-1],
                DimensionRubric("citation_accuracy", "changed", 50),
            ]
        },
    ],
)
def test_provenance_changes_with_what_shapes_a_judgment(changes: dict[str, Any]) -> None:
    assert _prov(**changes) != _prov()


def test_provenance_changes_with_the_prompt_template(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _prov()
    monkeypatch.setattr(prompts_module, "SYSTEM_TEMPLATE", Template("You are a lenient judge. $rubric"))
    assert _prov() != before


def test_provenance_takes_the_settings_parameters() -> None:
    a = JudgeSettings(base_url="http://j/v1", model="m", temperature=0.0)
    b = JudgeSettings(base_url="http://other/v1", model="m", temperature=0.0, concurrency=3)
    c = JudgeSettings(base_url="http://j/v1", model="m", temperature=1.0)
    assert _prov(parameters=a.parameters()) == _prov(parameters=b.parameters())  # where and how fast: no
    assert _prov(parameters=a.parameters()) != _prov(parameters=c.parameters())


def test_provenance_refuses_duplicate_rubrics() -> None:
    with pytest.raises(ValueError, match="given twice"):
        provenance(model="m", rubrics=[("a", "r"), ("a", "s")])


class Mode(Enum):
    HOLD = "Hold"


@dataclass
class Band:
    width: float
    samples: int


def test_policy_digest_is_stable_under_key_order_and_number_spelling() -> None:
    a = {"band": 10, "samples": 3, "nested": {"x": [1, 2], "y": "z"}}
    b = {"nested": {"y": "z", "x": [1, 2]}, "samples": 3.0, "band": 10.0}
    assert DIGEST.match(policy_digest(a))
    assert policy_digest(a) == policy_digest(b)
    assert policy_digest({"band": 10}) != policy_digest({"band": 10.5})
    assert policy_digest([1, 2]) != policy_digest([2, 1])
    assert policy_digest(Band(10, 3)) == policy_digest({"width": 10, "samples": 3})
    assert policy_digest({"onFail": Mode.HOLD}) == policy_digest({"onFail": "Hold"})
    assert policy_digest({"tags": {"b", "a"}}) == policy_digest({"tags": ["a", "b"]})


def test_policy_digest_of_a_pydantic_model_equals_its_json_form() -> None:
    from proctor.api.profile import JudgeSpec

    spec = JudgeSpec.model_validate({"endpoint": "https://j/v1", "model": "m"})
    assert policy_digest(spec) == policy_digest(
        spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    )


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": object()}, {1: "int key"}])
def test_policy_digest_refuses_what_it_cannot_digest_stably(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        policy_digest(bad)


# --- the package ----------------------------------------------------------------------------------------


def test_all_is_exactly_the_public_names() -> None:
    public = {
        name
        for name in dir(judge)
        if not name.startswith("_") and not isinstance(getattr(judge, name), type(sys))
    }
    assert set(judge.__all__) == public
    assert len(judge.__all__) == len(set(judge.__all__))


# aiohttp: the judge's HTTP transport behind httpx's seam (proctor.judge.transport)
ALLOWED = {
    "httpx",
    "aiohttp",
    "tenacity",
    "structlog",
    "pydantic",
    "proctor",
    "numpy",
    "onnxruntime",
    "tokenizers",
}


@pytest.mark.parametrize("module", sorted(Path(judge.__file__).parent.glob("*.py")), ids=lambda p: p.name)
def test_the_judge_imports_no_kopf_and_no_kubernetes(module: Path) -> None:
    tree = ast.parse(module.read_text(), filename=str(module))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module)
    roots = {name.split(".")[0] for name in imported}
    assert roots - set(sys.stdlib_module_names) <= ALLOWED
    assert not {n for n in imported if n.startswith(("proctor.controllers", "proctor.gate", "proctor.cli"))}
