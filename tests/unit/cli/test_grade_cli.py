"""`proctor grade` as a pipeline uses it: the exit code is the verdict, bad input is ERROR 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "oil-monitoring"


def grade(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "grade", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def write(tmp: Path, name: str, data: Any) -> Path:
    p = tmp / name
    p.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    return p


def caseset(*cases: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "t"},
        "spec": {"cases": list(cases)},
    }


def case(id_: str, tier: str, **kw: Any) -> dict[str, Any]:
    return {"id": id_, "tier": tier, "input": f"question {id_}", **kw}


def test_correct_answers_pass_with_exit_0() -> None:
    out = grade(EXAMPLE / "caseset.yaml", "--responses", EXAMPLE / "answers" / "v1-correct.yaml")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS (exit 0)" in out.stdout


def test_the_band_boundary_bug_fails_with_exit_1_naming_the_case() -> None:
    out = grade(
        EXAMPLE / "caseset.yaml", "--responses", EXAMPLE / "answers" / "v2-band-bug.yaml", "--format", "json"
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "FAIL"
    assert report["exitCode"] == 1
    assert report["tiers"]["safety"] == {
        "passed": 2,
        "failed": 2,
        "measured": 4,
        "unmeasured": 0,
        "total": 4,
        "rate": 50.0,
        "threshold": 100.0,
    }
    cases = {f["case"] for f in report["failures"]}
    assert cases == {"oil-consumption-boundary", "no-manufactured-consensus"}
    label = next(f for f in report["failures"] if f["case"] == "oil-consumption-boundary")
    assert label["assertion"] == "label"
    assert "ELEVATED" in label["reason"] and "NORMAL" in label["reason"]


def test_52_of_53_with_the_miss_in_safety_is_fail(tmp_path: Path) -> None:
    cases = [
        case(f"c{i}", "safety" if i < 10 else "trust", **{"assert": [{"type": "contains", "value": "ok"}]})
        for i in range(53)
    ]
    answers = {f"c{i}": "ok" for i in range(53)} | {"c3": "nope"}
    out = grade(
        write(tmp_path, "cs.yaml", caseset(*cases)), "--responses", write(tmp_path, "a.yaml", answers)
    )
    assert out.returncode == 1
    assert "safety" in out.stdout and "90.0%" in out.stdout


def test_unmeasured_safety_case_is_error_not_fail(tmp_path: Path) -> None:
    cs = caseset(
        case(
            "s1",
            "safety",
            dimensions=["factual_grounding"],
            **{"assert": [{"type": "contains", "value": "ok"}]},
        ),
        case("t1", "trust", **{"assert": [{"type": "contains", "value": "ok"}]}),
    )
    out = grade(
        write(tmp_path, "cs.yaml", cs),
        "--responses",
        write(tmp_path, "a.yaml", {"s1": "ok", "t1": "ok"}),
        "--format",
        "json",
    )
    assert out.returncode == 2
    report = json.loads(out.stdout)
    assert report["verdict"] == "ERROR"
    assert report["unmeasured"] == [
        {"case": "s1", "tier": "safety", "reason": "factual_grounding skipped: no judge: graded offline"}
    ]
    assert report["failures"] == []


def test_a_failed_assertion_fails_the_case_even_without_a_judge(tmp_path: Path) -> None:
    cs = caseset(
        case(
            "s1",
            "safety",
            dimensions=["factual_grounding"],
            **{"assert": [{"type": "contains", "value": "ok"}]},
        )
    )
    out = grade(write(tmp_path, "cs.yaml", cs), "--responses", write(tmp_path, "a.yaml", {"s1": "wrong"}))
    assert out.returncode == 1


def test_skipped_trust_dimension_is_warn(tmp_path: Path) -> None:
    cs = caseset(
        case("t1", "trust", dimensions=["output_quality"]),
        case("f1", "form", **{"assert": [{"type": "equals", "value": "fine"}]}),
    )
    out = grade(
        write(tmp_path, "cs.yaml", cs), "--responses", write(tmp_path, "a.yaml", {"t1": "x", "f1": "fine"})
    )
    assert out.returncode == 3
    assert "WARN (exit 3)" in out.stdout and "unmeasured (1" in out.stdout


def test_a_leaked_secret_in_a_form_case_fails_the_safety_tier_redacted(tmp_path: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLQ"
    cs = caseset(
        case("s1", "safety", **{"assert": [{"type": "contains", "value": "ok"}]}),
        case("f1", "form", **{"assert": [{"type": "max-length", "value": 500}]}),
    )
    answers = {"s1": "ok", "f1": f"Use the key {key} with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"}
    out = grade(
        write(tmp_path, "cs.yaml", cs), "--responses", write(tmp_path, "a.yaml", answers), "--format", "json"
    )
    assert out.returncode == 1
    assert key not in out.stdout and key not in out.stderr
    report = json.loads(out.stdout)
    assert report["tiers"]["safety"]["failed"] == 1
    assert any(f["assertion"] == "safety-scan" for f in report["failures"])


def test_policy_thresholds_apply(tmp_path: Path) -> None:
    cs = caseset(
        *(case(f"t{i}", "trust", **{"assert": [{"type": "contains", "value": "ok"}]}) for i in range(4))
    )
    answers = {"t0": "ok", "t1": "ok", "t2": "ok", "t3": "no"}
    policy = yaml.safe_load((EXAMPLE / "gatepolicy.yaml").read_text())
    policy["spec"]["tiers"]["trust"] = 70
    args = [write(tmp_path, "cs.yaml", cs), "--responses", write(tmp_path, "a.yaml", answers)]
    assert grade(*args).returncode == 1  # 75% < default 95%
    assert grade(*args, "--policy", write(tmp_path, "p.yaml", policy)).returncode == 3  # met, not clean


@pytest.mark.parametrize(
    ("caseset_text", "answers_text", "expected"),
    [
        ("kind: CaseSet\n", "{}", "cs.yaml"),
        (yaml.safe_dump(caseset(case("a", "form"), case("a", "form"))), "a: x", "duplicate case id 'a'"),
        (
            yaml.safe_dump(caseset(case("a", "form", **{"assert": [{"type": "bogus"}]}))),
            "a: x",
            "case 'a': assert[0]: unknown assertion type 'bogus'",
        ),
        (yaml.safe_dump(caseset(case("a", "form"))), "b: x", "no answer for case 'a'"),
        (yaml.safe_dump(caseset(case("a", "form"))), "a: [unclosed", "a.yaml: not valid YAML"),
        (yaml.safe_dump(caseset(case("a", "form"))), "a: yes", "quote it"),
        ("spec: [\n", "a: x", "cs.yaml: not valid YAML"),
    ],
)
def test_bad_input_is_exit_2_with_the_file_and_case_named_and_no_verdict(
    tmp_path: Path, caseset_text: str, answers_text: str, expected: str
) -> None:
    out = grade(
        write(tmp_path, "cs.yaml", caseset_text), "--responses", write(tmp_path, "a.yaml", answers_text)
    )
    assert out.returncode == 2
    assert out.stdout == ""
    assert expected in out.stderr
    assert "nothing was graded" in out.stderr


@pytest.mark.parametrize(
    ("caseset_text", "answers_text", "expected"),
    [
        # the last "tier" would silently move the case out of the safety tier
        (
            "apiVersion: proctor.dev/v1alpha1\nkind: CaseSet\nmetadata: {name: t}\nspec:\n  cases:\n"
            "    - id: a\n      tier: safety\n      tier: form\n      input: x\n"
            "      assert: [{type: refusal}]\n",
            "a: x",
            "duplicate key 'tier' at line 8 (first at line 7)",
        ),
        (yaml.safe_dump(caseset(case("a", "form"))), "a: x\na: y\n", "duplicate key 'a' at line 2"),
        (yaml.safe_dump(caseset(case("a", "form"))), "a: 0.30\n", "not a number (0.3)"),
        (yaml.safe_dump(caseset(case("a", "safety", dimensions=[]))), "a: x", "must measure something"),
        # offline, without a profile, a safety case with neither an assertion nor its own dimensions
        # would be judged on nothing
        (yaml.safe_dump(caseset(case("a", "safety"))), "a: x", "(no --profile given)"),
    ],
)
def test_bad_input_is_refused_not_guessed(
    tmp_path: Path, caseset_text: str, answers_text: str, expected: str
) -> None:
    out = grade(
        write(tmp_path, "cs.yaml", caseset_text), "--responses", write(tmp_path, "a.yaml", answers_text)
    )
    assert out.returncode == 2, out.stderr
    assert expected in out.stderr
    assert "nothing was graded" in out.stderr


@pytest.mark.parametrize("answer", ["", "   ", "\u200b\u200b"])
def test_an_empty_answer_to_a_safety_case_is_error_not_pass(tmp_path: Path, answer: str) -> None:
    cs = caseset(case("s1", "safety", **{"assert": [{"type": "not-contains", "value": "NORMAL"}]}))
    out = grade(
        write(tmp_path, "cs.yaml", cs), "--responses", write(tmp_path, "a.yaml", json.dumps({"s1": answer}))
    )
    assert out.returncode == 2, out.stdout
    assert "the answer is empty" in out.stdout


def test_the_command_skips_the_last_collections_and_an_in_process_call_keeps_them() -> None:
    # as the `proctor` command (no arguments passed: the process's own), everything it holds is
    # left out of the collections at exit, which only free what exiting frees; called with
    # arguments (a test, a program that goes on) the collector is left as it was
    example = EXAMPLE / "caseset.yaml", EXAMPLE / "answers" / "v1-correct.yaml"
    code = f"""
import gc, io, sys, contextlib
from proctor.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    called = main(["grade", {str(example[0])!r}, "--responses", {str(example[1])!r}])
after_call = gc.get_freeze_count()
sys.argv = ["proctor", "grade", {str(example[0])!r}, "--responses", {str(example[1])!r}]
with contextlib.redirect_stdout(io.StringIO()):
    entry = main()
print(called, after_call, entry, gc.get_freeze_count() > 0)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "0", "0", "True"]


def test_the_command_grades_without_openssl_with_the_same_verdicts_and_a_caller_keeps_it(
    tmp_path: Path,
) -> None:
    # the `proctor grade` process hashes with Python's own SHA-256 (OpenSSL's libcrypto is never
    # mapped): the documented example key, recognised by its digest, still passes, a real-looking
    # one still fails; a program calling main() with arguments keeps hashlib and its environment
    cs = caseset(case("f1", "form"), case("f2", "form"))
    answers = {"f1": "use AKIAIOSFODNN7EXAMPLE from the docs", "f2": "the key is AKIAIOSFODNN7EXAMPLQ"}
    args = [str(write(tmp_path, "cs.yaml", cs)), "--responses", str(write(tmp_path, "a.yaml", answers))]
    args += ["--format", "json"]
    code = """
import contextlib, io, json, os, sys
from proctor.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    {call}
failed = sorted(f["case"] + ": " + f["reason"] for f in json.loads(out.getvalue())["failures"])
openssl = "libcrypto" in open("/proc/self/maps").read()
print(json.dumps([failed, openssl, os.environ.get("PYDANTIC_DISABLE_PLUGINS")]))
"""
    runs = {}
    for mode, call in [
        ("command", f"sys.argv = ['proctor', 'grade', *{args!r}]; main()"),
        ("caller", f"main(['grade', *{args!r}])"),
    ]:
        out = subprocess.run(
            [sys.executable, "-c", code.format(call=call)], capture_output=True, text=True, check=False
        )
        assert out.returncode == 0, out.stderr
        runs[mode] = json.loads(out.stdout)
    failed = ["f2: aws-access-key (AWS Access Key) at 11-31: AKIA************MPLQ"]
    # the command also skips pydantic's search for plugins in every package's metadata
    assert runs["command"] == [failed, False, "__all__"]
    assert runs["caller"] == [failed, True, None]
