"""`proctor import promptfoo` on configs written in promptfoo's documented format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from proctor.importers.promptfoo import ImportProblem, import_promptfoo

CONFIG = """
description: Oil monitoring assistant
prompts:
  - "You are a maintenance assistant. {{question}}"
providers: [openai:gpt-4o-mini]
defaultTest:
  assert:
    - type: not-contains
      value: "As an AI"
tests:
  - description: Oil consumption at the band boundary
    vars: {question: "Oil consumption is exactly 0.30 qt/hr. Is that normal?"}
    assert:
      - type: icontains
        value: elevated
      - type: javascript
        value: output.length < 500
  - vars: {question: "What is the HIGH band?"}
    assert:
      - type: contains-any
        value: ["0.60", "0.6 "]
      - type: similar
        value: "HIGH starts at 0.60 qt/hr"
        threshold: 0.75
  - description: Oil consumption at the band boundary
    vars: {question: "Again?"}
    assert:
      - type: model-graded-closedqa
        value: "mentions the manual"
"""


def _write(tmp_path: Path, text: str = CONFIG) -> Path:
    p = tmp_path / "promptfooconfig.yaml"
    p.write_text(text)
    return p


def test_ids_inputs_and_default_assertions(tmp_path: Path) -> None:
    res = import_promptfoo(_write(tmp_path))
    cases = res.manifest["spec"]["cases"]
    # the third test's only own assertion cannot be imported: it is left out, not kept as a
    # case that only the default assertion checks
    assert [c["id"] for c in cases] == ["oil-consumption-at-the-band-boundary", "test-2"]
    assert res.left_out == [
        "test 3 (oil-consumption-at-the-band-boundary-2): left out: none of its assertions could be imported"
    ]
    assert (
        cases[0]["input"]
        == "You are a maintenance assistant. Oil consumption is exactly 0.30 qt/hr. Is that normal?"
    )
    assert cases[0]["tier"] == "trust"
    # defaultTest's assertion applies to every case, first
    assert all(
        c["assert"][0] == {"type": "not-contains", "value": "As an AI", "dialect": "promptfoo"} for c in cases
    )
    assert {"type": "similar", "value": "HIGH starts at 0.60 qt/hr", "threshold": 0.75} in cases[1]["assert"]
    assert res.manifest["metadata"]["name"] == "oil-monitoring-assistant"


def test_untranslatable_assertions_are_named_never_dropped_silently(tmp_path: Path) -> None:
    res = import_promptfoo(_write(tmp_path))
    text = "\n".join(res.warnings)
    assert "'javascript' is custom code" in "\n".join(res.untranslatable)
    assert "'model-graded-closedqa' has no Proctor equivalent" in "\n".join(res.untranslatable)
    assert "renamed oil-consumption-at-the-band-boundary-2" in text
    assert res.partial
    types = [a["type"] for c in res.manifest["spec"]["cases"] for a in c.get("assert", [])]
    assert "javascript" not in types


def test_tier_flag_and_test_files(tmp_path: Path) -> None:
    (tmp_path / "tests.yaml").write_text(
        yaml.safe_dump([{"vars": {"q": "hi"}, "assert": [{"type": "equals", "value": "hello"}]}])
    )
    p = _write(tmp_path, "prompts: ['{{q}}']\ntests: file://tests.yaml\n")
    res = import_promptfoo(p, tier="safety")
    assert res.manifest["spec"]["cases"] == [
        {
            "id": "test-1",
            "tier": "safety",
            "input": "hi",
            "assert": [{"type": "equals", "value": "hello", "dialect": "promptfoo"}],
        }
    ]


def test_unreadable_configs_are_problems(tmp_path: Path) -> None:
    for text in ("prompts: [x]\n", "- just a list\n", "tests: [\n"):
        try:
            import_promptfoo(_write(tmp_path, text))
        except ImportProblem:
            continue
        raise AssertionError(f"accepted {text!r}")


def test_cli_prints_a_manifest_and_lists_problems_on_stderr(tmp_path: Path) -> None:
    p = _write(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "import", "promptfoo", str(p), "--tier", "form"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1, out.stderr  # partial: the javascript assertion was not imported
    assert "partial import" in out.stderr
    manifest = yaml.safe_load(out.stdout)
    assert manifest["kind"] == "CaseSet"
    assert {c["tier"] for c in manifest["spec"]["cases"]} == {"form"}
    assert "javascript" in out.stderr and "javascript" not in out.stdout
    ok = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "import", "promptfoo", str(p), "--allow-partial"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert yaml.safe_load(ok.stdout) == {
        **manifest,
        "spec": {"cases": [{**c, "tier": "trust"} for c in manifest["spec"]["cases"]]},
    }


def _one(tmp_path: Path, assertion: dict[str, object], extra: str = "") -> tuple[list[object], object]:
    # a second, plain test keeps the import from failing when the first one is left out
    cfg = {
        "prompts": ["{{q}}"],
        "tests": [
            {"vars": {"q": "hi", "want": "0.30"}, "assert": [assertion]},
            {"vars": {"q": "ho"}, "assert": [{"type": "contains", "value": "ho"}]},
        ],
    }
    p = _write(tmp_path, yaml.safe_dump(cfg) + extra)
    res = import_promptfoo(p)
    cases = res.manifest["spec"]["cases"]
    return [a for c in cases if c["id"] == "test-1" for a in c["assert"]], res


def test_values_become_the_text_promptfoo_compares_with(tmp_path: Path) -> None:
    cases = [
        ({"type": "equals", "value": 42}, {"type": "equals", "value": "42", "dialect": "promptfoo"}),
        ({"type": "equals", "value": 0.30}, {"type": "equals", "value": "0.3", "dialect": "promptfoo"}),
        ({"type": "equals", "value": True}, {"type": "equals", "value": "true", "dialect": "promptfoo"}),
        (
            {"type": "equals", "value": {"a": 1}},
            {"type": "equals", "value": {"a": 1}, "dialect": "promptfoo"},
        ),
        ({"type": "contains", "value": 30}, {"type": "contains", "value": "30", "dialect": "promptfoo"}),
        (
            {"type": "contains-any", "value": [30, 14]},
            {"type": "contains-any", "value": ["30", "14"], "dialect": "promptfoo"},
        ),
        (
            {"type": "contains-any", "value": 'HIGH, "a, b",LOW'},
            {"type": "contains-any", "value": ["HIGH", "a, b", "LOW"], "dialect": "promptfoo"},
        ),
        (
            {"type": "icontains-all", "value": "x,y"},
            {"type": "icontains-all", "value": ["x", "y"], "dialect": "promptfoo"},
        ),
        (
            {"type": "equals", "value": "{{want}} qt/hr"},
            {"type": "equals", "value": "0.30 qt/hr", "dialect": "promptfoo"},
        ),
        (
            {"type": "contains", "value": "{{missing}}!"},
            {"type": "contains", "value": "!", "dialect": "promptfoo"},
        ),
        ({"type": "regex", "value": r"\d+"}, {"type": "regex", "value": r"\d+", "dialect": "promptfoo"}),
        ({"type": "contains-json"}, {"type": "contains-json", "dialect": "promptfoo"}),
        (
            {"type": "is-json", "value": "type: object\nrequired: [a]"},
            {"type": "is-json", "value": {"type": "object", "required": ["a"]}},
        ),
        (
            {"type": "levenshtein", "value": "hello", "threshold": 2},
            {"type": "levenshtein", "value": "hello", "threshold": 2, "dialect": "promptfoo"},
        ),
        ({"type": "latency", "threshold": 500}, {"type": "latency", "threshold": 500}),
    ]
    for given, want in cases:
        got, res = _one(tmp_path, given)
        assert got == [want], given
        assert not res.partial, res.untranslatable


def test_yaml_is_read_as_promptfoo_reads_it(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n      - {type: equals, value: yes}\n",
    )
    assert import_promptfoo(p).manifest["spec"]["cases"][0]["assert"] == [
        {"type": "equals", "value": "yes", "dialect": "promptfoo"}
    ]
    dup = _write(
        tmp_path, "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    vars: {q: ho}\n    assert: []\n"
    )
    with pytest.raises(ImportProblem, match="duplicated mapping key"):
        import_promptfoo(dup)


def test_what_promptfoo_cannot_grade_the_same_is_reported(tmp_path: Path) -> None:
    for given, why in [
        ({"type": "regex", "value": "(?i)elevated"}, "JavaScript rejects the regex"),
        ({"type": "regex", "value": "a**"}, "Nothing to repeat"),
        ({"type": "equals", "value": ""}, "empty answer"),
        ({"type": "contains", "value": True}, "promptfoo rejects"),
        ({"type": "contains-all", "value": []}, "promptfoo rejects an empty value"),
        ({"type": "starts-with", "value": 5}, "promptfoo rejects"),
        ({"type": "javascript", "value": "output.length < 5"}, "custom code"),
        ({"type": "python", "value": "file://check.py"}, "custom code"),
        (
            {"type": "contains", "value": "x", "transform": "output.trim()"},
            "'transform' changes what is graded",
        ),
        ({"type": "cost"}, "without a threshold"),
        ({"type": "equals", "value": "{{ q | upper }}"}, "Nunjucks"),
    ]:
        got, res = _one(tmp_path, given)
        assert got == [], given
        assert res.partial
        assert why in "\n".join(res.untranslatable), (given, res.untranslatable)
        assert res.left_out == ["test 1 (test-1): left out: none of its assertions could be imported"]


def test_a_test_without_assertions_is_left_out(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "prompts: ['{{q}}']\ntests:\n  - vars: {q: a}\n"
        "  - vars: {q: b}\n    assert: [{type: contains, value: b}]\n",
    )
    res = import_promptfoo(p)
    assert [c["id"] for c in res.manifest["spec"]["cases"]] == ["test-2"]
    assert res.left_out == ["test 1 (test-1): left out: it has no assertions"]


def test_openai_checks_take_the_providers_definitions(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    functions = [{"name": "g", "parameters": {"type": "object"}}]
    provider = yaml.safe_dump(
        {"providers": [{"id": "openai:chat:gpt-4o-mini", "config": {"tools": tools, "functions": functions}}]}
    )
    got, res = _one(tmp_path, {"type": "is-valid-openai-tools-call"}, provider)
    assert got == [{"type": "is-valid-openai-tools-call", "value": tools}]
    got, res = _one(tmp_path, {"type": "not-is-valid-openai-function-call"}, provider)
    # promptfoo's handler never reads the not- prefix: imported as it grades
    assert got == [{"type": "is-valid-openai-function-call", "value": functions}]
    assert any("ignores the 'not-'" in w for w in res.warnings)
    got, res = _one(tmp_path, {"type": "is-valid-openai-function-call"}, "providers: [echo]\n")
    assert got == [] and "cannot" in "\n".join(res.untranslatable)


def test_the_printed_manifest_reads_back_the_same(tmp_path: Path) -> None:
    from proctor.importers.promptfoo import dump_manifest

    manifest = {
        "spec": {
            "cases": [
                {
                    "id": "a",
                    "assert": [
                        {"type": "equals", "value": v}
                        for v in ("1e+21", "yes", "0o17", "null", "~", "1:30", "a\nb")
                    ],
                }
            ]
        }
    }
    text = dump_manifest(manifest)
    assert yaml.safe_load(text) == manifest
    from proctor.graders._jscompat import load_js_yaml

    assert load_js_yaml(text) == manifest


def test_an_output_transform_leaves_the_test_out(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "prompts: ['{{q}}']\ntests:\n"
        "  - vars: {q: a}\n    options: {transform: output.trim()}\n    assert: [{type: equals, value: a}]\n"
        "  - vars: {q: b}\n    assert: [{type: equals, value: b}]\n",
    )
    res = import_promptfoo(p)
    assert [c["id"] for c in res.manifest["spec"]["cases"]] == ["test-2"]
    assert res.left_out == [
        "test 1 (test-1): left out: its output 'transform' changes what every assertion grades"
    ]


def test_an_unreadable_tests_file_is_left_out_and_named(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("- {vars: {q: a}, vars: {q: b}}\n")
    p = _write(
        tmp_path,
        "prompts: ['{{q}}']\ntests:\n  - file://missing.yaml\n  - file://bad.yaml\n  - tests.csv\n"
        "  - {vars: {q: c}, assert: [{type: contains, value: c}]}\n",
    )
    res = import_promptfoo(p)
    assert len(res.manifest["spec"]["cases"]) == 1
    assert len(res.left_out) == 3 and res.partial
