"""`proctor import promptfoo` on configs written in promptfoo's documented format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    assert all(c["assert"][0] == {"type": "not-contains", "value": "As an AI"} for c in cases)
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
        {"id": "test-1", "tier": "safety", "input": "hi", "assert": [{"type": "equals", "value": "hello"}]}
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
