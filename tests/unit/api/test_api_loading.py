"""Loading raw manifests: errors name the kind, the object, the case and the field."""

from __future__ import annotations

import pytest

from proctor.api import (
    CaseSet,
    EvalProfile,
    EvalRun,
    GatePolicy,
    ManifestError,
    MissingReferenceError,
    iter_kind,
    load_manifests,
    parse_cases,
    parse_caseset,
    parse_evalrun,
    parse_manifest,
    parse_policy,
    parse_profile,
    parse_responses,
    resolve_cases,
)


def _caseset(*cases: dict[str, object], name: str = "oil-monitoring") -> dict[str, object]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": name},
        "spec": {"cases": list(cases)},
    }


def _problems(exc: pytest.ExceptionInfo[ManifestError]) -> list[str]:
    return list(exc.value.problems)


def test_the_error_names_kind_object_case_and_field() -> None:
    with pytest.raises(ManifestError) as exc:
        parse_caseset(_caseset({"id": "x", "tier": "safety", "input": "q", "assert": [{"type": "bogus"}]}))
    (problem,) = _problems(exc)
    assert problem.startswith("CaseSet oil-monitoring: case 'x': assert[0]: unknown assertion type 'bogus'")
    assert str(exc.value) == problem


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ManifestError) as exc:
        parse_caseset(
            _caseset(
                {"id": "a", "tier": "critical", "input": "q"},
                {"id": "b", "tier": "form", "input": [{"role": "robot", "content": "hi"}], "asert": []},
                {"tier": "form", "input": "q"},
                {"id": "d", "tier": "form", "input": 3},
                {
                    "id": "e",
                    "tier": "trust",
                    "input": "q",
                    "assert": [{"type": "label", "value": "A", "labels": ["A"]}],
                },
            )
        )
    assert _problems(exc) == [
        "CaseSet oil-monitoring: case 'a': tier: Input should be 'safety', 'trust' or 'form'",
        "CaseSet oil-monitoring: case 'b': input[0].role: Input should be 'system', 'user' or 'assistant'",
        "CaseSet oil-monitoring: case 'b': asert: unknown field (a typo?)",
        "CaseSet oil-monitoring: case #3: id: required field missing",
        "CaseSet oil-monitoring: case 'd': input: "
        "input must be text or a list of chat messages [{role, content}]",
        "CaseSet oil-monitoring: case 'e': assert[0]: "
        "assertion 'label' needs 'labels' with at least two distinct labels",
    ]


def test_cross_field_case_errors_name_the_case() -> None:
    with pytest.raises(ManifestError) as exc:
        parse_caseset(_caseset({"id": "c", "tier": "trust", "input": "q", "assert": [{"type": "cites"}]}))
    assert _problems(exc) == ["CaseSet oil-monitoring: case 'c': assert[0]: 'cites' needs context documents"]


def test_duplicate_case_ids_are_named() -> None:
    case = {"id": "same", "tier": "form", "input": "q"}
    with pytest.raises(ManifestError) as exc:
        parse_caseset(_caseset(case, {"id": "other", "tier": "form", "input": "q"}, case))
    assert _problems(exc) == [
        "CaseSet oil-monitoring: spec.cases: duplicate case id 'same' (cases[0] and cases[2])"
    ]
    # also when another case is invalid (pydantic would check ids only after every case validated)
    with pytest.raises(ManifestError) as exc:
        parse_caseset(_caseset(case, case, {"id": "bad", "tier": "nope", "input": "q"}))
    assert (
        "CaseSet oil-monitoring: spec.cases: duplicate case id 'same' (cases[0] and cases[1])"
        in _problems(exc)
    )


def test_other_kinds_name_the_object_and_the_path() -> None:
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "nightly"},
        "spec": {
            "caseSetRef": {"name": "oil"},
            "target": {"endpoint": {"url": "http://agent"}, "responses": {"inline": {"a": "b"}}},
            "shards": 0,
        },
    }
    with pytest.raises(ManifestError) as exc:
        parse_evalrun(run)
    assert _problems(exc) == [
        "EvalRun nightly: spec.target: "
        "set exactly one of endpoint, podTemplate or responses (got endpoint, responses)",
        "EvalRun nightly: spec.shards: Input should be greater than or equal to 1",
    ]


def test_envelope_problems() -> None:
    with pytest.raises(ManifestError, match=r"expected kind CaseSet, not 'EvalRun'"):
        parse_caseset({"kind": "EvalRun", "metadata": {"name": "x"}})
    with pytest.raises(
        ManifestError,
        match=r"kind must be one of EvalProfile, CaseSet, GatePolicy, EvalRun, AgentMonitor, not 'Pod'",
    ):
        parse_manifest({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}})
    with pytest.raises(ManifestError) as exc:
        parse_profile({"apiVersion": "proctor.dev/v1", "kind": "EvalProfile", "metadata": {}, "spec": {}})
    assert _problems(exc) == [
        "EvalProfile <unnamed>: apiVersion must be proctor.dev/v1alpha1, not 'proctor.dev/v1'",
        "EvalProfile <unnamed>: metadata.name is required",
    ]
    with pytest.raises(ManifestError, match="must be a mapping"):
        parse_policy(["not", "a", "mapping"])
    generated = parse_evalrun(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalRun",
            "metadata": {"generateName": "gate-"},
            "spec": {"caseSetRef": {"name": "cs"}, "target": {"responses": {"inline": {}}}},
        }
    )
    assert generated.metadata.generate_name == "gate-"


MANIFESTS = """
---
apiVersion: proctor.dev/v1alpha1
kind: EvalProfile
metadata: {name: support}
spec: {profile: support}
---
apiVersion: v1
kind: List
items:
  - apiVersion: proctor.dev/v1alpha1
    kind: CaseSet
    metadata: {name: cs}
    spec:
      cases: [{id: a, tier: safety, input: hi}]
  - apiVersion: proctor.dev/v1alpha1
    kind: GatePolicy
    metadata: {name: agents}
    spec: {caseSetRef: {name: cs}, profileRef: {name: support}, candidate: {port: 8080}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: more}
data: {}
---
apiVersion: proctor.dev/v1alpha1
kind: EvalRun
metadata: {name: r1, namespace: team}
spec:
  caseSetRef: {name: cs}
  target: {responses: {configMapRef: {name: answers, key: answers.yaml}}}
"""


def test_load_manifests_reads_every_document() -> None:
    with pytest.raises(ManifestError, match="ConfigMap more: kind must be one of"):
        load_manifests(MANIFESTS)
    resources = load_manifests(MANIFESTS, ignore_other_kinds=True)
    assert [type(r) for r in resources] == [EvalProfile, CaseSet, GatePolicy, EvalRun]
    (run,) = iter_kind(resources, EvalRun)
    assert run.metadata.namespace == "team"
    assert run.spec.target.kind == "responses"
    assert iter_kind(resources, CaseSet)[0].spec.cases[0].id == "a"
    assert load_manifests("") == []


def test_load_manifests_collects_problems_of_every_document() -> None:
    text = """
apiVersion: proctor.dev/v1alpha1
kind: CaseSet
metadata: {name: one}
spec: {cases: [{id: x, tier: safety, input: q, assert: [{type: bogus}]}]}
---
apiVersion: proctor.dev/v1alpha1
kind: GatePolicy
metadata: {name: two}
spec: {caseSetRef: {name: one}, candidate: {port: 0}}
"""
    with pytest.raises(ManifestError) as exc:
        load_manifests(text)
    problems = _problems(exc)
    assert len(problems) == 2
    assert problems[0].startswith("CaseSet one: case 'x': assert[0]: unknown assertion type 'bogus'")
    assert problems[1] == "GatePolicy two: spec.candidate.port: Input should be greater than or equal to 1"


def test_invalid_yaml_is_a_manifest_error() -> None:
    with pytest.raises(ManifestError, match=r"suite.yaml: not valid YAML"):
        load_manifests("kind: [unclosed", source="suite.yaml")


def test_parse_cases_from_a_config_map_value() -> None:
    text = "cases:\n  - {id: a, tier: form, input: hi}\n  - {id: b, tier: trust, input: ho}\n"
    assert [c.id for c in parse_cases(text, where="ConfigMap more/batch.yaml")] == ["a", "b"]
    assert [c.id for c in parse_cases('[{"id": "j", "tier": "form", "input": "x"}]', where="w")] == ["j"]
    with pytest.raises(ManifestError) as exc:
        parse_cases("- {id: a, tier: form, input: hi}\n- {id: a, tier: form, input: hi}\n", where="CM m/k")
    assert _problems(exc) == ["CM m/k: duplicate case id 'a' (cases[0] and cases[1])"]
    with pytest.raises(ManifestError) as exc:
        parse_cases("- {id: a, tier: nope, input: hi}", where="CaseSet cs: ConfigMap m/k")
    assert _problems(exc) == [
        "CaseSet cs: ConfigMap m/k: case 'a': tier: Input should be 'safety', 'trust' or 'form'"
    ]
    with pytest.raises(ManifestError, match="expected a list of cases"):
        parse_cases("just text", where="w")


def test_resolve_cases_gathers_inline_and_config_map_cases() -> None:
    caseset = parse_caseset(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "CaseSet",
            "metadata": {"name": "big"},
            "spec": {
                "cases": [{"id": "inline", "tier": "safety", "input": "q"}],
                "casesFrom": [{"name": "more"}, {"name": "extra", "key": "b.yaml"}],
            },
        }
    )
    maps = {
        "more": {"2.yaml": "- {id: m2, tier: form, input: q}", "1.yaml": "- {id: m1, tier: form, input: q}"},
        "extra": {"b.yaml": "- {id: e1, tier: trust, input: q}", "ignored": "not read"},
    }
    assert [c.id for c in resolve_cases(caseset, maps)] == ["inline", "m1", "m2", "e1"]
    with pytest.raises(MissingReferenceError) as missing:
        resolve_cases(caseset, {"extra": {}})
    assert list(missing.value.problems) == [
        "CaseSet big: casesFrom: ConfigMap 'more' not found",
        "CaseSet big: casesFrom: ConfigMap 'extra' has no key 'b.yaml'",
    ]
    clash = {**maps, "more": {"1.yaml": "- {id: inline, tier: form, input: q}"}}
    with pytest.raises(ManifestError) as exc:
        resolve_cases(caseset, clash)
    assert _problems(exc) == [
        "CaseSet big: duplicate case id 'inline' (in spec.cases and ConfigMap more/1.yaml)"
    ]


def test_parse_responses() -> None:
    assert parse_responses("oil-consumption-boundary: 'ELEVATED: 0.30 qt/hr (AMM 72-00)'\ncount: '42'\n") == {
        "oil-consumption-boundary": "ELEVATED: 0.30 qt/hr (AMM 72-00)",
        "count": "42",
    }
    assert parse_responses({"a": "b"}) == {"a": "b"}
    with pytest.raises(ManifestError) as exc:
        parse_responses("a: yes\nb: [1]\n", where="answers.yaml")
    assert _problems(exc) == [
        "answers.yaml: case 'a': the answer must be text, not a boolean "
        "(quote it: a bare yes/no/true/false is a boolean in YAML)",
        "answers.yaml: case 'b': the answer must be text, not list",
    ]
    with pytest.raises(ManifestError, match="expected a map of case id -> answer"):
        parse_responses("- a\n- b\n")
