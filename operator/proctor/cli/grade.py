"""``proctor grade``: the offline exam of recorded answers against a CaseSet, no cluster.

The exit code is the verdict (PASS 0, FAIL 1, ERROR 2, WARN 3); input that cannot be graded exits 2
with the file and the case named and nothing on stdout. Deterministic assertions and the safety
scan need no judge; judged dimensions without one are reported as skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from proctor.api import (
    Case,
    CaseSet,
    CaseSource,
    EvalProfile,
    GatePolicy,
    ManifestError,
    MissingReferenceError,
    case_sources,
    load_manifests,
    parse_responses,
    protocol_policy,
    resolve_cases,
)
from proctor.cli import render
from proctor.graders import (
    AssertionCompileError,
    CaseSetProblem,
    Embedder,
    GradingJob,
    ScanPolicy,
    cores,
    grade_cases,
    grade_shared,
    needs_embedder,
    worth_sharing,
)
from proctor.protocol import decide
from proctor.protocol.types import CaseResult

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


def _missing_reference(path: Path, e: MissingReferenceError) -> InputError:
    return InputError(
        f"{path}: " + "; ".join(e.problems) + " (offline, casesFrom ConfigMaps are read from "
        "the same file: put them there as extra YAML documents)"
    )


def _caseset(path: Path) -> tuple[CaseSet, dict[str, dict[str, str]], list[CaseSource]]:
    """The file's one CaseSet, the ConfigMaps beside it, and the texts its ``casesFrom`` names
    (not parsed yet: the processes that grade them parse them)."""
    objects, config_maps = _load(path)
    casesets = [o for o in objects if isinstance(o, CaseSet)]
    if len(casesets) != 1:
        raise InputError(f"{path}: expected exactly one CaseSet, found {len(casesets)}")
    try:
        return casesets[0], config_maps, case_sources(casesets[0], config_maps)
    except MissingReferenceError as e:
        raise _missing_reference(path, e) from e


def _resolve(path: Path, caseset: CaseSet, config_maps: Mapping[str, Mapping[str, str]]) -> list[Case]:
    """All the CaseSet's cases, validated in this process: every problem of every case named."""
    try:
        return resolve_cases(caseset, config_maps)
    except MissingReferenceError as e:
        raise _missing_reference(path, e) from e
    except ManifestError as e:
        raise InputError("\n".join(f"{path}: {p}" for p in e.problems)) from e


def _embedder() -> Embedder:
    # loads its model on first use, in the process that grades
    from proctor.judge.embeddings import OnnxEmbedder

    return OnnxEmbedder()


def _inputs(
    args: argparse.Namespace,
) -> tuple[EvalProfile | None, GatePolicy | None, dict[str, str], ScanPolicy]:
    """The profile, policy, answers and scan policy, or the InputError that names what is wrong."""
    profile = _one(args.profile, EvalProfile) if args.profile else None
    policy = _one(args.policy, GatePolicy) if args.policy else None
    try:
        answers = parse_responses(_read(args.responses), where=str(args.responses))
    except ManifestError as e:
        raise InputError("\n".join(e.problems)) from e
    try:
        scan = ScanPolicy.from_spec(profile.spec.safety_scan if profile else None)
    except AssertionCompileError as e:
        raise InputError(f"{args.profile}: {e}") from e
    return profile, policy, answers, scan


def _grade(
    args: argparse.Namespace,
) -> tuple[CaseSet, GatePolicy | None, dict[str, str], list[str], list[CaseResult]]:
    """The CaseSet, the policy, the answers, and every case's id and result, in case order.

    A large CaseSet is graded by one process per core (:func:`proctor.graders.grade_shared`); when
    that finds any problem, or the input is small, :func:`_grade_serial` grades (or refuses) it all
    in this process, so the words and the order of the problems reported are the same whichever
    path ran."""
    caseset, config_maps, sources = _caseset(args.caseset)
    if worth_sharing(caseset.spec.cases, sources):
        try:
            profile, policy, answers, scan = _inputs(args)
        except InputError:
            pass  # the cases' own problems are reported first: the serial path says which
        else:
            where = f"{args.caseset}: CaseSet {caseset.metadata.name}"
            spec = profile.spec if profile else None
            job = GradingJob(caseset.spec.cases, sources, answers, where, spec, scan, _embedder)
            graded = grade_shared(job, cores())
            if graded is not None:
                return caseset, policy, answers, *graded
    return _grade_serial(args, caseset, config_maps)


def _grade_serial(
    args: argparse.Namespace, caseset: CaseSet, config_maps: Mapping[str, Mapping[str, str]]
) -> tuple[CaseSet, GatePolicy | None, dict[str, str], list[str], list[CaseResult]]:
    cases = _resolve(args.caseset, caseset, config_maps)
    profile, policy, answers, scan = _inputs(args)
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
    embedder = _embedder() if needs_embedder(cases) else None
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
    return caseset, policy, answers, [c.id for c in cases], results


#: glibc's ``mallopt`` parameter for the size from which an allocation gets its own mapping.
_M_MMAP_THRESHOLD = -3


def _large_blocks_mapped() -> None:
    """Give every allocation of 128 KiB or more its own mapping, returned when freed.

    glibc raises that threshold to the size of each mapped block freed, so after the first file's
    text (megabytes) goes, the next texts and documents live in the heap and their holes stay
    resident: about 5 MiB in each grading process. Not glibc: nothing to do."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # another C library: nothing to do
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, 128 * 1024)


def main(args: argparse.Namespace) -> int:
    _large_blocks_mapped()
    try:
        caseset, policy, answers, ids, results = _grade(args)
    except InputError as e:
        print(f"proctor grade: error: {e}", file=sys.stderr)
        print("proctor grade: nothing was graded (exit 2)", file=sys.stderr)
        return 2
    extra = sorted(set(answers) - set(ids))
    if extra:
        named = [f"{a} (closest case: {c})" if c else a for a, c in closest(extra, ids)]
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
