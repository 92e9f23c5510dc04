"""promptfoo itself against `proctor import promptfoo` + Proctor's graders: the same verdict per test.

Every edge case below is one promptfoo test with one assertion. promptfoo (the pinned version the
grading benchmark installs: ``hack/get-promptfoo.sh``) grades each with its echo provider (the
output is the answer) or, for the OpenAI tool and function checks, with its OpenAI provider
talking to the local scripted server (the output is the message the script returns). The same
config goes through ``import_promptfoo``; the CaseSet is graded as ``proctor grade`` grades it,
on the very outputs promptfoo graded. Where both accept the input (promptfoo did not error, the
importer did not refuse), the verdicts must agree, per type, 100 %.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from proctor.api import load_manifests
from proctor.api.caseset import Case
from proctor.graders import grade_cases
from proctor.importers.promptfoo import dump_manifest, import_promptfoo
from proctor.testing import judgeserver as ts

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "bench"))
import grading_vs_promptfoo as bench  # noqa: E402 - the pinned install lives there

X = "x"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
                "required": ["city"],
            },
        },
    },
    {"type": "function", "function": {"name": "no_params"}},
]
FUNCTIONS = [t["function"] for t in TOOLS]

# (assertion without its answer, answer). Each is one test.
TEXT_CASES: list[tuple[dict[str, Any], str]] = [
    # equals: exact, no trimming; non-string values as String(value); objects as JSON
    ({"type": "equals", "value": "ELEVATED"}, "ELEVATED"),
    ({"type": "equals", "value": "ELEVATED"}, "ELEVATED "),
    ({"type": "equals", "value": "ELEVATED"}, " ELEVATED"),
    ({"type": "equals", "value": "ELEVATED"}, "elevated"),
    ({"type": "not-equals", "value": "ELEVATED"}, "ELEVATED."),
    ({"type": "equals", "value": 42}, "42"),
    ({"type": "equals", "value": 42}, "42.0"),
    ({"type": "equals", "value": 0.30}, "0.3"),
    ({"type": "equals", "value": 0.30}, "0.30"),
    ({"type": "equals", "value": 1e21}, "1e+21"),
    ({"type": "equals", "value": True}, "true"),
    ({"type": "equals", "value": True}, "True"),
    ({"type": "equals", "value": {"a": 1, "b": [True, None]}}, '{"b": [true, null], "a": 1.0}'),
    ({"type": "equals", "value": {"a": 1}}, '{"a": true}'),
    ({"type": "equals", "value": {"a": 1}}, "not json"),
    ({"type": "equals", "value": [1, "x"]}, '[1, "x"]'),
    ({"type": "equals", "value": "{{expected}}"}, "0.30 qt/hr"),
    # contains / icontains: numbers read as text; case folding as toLowerCase
    ({"type": "contains", "value": "AMM 72-00"}, "per AMM 72-00."),
    ({"type": "contains", "value": "AMM 72-00"}, "per amm 72-00."),
    ({"type": "contains", "value": 30}, "about 30 qt"),
    ({"type": "contains", "value": 0.5}, "about 0.50 qt"),
    ({"type": "not-contains", "value": "As an AI"}, "As an AI model"),
    ({"type": "icontains", "value": "elevated"}, "ELEVATED"),
    ({"type": "icontains", "value": "STRASSE"}, "Stra\u00dfe"),
    ({"type": "icontains", "value": "stra\u00dfe"}, "STRASSE"),
    ({"type": "icontains", "value": "\u0130stanbul"}, "i\u0307stanbul"),
    ({"type": "icontains", "value": "\u03c3\u03bf\u03c6\u03bf\u03c3"}, "\u03a3\u039f\u03a6\u039f\u03a3"),
    ({"type": "icontains", "value": "\ufb01le"}, "FILE"),
    ({"type": "not-icontains", "value": "sorry"}, "SORRY, no"),
    # contains-any / contains-all and the i- forms: lists, numbers, CSV strings
    ({"type": "contains-any", "value": ["HIGH", "ELEVATED"]}, "It is ELEVATED."),
    ({"type": "contains-any", "value": ["HIGH", "ELEVATED"]}, "It is NORMAL."),
    ({"type": "contains-any", "value": [30, 14]}, "14 days"),
    ({"type": "contains-any", "value": [30, 14]}, "3 0 days"),
    ({"type": "contains-any", "value": "HIGH, ELEVATED"}, "ELEVATED"),
    ({"type": "contains-any", "value": "HIGH,ELEVATED"}, "a HIGH b"),
    ({"type": "contains-any", "value": '"a, b", c'}, "x a, b y"),
    ({"type": "contains-any", "value": '"a, b", c'}, "a b"),
    ({"type": "not-contains-any", "value": ["x", "y"]}, "zzz"),
    ({"type": "contains-all", "value": ["ELEVATED", "AMM"]}, "ELEVATED per AMM"),
    ({"type": "contains-all", "value": ["ELEVATED", "AMM"]}, "ELEVATED"),
    ({"type": "contains-all", "value": "ELEVATED, AMM"}, "AMM: ELEVATED"),
    ({"type": "contains-all", "value": [1, 2.5]}, "1 and 2.5"),
    ({"type": "icontains-any", "value": ["high", "elevated"]}, "ELEVATED"),
    ({"type": "icontains-any", "value": ["high", "elevated"]}, "normal"),
    ({"type": "icontains-any", "value": "High, Low"}, "LOW"),
    ({"type": "not-icontains-any", "value": ["ssn", "password"]}, "PASSWORD: x"),
    ({"type": "icontains-all", "value": ["elevated", "amm"]}, "ELEVATED per AMM"),
    ({"type": "icontains-all", "value": ["elevated", "amm"]}, "ELEVATED"),
    ({"type": "icontains-all", "value": "Stra\u00dfe, ok"}, "STRASSE OK"),
    # starts-with: exact, no trimming
    ({"type": "starts-with", "value": "ELEVATED"}, "ELEVATED: yes"),
    ({"type": "starts-with", "value": "ELEVATED"}, " ELEVATED: yes"),
    ({"type": "starts-with", "value": "ELEVATED"}, "\nELEVATED"),
    ({"type": "not-starts-with", "value": "Sorry"}, "Sorry, no"),
    # regex: JavaScript's syntax and meaning
    ({"type": "regex", "value": r"^\d+ qt$"}, "30 qt"),
    ({"type": "regex", "value": r"^\d+ qt$"}, "30 qt\n"),
    ({"type": "regex", "value": r"\d"}, "\u0663"),
    ({"type": "regex", "value": r"\w+"}, "\u00e9t\u00e9"),
    ({"type": "regex", "value": r"\bcaf\b"}, "caf\u00e9"),
    ({"type": "regex", "value": r"^.$"}, "\U0001f600"),
    ({"type": "regex", "value": r"^..$"}, "\U0001f600"),
    ({"type": "regex", "value": r"a.c"}, "a\nc"),
    ({"type": "regex", "value": r"a[^]c"}, "a\nc"),
    ({"type": "regex", "value": r"x[]"}, "x"),
    ({"type": "regex", "value": r"^\s$"}, "\u00a0"),
    ({"type": "regex", "value": r"^\s$"}, "\u0085"),
    ({"type": "regex", "value": r"(a)?\1b"}, "b"),
    ({"type": "regex", "value": r"(?<y>\d{4})-\k<y>"}, "2024-2024"),
    ({"type": "regex", "value": r"a{2,3}"}, "aa"),
    ({"type": "regex", "value": r"a{,3}"}, "a{,3}"),
    ({"type": "regex", "value": r"]"}, "]"),
    ({"type": "regex", "value": r"\x41\u0042\cJ"}, "AB\n"),
    ({"type": "regex", "value": r"(?<=\$)\d+"}, "$30"),
    ({"type": "regex", "value": r"[\d-z]"}, "-"),
    ({"type": "regex", "value": r"\Z"}, "Z"),
    ({"type": "regex", "value": r"\p{L}"}, "p{L}"),
    ({"type": "regex", "value": r"ELEVATED|HIGH"}, "NORMAL"),
    ({"type": "not-regex", "value": r"\bNORMAL\b"}, "ABNORMAL"),
    ({"type": "regex", "value": "(?i)elevated"}, "ELEVATED"),
    ({"type": "regex", "value": "a**"}, "a"),
    ({"type": "regex", "value": "[z-a]"}, "a"),
    ({"type": "regex", "value": "(unclosed"}, "x"),
    # is-json: JSON.parse; a schema as YAML text or an object
    ({"type": "is-json"}, '{"a": 1}'),
    ({"type": "is-json"}, ' {"a": 1}\n'),
    ({"type": "is-json"}, "[1, 2]"),
    ({"type": "is-json"}, "42"),
    ({"type": "is-json"}, '"text"'),
    ({"type": "is-json"}, "{'a': 1}"),
    ({"type": "is-json"}, '{"a": NaN}'),
    ({"type": "is-json"}, '```json\n{"a": 1}\n```'),
    ({"type": "is-json"}, '{"a": 1,}'),
    ({"type": "not-is-json"}, "prose"),
    ({"type": "is-json", "value": {"type": "object", "required": ["a"]}}, '{"a": 1}'),
    ({"type": "is-json", "value": {"type": "object", "required": ["a"]}}, '{"b": 1}'),
    ({"type": "is-json", "value": "type: array\nitems: {type: integer}"}, "[1, 2]"),
    ({"type": "is-json", "value": "type: array\nitems: {type: integer}"}, "[1, 2.5]"),
    # contains-json: promptfoo's extraction (objects only, braces counted, YAML, auto-closed)
    ({"type": "contains-json"}, 'Here: {"a": 1} done'),
    ({"type": "contains-json"}, '{"a": 1}'),
    ({"type": "contains-json"}, "[1, 2, 3]"),
    ({"type": "contains-json"}, "Use {braces} here"),
    ({"type": "contains-json"}, "{a: 1}"),
    ({"type": "contains-json"}, '{"a": 1'),
    ({"type": "contains-json"}, 'x {"a": "}"} y'),
    ({"type": "contains-json"}, '{"a": 1, // note\n"b": 2}'),
    ({"type": "contains-json"}, "no json at all"),
    ({"type": "contains-json"}, "{}"),
    ({"type": "not-contains-json"}, "plain"),
    ({"type": "contains-json", "value": {"type": "object", "required": ["b"]}}, '{"a": 1} then {"b": 2}'),
    ({"type": "contains-json", "value": {"type": "object", "required": ["b"]}}, '{"a": 1}'),
    (
        {"type": "contains-json", "value": {"required": ["a"], "properties": {"a": {"type": "string"}}}},
        "{a: yes}",
    ),
    # levenshtein: distance <= threshold (default 5), UTF-16 units
    ({"type": "levenshtein", "value": "hello world"}, "hello world"),
    ({"type": "levenshtein", "value": "hello world"}, "hallo wörld"),
    ({"type": "levenshtein", "value": "hello world"}, "goodbye world"),
    ({"type": "levenshtein", "value": "kitten", "threshold": 3}, "sitting"),
    ({"type": "levenshtein", "value": "kitten", "threshold": 2}, "sitting"),
    ({"type": "levenshtein", "value": "ab", "threshold": 1}, "a\U0001f600b"),
    ({"type": "levenshtein", "value": "ab", "threshold": 2}, "a\U0001f600b"),
    ({"type": "not-levenshtein", "value": "abc", "threshold": 0}, "abd"),
    # latency / cost: promptfoo measures them; Proctor's recorded answers do not (unmeasured)
    ({"type": "latency", "threshold": 60000}, "fast"),
    ({"type": "cost", "threshold": 1}, "cheap"),
]

TOOL_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"city": "Oslo"}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"city": "Oslo", "days": 2}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"days": 2}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"city": 5}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"city": "Oslo", "days": 0}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["book_flight", {"to": "Oslo"}]]}),
    ({"type": "is-valid-openai-tools-call"}, {"tool_calls": [["no_params", {}]]}),
    (
        {"type": "is-valid-openai-tools-call"},
        {"tool_calls": [["get_weather", {"city": "Oslo"}], ["get_weather", {"city": 1}]]},
    ),
    ({"type": "is-valid-openai-tools-call"}, {"content": "It is sunny."}),
    (
        {"type": "is-valid-openai-tools-call"},
        {"content": "Calling:", "tool_calls": [["get_weather", {"city": "Oslo"}]]},
    ),
    ({"type": "not-is-valid-openai-tools-call"}, {"tool_calls": [["get_weather", {"days": 1}]]}),
    ({"type": "is-valid-openai-function-call"}, {"function_call": ["get_weather", {"city": "Oslo"}]}),
    ({"type": "is-valid-openai-function-call"}, {"function_call": ["get_weather", {"city": 3}]}),
    ({"type": "is-valid-openai-function-call"}, {"function_call": ["nope", {"city": "Oslo"}]}),
    ({"type": "is-valid-openai-function-call"}, {"function_call": ["no_params", {}]}),
    ({"type": "is-valid-openai-function-call"}, {"content": "no call"}),
    (
        {"type": "is-valid-openai-function-call"},
        {"content": "Sure", "function_call": ["get_weather", {"city": "Oslo"}]},
    ),
]


def _message(spec: dict[str, Any]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": spec.get("content")}
    if "tool_calls" in spec:
        msg["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(spec["tool_calls"])
        ]
    if "function_call" in spec:
        n, a = spec["function_call"]
        msg["function_call"] = {"name": n, "arguments": json.dumps(a)}
    return msg


@pytest.fixture(scope="module")
def promptfoo() -> bench.Tools:
    """The pinned promptfoo, installed by hack/get-promptfoo.sh when it is missing (make test does)."""
    if (
        shutil.which("npm") is None
        and not bench.Tools(
            bench.TOOLS_ROOT / f"promptfoo-{bench.PROMPTFOO_VERSION}-node-{bench.NODE_VERSION}"
        ).stamp.is_file()
    ):
        pytest.fail("npm is needed to install promptfoo (apt-get install npm), or run make promptfoo")
    out = subprocess.run(
        ["bash", str(REPO / "hack" / "get-promptfoo.sh")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PY": sys.executable},
        timeout=900,
    )
    return bench.Tools(Path(out.stdout.strip().splitlines()[-1]))


def _run_promptfoo(tools: bench.Tools, work: Path, config: Path) -> list[dict[str, Any]]:
    home = work / "home"
    home.mkdir(exist_ok=True)
    result = work / f"{config.stem}-out.json"
    subprocess.run(
        [
            str(tools.node),
            str(tools.promptfoo),
            "eval",
            "-c",
            str(config),
            "--no-cache",
            "--no-share",
            "--no-table",
            "--no-progress-bar",
            "--no-write",
            "-o",
            str(result),
        ],
        cwd=work,
        env=bench.promptfoo_env(tools, home),
        capture_output=True,
        check=False,
        timeout=600,
    )
    assert result.is_file(), f"promptfoo wrote no results for {config}"
    return list(json.loads(result.read_text())["results"]["results"])


pf_reason: dict[str, str] = {}


def _verdicts(results: list[dict[str, Any]]) -> dict[str, tuple[bool | None, Any]]:
    """Test description -> (promptfoo's verdict, or None when it errored; the output it graded)."""
    out: dict[str, tuple[bool | None, Any]] = {}
    for r in results:
        cid = r["testCase"]["description"]
        comps = (r.get("gradingResult") or {}).get("componentResults") or []
        errored = r.get("failureReason") == 2 or not comps
        out[cid] = (None if errored else bool(comps[0]["pass"]), (r.get("response") or {}).get("output"))
        pf_reason[cid] = str(comps[0].get("reason")) if comps else str(r.get("error"))
    return out


def _proctor(config: Path, outputs: dict[str, Any]) -> tuple[dict[str, bool | None], set[str]]:
    """Case id -> Proctor's verdict (None: unmeasured), and the ids the importer refused."""
    res = import_promptfoo(config)
    refused = {w.split(" (")[1].split(")")[0] for w in [*res.untranslatable, *res.left_out] if " (" in w}
    docs = load_manifests(dump_manifest(res.manifest), source="imported")
    cases: list[Case] = list(docs[0].spec.cases)  # type: ignore[attr-defined]
    answers = {
        c.id: (o if isinstance(o, str) else json.dumps(o))
        for c in cases
        if (o := outputs.get(c.id)) is not None
    }
    cases = [c for c in cases if c.id in answers]
    results = grade_cases(cases, answers, scan=False)
    verdict: dict[str, bool | None] = {}
    for r in results:
        if r.failures:
            verdict[r.case_id] = False
        elif r.error or any(d.score is None for d in r.dimensions):
            verdict[r.case_id] = None
        else:
            verdict[r.case_id] = True
    return verdict, refused


def _write(path: Path, cfg: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return path


def test_proctor_gives_promptfoos_verdict_per_assertion_type(
    promptfoo: bench.Tools, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text_tests = []
    kinds: dict[str, str] = {}
    for i, (a, answer) in enumerate(TEXT_CASES):
        cid = f"t-{i:03d}"
        kinds[cid] = a["type"].removeprefix("not-")
        text_tests.append(
            {"description": cid, "vars": {"answer": answer, "expected": "0.30 qt/hr"}, "assert": [a]}
        )
    text_cfg = _write(
        tmp_path / "text.yaml",
        {"prompts": ["{{answer}}"], "providers": ["echo"], "sharing": False, "tests": text_tests},
    )
    with ts.JudgeServer() as server:
        server.default = ts.respond_with(
            lambda r: ts.raw(
                200,
                json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "gpt-4o-mini",
                        "choices": [
                            {
                                "index": 0,
                                "message": _message(json.loads(r.user_text.removeprefix("CALL "))),
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ),
                {"Content-Type": "application/json"},
            )
        )
        tool_tests = []
        for i, (a, spec) in enumerate(TOOL_CASES):
            cid = f"o-{i:03d}"
            kinds[cid] = a["type"].removeprefix("not-")
            tool_tests.append({"description": cid, "vars": {"spec": json.dumps(spec)}, "assert": [a]})
        tool_cfg = _write(
            tmp_path / "tools.yaml",
            {
                "prompts": ["CALL {{spec}}"],  # not JSON: promptfoo would read JSON as chat messages
                "providers": [
                    {
                        "id": "openai:chat:gpt-4o-mini",
                        "config": {
                            "apiBaseUrl": server.base_url,
                            "apiKey": "test-key",
                            "tools": TOOLS,
                            "functions": FUNCTIONS,
                        },
                    }
                ],
                "sharing": False,
                "tests": tool_tests,
            },
        )
        pf = _verdicts(_run_promptfoo(promptfoo, tmp_path, text_cfg))
        pf |= _verdicts(_run_promptfoo(promptfoo, tmp_path, tool_cfg))

    ours: dict[str, bool | None] = {}
    refused: set[str] = set()
    for cfg in (text_cfg, tool_cfg):
        outputs = {cid: out for cid, (_, out) in pf.items()}
        v, r = _proctor(cfg, outputs)
        ours |= v
        refused |= r

    agree, compared, pf_rejects, we_reject, unmeasured = Counter(), Counter(), Counter(), Counter(), Counter()
    mismatches: list[str] = []
    js_rejects = 0
    for cid, kind in kinds.items():
        theirs, output = pf.get(cid, (None, None))
        if theirs is None:
            pf_rejects[kind] += 1
            continue
        if cid in refused and kind == "regex" and "Invalid regex pattern" in str(pf_reason.get(cid)):
            js_rejects += (
                1  # JavaScript rejects it: promptfoo fails it on every answer, the import reports it
            )
            continue
        if cid in refused or cid not in ours:
            we_reject[kind] += 1
            mismatches.append(f"{cid} {kind}: promptfoo accepted (verdict {theirs}), the importer refused")
            continue
        if ours[cid] is None:
            unmeasured[kind] += 1
            continue
        compared[kind] += 1
        if ours[cid] == theirs:
            agree[kind] += 1
        else:
            mismatches.append(f"{cid} {kind}: promptfoo {theirs}, Proctor {ours[cid]} on {output!r:.80}")
    with capsys.disabled():
        print(f"\npromptfoo {bench.PROMPTFOO_VERSION} against proctor import + grade, per assertion type:")
        print(f"  (regexes JavaScript rejects, reported at import and not imported: {js_rejects})")
        print(
            f"  {'type':<32} {'compared':>8} {'agree':>6} {'rate':>7}  {'promptfoo errors':>16}  unmeasured"
        )
        for kind in sorted(set(kinds.values())):
            n = compared[kind]
            rate = f"{100 * agree[kind] / n:.0f} %" if n else "-"
            print(
                f"  {kind:<32} {n:>8} {agree[kind]:>6} {rate:>7}  {pf_rejects[kind]:>16}  {unmeasured[kind]}"
            )
    assert not mismatches, "\n".join(mismatches)
    # not vacuous: every type was compared on several inputs (latency and cost excepted: unmeasured)
    for kind in set(kinds.values()) - {"latency", "cost"}:
        assert compared[kind] >= 3, f"{kind}: only {compared[kind]} cases compared"
    assert unmeasured["latency"] == 1 and unmeasured["cost"] == 1
    assert js_rejects == 4  # (?i)..., a**, [z-a], (unclosed: reported at import, never imported
