#!/usr/bin/env python3
"""Where ``proctor grade``'s time goes: CPU seconds per phase, in one process.

Usage (from the repository root, after ``bench/grading_vs_promptfoo.py`` wrote the cases)::

    .venv/bin/python bench/grading_profile.py                       # .bench/.../n10000-s42
    .venv/bin/python bench/grading_profile.py --work-dir DIR --cprofile out.prof

It runs ``proctor grade CASESET --responses ANSWERS --format json`` in this process, with one
worker (so every phase is seen), and prints the CPU time (``time.process_time``) of each phase:
the imports, reading the CaseSet and its ConfigMaps, parsing the answers, compiling the
assertions, checking them, the safety scan, the grader-steering check, deciding and rendering.
CPU time, not wall time, so the shares hold on a busy machine. ``--cprofile FILE`` also writes a
cProfile of the whole run (``python -m pstats FILE``). See bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_WORK = REPO / ".bench" / "grading_vs_promptfoo" / "n10000-s42"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work-dir", type=Path, default=DEFAULT_WORK, help=f"default {DEFAULT_WORK}")
    ap.add_argument("--cprofile", type=Path, help="also write a cProfile of the whole run here")
    args = ap.parse_args(argv)
    caseset, answers = args.work_dir / "caseset.yaml", args.work_dir / "answers.json"
    if not caseset.is_file() or not answers.is_file():
        print(f"no cases in {args.work_dir}: run bench/grading_vs_promptfoo.py first", file=sys.stderr)
        return 2

    profile = cProfile.Profile() if args.cprofile else None
    if profile is not None:
        profile.enable()
    spent: dict[str, float] = {}
    start = time.process_time()
    import proctor.api.loading as loading
    import proctor.cli.grade as grade
    import proctor.graders._exam as exam
    import proctor.graders._scanpolicy as scanpolicy
    import proctor.graders._shares as shares
    from proctor.cli import main as proctor_main

    spent["imports"] = time.process_time() - start

    def timed(owner: Any, name: str, phase: str) -> None:
        fn: Callable[..., Any] = getattr(owner, name)

        def wrapper(*a: Any, **k: Any) -> Any:
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[phase] = spent.get(phase, 0.0) + time.process_time() - t0

        setattr(owner, name, wrapper)

    timed(grade, "_load", "read the CaseSet file (YAML, models)")
    timed(loading, "_raw_cases", "cases from its ConfigMaps (YAML)")

    class TimedAdapter:  # the cases' validation, a batch at a time
        def __init__(self, adapter: Any) -> None:
            self.adapter = adapter

        def validate_python(self, *a: Any, **k: Any) -> Any:
            t0 = time.process_time()
            try:
                return self.adapter.validate_python(*a, **k)
            finally:
                phase = "cases from its ConfigMaps (models)"
                spent[phase] = spent.get(phase, 0.0) + time.process_time() - t0

    loading._CASE_LIST = TimedAdapter(loading._CASE_LIST)
    timed(grade, "parse_responses", "parse the answers")
    timed(shares, "compile_cases", "compile the assertions")
    timed(exam, "grade_case", "check assertions + safety scan")
    timed(scanpolicy.ScanPolicy, "findings", "safety scan")
    timed(exam, "steer_result", "grader-steering check")
    timed(grade, "decide", "decide")
    timed(grade.render, "from_decision", "render")
    timed(grade.render, "render_json", "render")
    grade.cores = lambda: 1  # one process, the shares' work in it (nothing forked)
    grade.worth_sharing = lambda inline, sources: True

    with contextlib.redirect_stdout(io.StringIO()):
        code = proctor_main(["grade", str(caseset), "--responses", str(answers), "--format", "json"])
    total = time.process_time() - start
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.cprofile)
    both = spent.pop("check assertions + safety scan", 0.0)
    spent["check the assertions"] = both - spent.get("safety scan", 0.0)
    print(f"proctor grade, one process, exit {code}: CPU seconds per phase")
    for phase, seconds in spent.items():
        print(f"  {phase:44s} {seconds:6.2f} s  {100 * seconds / total:5.1f} %")
    print(f"  {'total':44s} {total:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
