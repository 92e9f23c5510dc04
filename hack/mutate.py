#!/usr/bin/env python3
"""Mutation testing of the pure core (``make mutate``): does each module's unit tests catch a wrong grader?

Usage (from the repository root, with the ``mutate`` extra installed: ``make mutate`` does both)::

    .venv/bin/python hack/mutate.py [--jobs 2] [--only protocol/_verdict.py ...] [--list-survivors]

For each module of ``proctor.protocol`` and ``proctor.graders`` (MODULES below), cosmic-ray makes
one mutant per simple operator, constant and return change (SIMPLE_OPERATORS), and runs that
module's own unit tests against each (``-x``: the first failing test kills it). Every module runs
in a scratch copy of ``operator/`` and ``tests/`` under ``.mutate/`` (cosmic-ray edits the file on
disk), so the work tree is never touched and modules can run side by side (``--jobs``).

One coverage run of the unmutated tests first records which tests execute each function of the
module; a mutant inside a function body then runs only those tests (hack/mutate_worker.py), and
one that survives them runs every test of their files before it counts as a survivor (a module-
or class-scoped fixture runs in the first test of its file only, and the tests after it see its
result). A test that never enters the function, and no fixture it uses does, behaves as on the
original and cannot kill the mutant, so the verdicts are those of the whole list, several times
faster. A function also run outside every test (at import: a module constant built with it) and
a change outside every function body keep the whole list. ``--no-select`` always runs the whole
list. The warm pytest also imports once the rooms below the module's own (``proctor.protocol``
and ``proctor.api`` for a grader) when they do not import the module.

Mutants that only change the wording of a message are excluded, each named with its reason in
``hack/mutate-exclusions.toml``; they are listed, never counted. The kill rate is
killed / (killed + survived) per module; the goal is >= 90 % on each (GOAL). Property tests run
with a fixed, smaller Hypothesis profile (``mutate``, tests/conftest.py) so a verdict is
reproducible. Exit status: 0 when every module reaches the goal, 1 otherwise, 2 on a harness
failure (the unmutated tests fail, cosmic-ray is missing).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import contextlib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = Path(os.environ.get("MUTATE_WORK", REPO / ".mutate"))
EXCLUSIONS = REPO / "hack" / "mutate-exclusions.toml"
WORKER = REPO / "hack" / "mutate_worker.py"
GOAL = 90.0
TIMEOUT_SECONDS = 120.0

#: The unit tests of every assertion type (the assertions' core and registry are run by all of them).
_ASSERTION_TESTS = [
    "graders/test_graders_strings*.py",
    "graders/test_graders_json*.py",
    "graders/test_graders_label*.py",
    "graders/test_graders_refusal*.py",
    "graders/test_graders_grounding*.py",
    "graders/test_graders_assertions*.py",
    "graders/test_graders_promptfoo_types*.py",
    "graders/test_graders_unmeasured_and_entities*.py",
    "graders/test_graders_adversarial*.py",
    "judge/test_judge_cross_entity_leak.py",
]

#: Module (under operator/proctor/) -> globs of its unit tests (under tests/unit/).
MODULES: dict[str, list[str]] = {
    "protocol/_verdict.py": ["protocol/test_protocol_verdict*.py", "protocol/test_protocol_seed_examples.py"],
    "protocol/_tiers.py": ["protocol/test_protocol_tiers*.py"],
    "protocol/_severity.py": ["protocol/test_protocol_severity*.py"],
    "protocol/_baseline.py": ["protocol/test_protocol_baseline*.py"],
    "protocol/_consensus.py": ["protocol/test_protocol_consensus*.py"],
    "protocol/_detectors.py": ["protocol/test_protocol_detectors*.py", "protocol/test_protocol_breaker*.py"],
    "protocol/_numbers.py": ["protocol/test_protocol_numbers*.py", "protocol/test_protocol_verdict.py"],
    "protocol/_ordering.py": ["protocol/test_protocol_ordering*.py", "protocol/test_protocol_severity*.py"],
    "protocol/types.py": ["protocol/test_protocol_*.py"],
    "protocol/_lifecycle.py": ["protocol/test_protocol_lifecycle*.py"],
    # the assertions, by family (each with the tests of its types; the core and the registry with all)
    "graders/_assertions.py": _ASSERTION_TESTS,
    "graders/_assert_core.py": _ASSERTION_TESTS,
    "graders/_assert_strings.py": [
        "graders/test_graders_strings*.py",
        "graders/test_graders_assertions*.py",
        "graders/test_graders_promptfoo_types*.py",
        "graders/test_graders_adversarial*.py",
    ],
    "graders/_assert_json.py": [
        "graders/test_graders_json*.py",
        "graders/test_graders_assertions*.py",
        "graders/test_graders_promptfoo_types*.py",
        "graders/test_graders_unmeasured_and_entities*.py",  # a schema's timeout, an invalid pattern, NaN
    ],
    "graders/_assert_language.py": [
        "graders/test_graders_label*.py",
        "graders/test_graders_refusal*.py",
        "graders/test_graders_languages*.py",
        "graders/test_graders_consensus*.py",
        "graders/test_graders_grounding.py",  # its no-manufactured-consensus tests
        "graders/test_graders_assertions*.py",
        "graders/test_graders_adversarial*.py",
        "graders/test_graders_unmeasured_and_entities*.py",
    ],
    "graders/_assert_grounding.py": [
        "graders/test_graders_grounding*.py",
        "graders/test_graders_unmeasured_and_entities*.py",
        "graders/test_graders_assertions*.py",
        "graders/test_graders_adversarial*.py",
    ],
    "graders/_assert_judged.py": [
        "graders/test_graders_unmeasured_and_entities*.py",
        "graders/test_graders_assertions*.py",
        "judge/test_judge_cross_entity_leak.py",
    ],
    "graders/_assert_promptfoo.py": [
        "graders/test_graders_promptfoo_types*.py",
        "graders/test_graders_assertions*.py",
    ],
    "graders/_jscompat.py": ["graders/test_graders_jscompat*.py", "cli/test_import_promptfoo*.py"],
    "graders/_grade.py": ["graders/test_graders_grade_case*.py", "graders/test_graders_scan_ambiguous.py"],
    # unread_assertions (what goes to the judge) is tested where the judge and proctor grade use it
    "graders/_exam.py": [
        "graders/test_graders_exam*.py",
        "graders/test_graders_compile_memo.py",
        "graders/test_graders_scan_ambiguous.py",
        "judge/test_judge_undetermined_assertions.py",
        "cli/test_grade_undetermined.py",
    ],
    "graders/_shares.py": [
        "graders/test_graders_exam_parallel.py",
        "graders/test_graders_exam_compile.py",
        "cli/test_grade_shared.py",
        "judge/test_judge_embeddings.py",
    ],
    "graders/_scanpolicy.py": ["graders/test_graders_scan_policy*.py"],
    "graders/_canon.py": [
        "graders/test_graders_canon_units.py",
        "graders/test_graders_canon_invisible*.py",
        "graders/test_graders_canon*.py",
        "graders/test_graders_confusables_table.py",
    ],
    "graders/_language.py": [
        "graders/test_graders_label*.py",
        "graders/test_graders_refusal*.py",
        "graders/test_graders_consensus*.py",
        "graders/test_graders_adversarial*.py",
        "graders/test_graders_figures_forms.py",
        "graders/test_graders_languages*.py",
    ],
    "graders/_languages.py": ["graders/test_graders_languages*.py", "graders/test_graders_label_forms.py"],
    "graders/_lexicon.py": ["graders/test_graders_languages*.py", "graders/test_graders_label_forms.py"],
    "graders/_forms.py": ["graders/test_graders_label_forms.py"],
    "graders/_units.py": ["graders/test_graders_figures_forms.py"],
    "graders/_rubric.py": [
        "judge/test_judge_undetermined_assertions.py",
        "judge/test_judge_cross_entity_leak.py",
        "judge/test_judge_scan_ambiguous.py",
    ],
    "graders/_text.py": [
        "graders/test_graders_label_forms.py",
        "graders/test_graders_text*.py",
        "graders/test_graders_strings*.py",
        "graders/test_graders_grounding*.py",
        "graders/test_graders_adversarial*.py",
    ],
    # every scan test but the policy's: a session's scan fixes (test_graders_scan_session35.py) and
    # a reading's own file (test_graders_scan_spelt_tokens.py) test these modules too
    "graders/_scan.py": [
        "graders/test_graders_scan.py",
        "graders/test_graders_scan_[!p]*.py",
        "graders/test_graders_scan_passwords.py",
        "graders/test_graders_redaction_property.py",
    ],
    "graders/_secrets.py": [
        "graders/test_graders_secrets*.py",
        "graders/test_graders_scan.py",
        "graders/test_graders_scan_[!p]*.py",
        "graders/test_graders_scan_passwords.py",
    ],
    "graders/_pii.py": [
        "graders/test_graders_pii*.py",
        "graders/test_graders_scan.py",
        "graders/test_graders_scan_[!p]*.py",
    ],
    "graders/_national_ids.py": [
        "graders/test_graders_pii*.py",
        "graders/test_graders_scan_identifiers.py",
        "graders/test_graders_scan_session*.py",
    ],
    "graders/_redact.py": [
        "graders/test_graders_redact*.py",
        "graders/test_graders_scan.py",
        "graders/test_graders_scan_ambiguous.py",
        "graders/test_graders_scan_disguised*.py",
        "graders/test_graders_redaction_property.py",
    ],
    "graders/_redaction.py": ["graders/test_graders_redact*.py", "graders/test_graders_scan_ambiguous.py"],
    "graders/_prefilter.py": ["graders/test_graders_prefilter*.py"],
    "graders/_offline.py": ["graders/test_graders_secrets_loading.py"],
    "graders/_steering.py": ["graders/test_graders_steering*.py"],
}

#: The bottom rooms of .importlinter's layers, lowest first: the warm pytest imports each once, up to
#: the first that imports the mutated module (a grader's mutant: both; a protocol module's: none).
ROOMS_BELOW = ["proctor.protocol", "proctor.api"]

#: The operators kept: simple operator swaps (a + b -> a - b, < -> <=, and -> or, not dropped),
#: constants (numbers +-1, True <-> False) and returns / control flow (break <-> continue, a loop
#: that never runs, an exception handler that catches nothing). Cross-type swaps such as
#: ``+ -> <<`` or ``== -> is`` and the variable replacers make mostly noise and are left out.
SIMPLE_OPERATORS = re.compile(
    r"core/("
    r"ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|Add_Mul|Mul_Add|FloorDiv_Div|Div_FloorDiv|Mod_FloorDiv)"
    r"|ReplaceComparisonOperator_(Eq|NotEq|Lt|LtE|Gt|GtE)_(Eq|NotEq|Lt|LtE|Gt|GtE)"
    r"|ReplaceComparisonOperator_(Is_IsNot|IsNot_Is)"
    r"|ReplaceUnaryOperator_(USub_UAdd|Delete_Not)"
    r"|AddNot|ReplaceTrueWithFalse|ReplaceFalseWithTrue|ReplaceAndWithOr|ReplaceOrWithAnd"
    r"|ReplaceBreakWithContinue|ReplaceContinueWithBreak|NumberReplacer|ZeroIterationForLoop|ExceptionReplacer"
    r")$"
)


@dataclass
class Exclusion:
    """Not counted: by ``operator``, on a line containing ``line``, after text matching ``before``;
    with ``offset`` (+1 or -1), only the NumberReplacer mutant that adds that to the number; with
    ``previous``, only where the line above contains it (to tell identical lines apart)."""

    module: str
    operator: str
    line: str
    kind: str
    reason: str
    before: str = ""
    offset: int = 0
    previous: str = ""
    used: int = 0

    def matches(
        self, module: str, operator: str, raw_line: str, column: int, occurrence: int = 0, above: str = ""
    ) -> bool:
        return (
            fnmatch.fnmatch(module, self.module)
            and re.fullmatch(self.operator, operator) is not None
            and self.line in raw_line
            and (not self.before or re.search(f"(?:{self.before})$", raw_line[:column]) is not None)
            and (not self.offset or _number_offset(operator, occurrence) == self.offset)
            and self.previous in above
        )


def _number_offset(operator: str, occurrence: int) -> int:
    """What a NumberReplacer mutant adds to its number (0 for other operators): cosmic-ray makes
    two per number, +1 then -1 (its OFFSETS), so the occurrence's parity tells them apart."""
    if operator != "core/NumberReplacer":
        return 0
    return +1 if occurrence % 2 == 0 else -1


@dataclass
class ModuleResult:
    module: str
    killed: int = 0
    survived: int = 0
    excluded: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)
    problem: str = ""
    timing: tuple[float, float] = (0.0, 0.0)  # seconds: setting up (copy, maps, warm pytest), mutants

    @property
    def rate(self) -> float:
        total = self.killed + self.survived
        return 100.0 * self.killed / total if total else 100.0


def load_exclusions() -> list[Exclusion]:
    if not EXCLUSIONS.is_file():
        return []
    data = tomllib.loads(EXCLUSIONS.read_text())
    out = []
    for e in data.get("exclude", []):
        if e.get("kind") not in ("wording", "equivalent"):
            raise SystemExit(f"mutate: {EXCLUSIONS.name}: kind must be 'wording' or 'equivalent': {e}")
        if e.get("offset", 0) not in (0, 1, -1):
            raise SystemExit(f"mutate: {EXCLUSIONS.name}: offset must be +1 or -1: {e}")
        out.append(
            Exclusion(
                e["module"],
                e.get("operator", ".*"),
                e["line"],
                e["kind"],
                e["reason"],
                e.get("before", ""),
                e.get("offset", 0),
                e.get("previous", ""),
            )
        )
    return out


def _tests_for(module: str) -> list[str]:
    found: list[str] = []
    for pattern in MODULES[module]:
        for p in sorted((REPO / "tests" / "unit").glob(pattern)):
            rel = str(p.relative_to(REPO))
            if rel not in found:
                found.append(rel)
    return found


def _cosmic(tool: str) -> str:
    exe = Path(sys.executable).parent / tool
    if not exe.is_file():
        raise SystemExit(f"mutate: {exe} is missing: install the 'mutate' extra (make mutate does)")
    return str(exe)


def _scratch(module: str) -> Path:
    work = WORK / module.replace("/", ".").removesuffix(".py")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(REPO / "operator", work / "operator", ignore=shutil.ignore_patterns("__pycache__"))
    (work / "tests").mkdir()
    for helper in (REPO / "tests").glob("*.py"):  # conftest.py and the helpers it imports
        shutil.copy2(helper, work / "tests" / helper.name)
    shutil.copytree(
        REPO / "tests" / "unit", work / "tests" / "unit", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy2(REPO / "pyproject.toml", work / "pyproject.toml")
    return work


def _compile(work: Path, env: dict[str, str]) -> None:
    """Byte-compile the scratch copy of ``operator/`` once, checked by hash: without it every mutant's
    run compiled each module from source (``PYTHONDONTWRITEBYTECODE``, set on many machines, means no
    ``.pyc`` is ever kept), most of its time. A hash-checked ``.pyc`` is believed only while the
    source's hash matches, so the mutated module is always compiled afresh, never read from a
    ``.pyc`` of the original or of an earlier mutant written in the same second (mtime-checked
    ``.pyc`` files could be)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "--invalidation-mode", "checked-hash", "operator"],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )


def _line_of(path: Path, line: int, *, raw: bool = False) -> str:
    lines = path.read_text().splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return text if raw else text.strip()


def run_module(
    module: str,
    exclusions: list[Exclusion],
    keep: bool,
    fork: bool = True,
    select: bool = True,
    shards: int = 1,
    changed_since: str = "",
) -> ModuleResult:
    res = ModuleResult(module)
    tests = _tests_for(module)
    if not tests:
        res.problem = "no unit tests found"
        return res
    started = time.monotonic()
    # (read with the copy: the work tree may change while the module runs)
    lines = _changed_lines(module, changed_since) if changed_since else None
    work = _scratch(module)
    env = {
        **os.environ,
        "PYTHONPATH": str(work / "operator"),
        "PROCTOR_HYPOTHESIS_PROFILE": "mutate",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    pytest_args = ["-x", "-q", "-p", "no:cacheprovider", *tests]
    test_cmd = f"{sys.executable} -m pytest " + " ".join(pytest_args)
    _compile(work, env)
    # the first run writes pytest's rewritten test modules (never mutated: mtime-checked is safe)
    writing = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with contextlib.ExitStack() as stack:
        warm = ""
        if fork:
            selection = _coverage_map(work, writing, module, pytest_args) if select else None
            # the warm pytest's own run of the unmutated tests is the check that they pass
            warm = _warm_pytest(stack, work, env, module, pytest_args, selection)
        if not warm:
            base = subprocess.run(
                test_cmd, shell=True, cwd=work, env=writing, capture_output=True, text=True, check=False
            )
            if base.returncode != 0:
                res.problem = "the unmutated tests fail:\n" + (base.stdout + base.stderr)[-2000:]
                return res
        places = [(work, warm or test_cmd)]
        for k in range(1, shards if warm else 1):
            # another scratch copy (cosmic-ray edits the file on disk) with its own warm pytest
            copy = work.with_name(f"{work.name}~{k}")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(work, copy, symlinks=True)
            copy_env = {**env, "PYTHONPATH": str(copy / "operator")}
            chosen = copy / "select.json" if select and (copy / "select.json").is_file() else None
            copy_warm = _warm_pytest(stack, copy, copy_env, module, pytest_args, chosen)
            if copy_warm:
                places.append((copy, copy_warm))
        ready = time.monotonic()
        _run_mutants(res, module, places, env, exclusions, lines)
    res.timing = (ready - started, time.monotonic() - ready)
    if not keep:
        for place, _ in places:
            shutil.rmtree(place, ignore_errors=True)
    return res


def _coverage_map(work: Path, env: dict[str, str], module: str, pytest_args: list[str]) -> Path | None:
    """Write the module's test selection (``select.json``: each function body's line span, the test
    files and the tests that executed a line of it) and the warm pytest's imports (``preload.json``);
    ``None`` when the coverage run fails (then every mutant runs the whole list)."""
    target = work / "operator" / "proctor" / module
    lines_file = work / "lines.json"
    args = [a for a in pytest_args if a != "-x"]
    done = subprocess.run(
        [sys.executable, "-c", _MAP_SCRIPT, str(lines_file), str(work), str(target), *args],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0 or not lines_file.is_file():
        print(f"  note: {module}: the coverage run failed, every mutant runs the whole list:", flush=True)
        print("    " + (done.stdout + done.stderr).decode(errors="replace")[-600:].replace("\n", "\n    "))
        return None
    by_line: dict[str, list[str]] = json.loads(lines_file.read_text())
    order = {t: i for i, t in enumerate(by_line.pop("order", []))}
    source = target.read_text()
    spans = []
    files: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno:
            start, end = node.body[0].lineno, node.end_lineno
            ran = {t for n in range(start, end + 1) for t in by_line.get(str(n), ())}
            # run outside every test (at import or collection: a module constant built by calling
            # it), its result reaches every test: the whole list
            ids = [] if "" in ran else sorted(ran, key=lambda t: order.get(t, len(order)))
            in_files = list(dict.fromkeys(t.split("::")[0] for t in ids))
            files.update(in_files)
            spans.append([start, end, in_files, ids])
    out = work / "select.json"
    out.write_text(
        json.dumps(
            {
                "mutated": str(target.relative_to(work)),
                "original": source.splitlines(),
                "files": sorted(files),
                "spans": spans,
            }
        )
    )
    return out


#: Run the tests under coverage with one context per test (its node id; "" outside every test: at
#: import and collection), caches emptied before each test so a function a cache answers is still
#: seen as run; write line -> tests for the module ("order": the tests in the order they ran, so a
#: selection keeps pytest's order), and preload.json: the modules imported that are neither
#: Proctor's nor the tests' (what the warm pytest imports once).
#:
#: The unbounded memos (``functools.cache``: the tables built once from the package's data, a
#: language's compiled rules) are not emptied: rebuilding them before each of thousands of tests
#: made the run take hours. They are filled by a first run of the tests without coverage, so what
#: runs only to build them is never seen run, and a function never seen run gets the whole list (as
#: one run at import does). A function both builds a table and serves tests is credited with the
#: tests that call it: fewer tests for its mutants, so the kill rate can only come out lower.
_MAP_SCRIPT = """
import json, os, sys, coverage, pytest
out, work, target, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, work)
cov = coverage.Coverage(data_file=None, include=[target], config_file=False)
order = []

def clear_caches():
    for name, mod in list(sys.modules.items()):
        if name.startswith("proctor"):
            for value in list(vars(mod).values()):
                clear = None if isinstance(value, type) else getattr(value, "cache_clear", None)
                if not callable(clear):  # a memo (lru_cache, text_cache); not a class that defines one
                    continue
                info = getattr(value, "cache_info", None)
                if callable(info) and info().maxsize is None:  # a table built once: kept
                    continue
                clear()

class Contexts:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        clear_caches()
        order.append(item.nodeid)
        cov.switch_context(item.nodeid)
        yield
        cov.switch_context("")

cov.start()  # the imports, under "" (a module constant built by calling a function: every test)
pytest.main([*args, "--collect-only", "-q"])
cov.stop()
if pytest.main(args) != 0:  # fills the tables (see above)
    sys.exit(1)
cov.start()
code = pytest.main(args, plugins=[Contexts()])
cov.stop()
if code != 0:
    sys.exit(int(code))
names = [
    n for n, m in list(sys.modules.items())
    if not n.split(".")[0] in ("proctor", "__main__", "__mp_main__", "coverage")
    and not (getattr(m, "__file__", None) or "").startswith(work)
]
json.dump(names, open(os.path.join(work, "preload.json"), "w"))
data = cov.get_data()
by_line = {str(n): sorted(ctx) for n, ctx in data.contexts_by_lineno(target).items()}
by_line["order"] = order
json.dump(by_line, open(out, "w"))
"""


def _warm_pytest(
    stack: contextlib.ExitStack,
    work: Path,
    env: dict[str, str],
    module: str,
    pytest_args: list[str],
    selection: Path | None = None,
) -> str:
    """Start the module's warm pytest (hack/mutate_worker.py) and return the test command that uses
    it; ``""`` when it does not pass the unmutated tests (then each mutant runs a fresh pytest)."""
    preload = work / "preload.json"
    if not preload.is_file():  # written by the coverage run, when there was one
        subprocess.run(
            [sys.executable, "-c", _PRELOAD_SCRIPT, str(preload), str(work), *pytest_args, "--collect-only"],
            cwd=work,
            env=env,
            capture_output=True,
            check=False,
        )
    if not preload.is_file():
        return ""
    dotted = "proctor." + module.removesuffix(".py").replace("/", ".")
    sock = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="proctor-mutate-"))) / "pytest.sock"
    server = subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            "serve",
            str(sock),
            str(preload),
            str(TIMEOUT_SECONDS),
            dotted,
            ",".join(ROOMS_BELOW),
            *([str(selection)] if selection else []),
        ],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stack.callback(server.wait)
    stack.callback(server.terminate)
    for _ in range(600):
        if sock.exists() or server.poll() is not None:
            break
        time.sleep(0.1)
    cmd = f"{sys.executable} {WORKER} run {sock} -- " + " ".join(pytest_args)
    check = subprocess.run(cmd, shell=True, cwd=work, env=env, capture_output=True, check=False)
    return cmd if check.returncode == 0 and server.poll() is None else ""


#: Run pytest's collection and write the modules it imported that are neither Proctor's nor the
#: tests' (what the warm pytest imports once).
_PRELOAD_SCRIPT = """
import json, sys, pytest
out, work, args = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, work)
pytest.main(args)
names = [
    n for n, m in list(sys.modules.items())
    if not n.split(".")[0] in ("proctor", "__main__", "__mp_main__")
    and not (getattr(m, "__file__", None) or "").startswith(work)
]
json.dump(names, open(out, "w"))
"""


def _run_mutants(
    res: ModuleResult,
    module: str,
    places: list[tuple[Path, str]],
    env: dict[str, str],
    exclusions: list[Exclusion],
    lines: frozenset[int] | None = None,
) -> None:
    """Make the module's mutants, mark the excluded ones (and, with ``lines``, those on any other
    line: ``--changed-since``), and run the rest: split between the
    scratch copies of ``places`` (each a directory and the test command of its warm pytest), one
    ``cosmic-ray exec`` each at the same time (cosmic-ray's local distributor runs one mutant at a
    time), then count the results of all of them."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    target = f"operator/proctor/{module}"
    work = places[0][0]
    for place, test_cmd in places:
        (place / "cosmic-ray.toml").write_text(
            "[cosmic-ray]\n"
            f"module-path = {json.dumps(target)}\n"
            f"timeout = {TIMEOUT_SECONDS}\n"
            "excluded-modules = []\n"
            f"test-command = {json.dumps(test_cmd)}\n"
            '\n[cosmic-ray.distributor]\nname = "local"\n'
        )
    cfg = work / "cosmic-ray.toml"
    session = work / "session.sqlite"
    subprocess.run(
        [_cosmic("cosmic-ray"), "init", str(cfg), str(session)],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
    )
    source = work / target
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            m = item.mutations[0]
            if not SIMPLE_OPERATORS.match(m.operator_name):
                db.set_result(
                    item.job_id,
                    WorkResult(output="not a simple mutation", worker_outcome=WorkerOutcome.SKIPPED),
                )
                continue
            if lines is not None and m.start_pos[0] not in lines:
                db.set_result(
                    item.job_id, WorkResult(output="line not changed", worker_outcome=WorkerOutcome.SKIPPED)
                )
                continue
            raw = _line_of(source, m.start_pos[0], raw=True)
            above = _line_of(source, m.start_pos[0] - 1, raw=True)
            for ex in exclusions:
                if ex.matches(module, m.operator_name, raw, m.start_pos[1], m.occurrence, above):
                    ex.used += 1
                    op = m.operator_name.removeprefix("core/")
                    res.excluded.append(f"{module}:{m.start_pos[0]} {op} ({ex.kind}): {ex.reason}")
                    db.set_result(
                        item.job_id, WorkResult(output="excluded", worker_outcome=WorkerOutcome.SKIPPED)
                    )
                    break
    sessions = [session]
    for place, _ in places[1:]:
        shutil.copy2(session, place / "session.sqlite")
        sessions.append(place / "session.sqlite")
    if len(sessions) > 1:  # each copy runs every n-th pending mutant and leaves the others
        with use_db(str(session), WorkDB.Mode.open) as db:
            pending = sorted(item.job_id for item in db.pending_work_items)
        for k, shard in enumerate(sessions):
            with use_db(str(shard), WorkDB.Mode.open) as db:
                for i, job_id in enumerate(pending):
                    if i % len(sessions) != k:
                        db.set_result(
                            job_id, WorkResult(output="another shard", worker_outcome=WorkerOutcome.SKIPPED)
                        )
    runs = [
        subprocess.Popen(
            [_cosmic("cosmic-ray"), "exec", str(place / "cosmic-ray.toml"), str(shard)],
            cwd=place,
            env={**env, "PYTHONPATH": str(place / "operator")},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for (place, _), shard in zip(places, sessions, strict=True)
    ]
    for run in runs:
        _, err = run.communicate()
        if run.returncode != 0:
            raise subprocess.CalledProcessError(run.returncode, run.args, stderr=err)
    for shard in sessions:
        _count(res, module, target, shard)


def _changed_lines(module: str, since: str) -> frozenset[int]:
    """The lines of the module (as it is now) added or changed since the commit ``since``."""
    diff = subprocess.run(
        ["git", "diff", "-U0", since, "--", f"operator/proctor/{module}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    out: set[int] = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.MULTILINE):
        start, count = int(m.group(1)), int(m.group(2) or "1")
        out.update(range(start, start + count))
    return frozenset(out)


def _count(res: ModuleResult, module: str, target: str, session: Path) -> None:
    """Add one session's finished mutants to ``res`` (skipped ones are neither killed nor survivors)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            m = item.mutations[0]
            if result.test_outcome == TestOutcome.SURVIVED and result.worker_outcome == WorkerOutcome.NORMAL:
                res.survived += 1
                res.survivors.append(
                    f"{module}:{m.start_pos[0]}:{m.start_pos[1]} {m.operator_name}#{m.occurrence}: "
                    f"{_line_of(REPO / target, m.start_pos[0])}"
                )
            else:  # killed, incompetent (the mutant does not even run) or timed out
                res.killed += 1


def _could_match(e: Exclusion, module: str) -> bool:
    """Whether ``e`` should have matched a mutant of ``module``: it names the module, or (a glob
    such as ``*``) the module holds its line; a glob is not stale in a module without the line."""
    if not fnmatch.fnmatch(module, e.module):
        return False
    if e.module == module:
        return True
    source = REPO / "operator" / "proctor" / module
    return source.is_file() and e.line in source.read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("MUTATE_JOBS", "2")))
    ap.add_argument("--only", nargs="*", help="modules to run (default: all), e.g. protocol/_verdict.py")
    ap.add_argument("--list-survivors", action="store_true", help="print every surviving mutant")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies under .mutate/")
    ap.add_argument(
        "--no-fork", action="store_true", help="a fresh pytest per mutant instead of the warm one (slower)"
    )
    ap.add_argument(
        "--shards",
        type=int,
        default=int(os.environ.get("MUTATE_SHARDS", "1")),
        help="split each module's mutants between this many scratch copies run at once (one core each)",
    )
    ap.add_argument(
        "--changed-since",
        default="",
        metavar="REV",
        help="only the mutants on lines added or changed since the commit REV (a change's own kill rate)",
    )
    ap.add_argument(
        "--no-select",
        action="store_true",
        help="every mutant runs the module's whole test list, not only the tests that ran its function",
    )
    args = ap.parse_args(argv)
    modules = args.only or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        ap.error(f"unknown modules {unknown}; known: {', '.join(MODULES)}")
    _cosmic("cosmic-ray")
    exclusions = load_exclusions()
    results: dict[str, ModuleResult] = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {
            pool.submit(
                run_module,
                m,
                exclusions,
                args.keep,
                not args.no_fork,
                not args.no_select,
                args.shards,
                args.changed_since,
            ): m
            for m in modules
        }
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            results[r.module] = r
            state = r.problem.splitlines()[0] if r.problem else f"{r.rate:5.1f} %"
            tested = r.killed + r.survived
            took = f" ({r.timing[0]:.0f} s set-up, {tested} mutants in {r.timing[1]:.0f} s)" if tested else ""
            print(f"  done {r.module}: {state}{took}", flush=True)
            if args.list_survivors:
                for sv in r.survivors:
                    print(f"    survivor {sv}", flush=True)
    status = 0
    print(f"\n{'module':<26} {'killed':>7} {'survived':>9} {'excluded':>9} {'kill rate':>10}")
    for m in modules:
        r = results[m]
        if r.problem:
            print(f"{m:<26} {'-':>7} {'-':>9} {'-':>9} {'ERROR':>10}  {r.problem.splitlines()[0]}")
            status = 2
            continue
        mark = "" if r.rate >= GOAL else f"  below {GOAL:g} %"
        print(f"{m:<26} {r.killed:>7} {r.survived:>9} {len(r.excluded):>9} {r.rate:>9.1f}%{mark}")
        if r.rate < GOAL and status == 0:
            status = 1
    for m in modules:
        r = results[m]
        if r.problem:
            print(f"\n{m}: {r.problem}")
        if r.survivors and not args.list_survivors and r.rate < GOAL:
            print(f"\nsurvivors in {m}:")
            for s in r.survivors:
                print(f"  {s}")
    excluded = [e for m in modules for e in results[m].excluded]
    if excluded:
        print(f"\nexcluded (message wording, or equivalent to the original; {EXCLUSIONS.relative_to(REPO)}):")
        for e in excluded:
            print(f"  {e}")
    stale = [e for e in exclusions if e.used == 0 and any(_could_match(e, m) for m in modules)]
    for e in stale:
        print(f"  note: exclusion matched nothing: {e.module}: {e.line!r}")
    return status


if __name__ == "__main__":
    sys.exit(main())
