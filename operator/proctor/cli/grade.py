"""``proctor grade``: the offline exam of recorded answers against a CaseSet, no cluster.

The exit code is the verdict (PASS 0, FAIL 1, ERROR 2, WARN 3); input that cannot be graded exits 2
with the file and the case named and nothing on stdout. Deterministic assertions and the safety
scan need no judge; judged dimensions without one are reported as skipped.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from proctor.api import (
    Case,
    CaseSet,
    EvalProfile,
    GatePolicy,
    ManifestError,
    MissingReferenceError,
    load_manifests,
    parse_responses,
    protocol_policy,
    resolve_cases,
)
from proctor.cli import render
from proctor.graders import AssertionCompileError, CaseSetProblem, ScanPolicy, grade_cases
from proctor.protocol import decide

_T = TypeVar("_T")


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Offline exam of recorded answers. Exit codes: PASS 0, FAIL 1, ERROR 2 (also for bad input: nothing "
        "was graded), WARN 3. Judged dimensions without a judge are reported as skipped."
    )
    p.add_argument("caseset", type=Path, metavar="CASESET.yaml")
    p.add_argument(
        "--responses",
        type=Path,
        required=True,
        metavar="ANSWERS.yaml",
        help="map of case id -> recorded answer (YAML or JSON)",
    )
    p.add_argument("--policy", type=Path, metavar="GATEPOLICY.yaml", help="tier thresholds and margin")
    p.add_argument("--profile", type=Path, metavar="EVALPROFILE.yaml", help="judged dimensions, safety scan")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=main)


class InputError(Exception):
    """Input that cannot be graded: the message names the file and the case."""


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text") from e


def _load(path: Path) -> tuple[list[object], dict[str, dict[str, str]]]:
    """The Proctor objects in a file, and the ConfigMaps beside them (name -> data)."""
    others: list[Mapping[str, Any]] = []
    try:
        objects: list[object] = list(
            load_manifests(_read(path), source=str(path), ignore_other_kinds=True, others=others)
        )
    except ManifestError as e:
        raise InputError(
            "\n".join(p if p.startswith(str(path)) else f"{path}: {p}" for p in e.problems)
        ) from e
    config_maps: dict[str, dict[str, str]] = {}
    for d in others:
        if d.get("kind") == "ConfigMap":
            meta = d.get("metadata")
            name = meta.get("name") if isinstance(meta, Mapping) else None
            config_maps[str(name)] = dict(d.get("data") or {})
    return objects, config_maps


def _one(path: Path, kind: type[_T]) -> _T:
    found = [r for r in _load(path)[0] if isinstance(r, kind)]
    name = getattr(kind, "KIND", kind.__name__)
    if len(found) != 1:
        raise InputError(f"{path}: expected exactly one {name}, found {len(found)}")
    return found[0]


def closest(names: list[str], among: list[str]) -> list[tuple[str, str | None]]:
    """Each name beside the most similar of ``among`` (None when nothing is close): a typo in an
    answer's case id is named with the id it was meant to be."""
    return [(n, next(iter(difflib.get_close_matches(n, among, n=1, cutoff=0.6)), None)) for n in names]


def _caseset(path: Path) -> tuple[CaseSet, list[Case]]:
    """The file's one CaseSet and all its cases (those of its ConfigMaps too). The file's text and
    ConfigMaps are let go here: only the cases are kept while grading."""
    objects, config_maps = _load(path)
    casesets = [o for o in objects if isinstance(o, CaseSet)]
    if len(casesets) != 1:
        raise InputError(f"{path}: expected exactly one CaseSet, found {len(casesets)}")
    try:
        return casesets[0], resolve_cases(casesets[0], config_maps)
    except MissingReferenceError as e:
        raise InputError(
            f"{path}: " + "; ".join(e.problems) + " (offline, casesFrom ConfigMaps are read from "
            "the same file: put them there as extra YAML documents)"
        ) from e
    except ManifestError as e:
        raise InputError("\n".join(f"{path}: {p}" for p in e.problems)) from e


def main(args: argparse.Namespace) -> int:
    try:
        caseset, cases = _caseset(args.caseset)
        profile = _one(args.profile, EvalProfile) if args.profile else None
        policy = _one(args.policy, GatePolicy) if args.policy else None
        try:
            answers = parse_responses(_read(args.responses), where=str(args.responses))
        except ManifestError as e:
            raise InputError("\n".join(e.problems)) from e
        where = f"{args.caseset}: CaseSet {caseset.metadata.name}"
        missing = [c.id for c in cases if c.id not in answers]
        if missing:
            more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
            unmatched = sorted(set(answers) - {c.id for c in cases})
            hints = [f"{a!r} looks like {c!r}" for a, c in closest(unmatched, missing) if c]
            hint = f"; answers that match no case: {', '.join(hints[:5])}" if hints else ""
            raise InputError(
                f"{args.responses}: no answer for case {', '.join(repr(m) for m in missing[:5])}{more} "
                f"of {where}{hint}"
            )
        try:
            scan = ScanPolicy.from_spec(profile.spec.safety_scan if profile else None)
        except AssertionCompileError as e:
            raise InputError(f"{args.profile}: {e}") from e
        embedder = None
        if any(a.type.removeprefix("not-") == "similar" for c in cases for a in c.assert_):
            # loads on first use, in the process that grades (after grade_cases forks, if it does)
            from proctor.judge.embeddings import OnnxEmbedder

            embedder = OnnxEmbedder()
        try:
            results = grade_cases(
                cases,
                answers,
                where=where,
                profile=profile.spec if profile else None,
                scan=scan,
                embedder=embedder,
            )
        except CaseSetProblem as e:
            raise InputError("\n".join(e.problems)) from e
    except InputError as e:
        print(f"proctor grade: error: {e}", file=sys.stderr)
        print("proctor grade: nothing was graded (exit 2)", file=sys.stderr)
        return 2
    extra = sorted(set(answers) - {c.id for c in cases})
    if extra:
        named = [f"{a} (closest case: {c})" if c else a for a, c in closest(extra, [c.id for c in cases])]
        print(
            f"proctor grade: note: {len(extra)} answer(s) match no case and were ignored: "
            f"{', '.join(named[:5])}{' ...' if len(extra) > 5 else ''}",
            file=sys.stderr,
        )
    decision = decide(results, protocol_policy(policy.spec if policy else None))
    summary = render.from_decision(decision, results)
    if args.format == "json":
        doc = render.as_json(summary, extra={"caseSet": caseset.metadata.name, "cases": len(results)})
        print(render.render_json(doc))
    else:
        title = (
            f"proctor grade: CaseSet {caseset.metadata.name} ({len(results)} cases), answers {args.responses}"
        )
        print(render.render_text(summary, title=title, colour=sys.stdout.isatty()))
    return decision.exit_code
