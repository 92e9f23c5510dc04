"""A large exam graded by one process per core, each validating and grading its own share.

The ConfigMaps' texts are cut into even shares by size (:func:`shares`) and the inline cases into
even counts; each process parses only the texts of its share and validates, compiles and grades
them a batch at a time (:func:`proctor.api.case_batches`), so no process ever holds every
validated case. The workers are forked: they inherit the texts, the answers, and the scan's,
steering check's and (when a case needs it) language detector's rules built once before the fork.

This path never words a problem: on any (a text or case that does not validate, a case without an
answer, an assertion that does not compile, an id twice) :func:`grade_shared` returns None, and
the caller grades everything in one process (:func:`proctor.graders.grade_cases`), which names
every problem in the order it finds them.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from proctor.api.caseset import Case
from proctor.api.loading import CASE_BATCH, CaseSource, ManifestError, case_batches
from proctor.api.profile import EvalProfileSpec
from proctor.graders._assert_language import GRADER_LANGUAGES
from proctor.graders._assertions import CompileMemo, Embedder
from proctor.graders._exam import CaseSetProblem, compile_cases, grade_answer, warm_up
from proctor.graders._languages import preload_detector
from proctor.graders._scanpolicy import ScanPolicy
from proctor.protocol.types import CaseResult, Tier

#: From this much case text in ConfigMaps (about 1,500 cases of the benchmark's size), or this many
#: inline cases, workers save more than starting them costs.
PARALLEL_MIN_BYTES = 512 * 1024
PARALLEL_MIN_CASES = 2000

#: Assertion types whose graders detect the answer's language (``cites`` and ``grounded-urls``
#: read every language alike).
_DETECTING = frozenset(t for t, languages in GRADER_LANGUAGES.items() if languages is not None)

#: ``type: label`` (YAML) or ``"type": "not-refusal"`` (JSON) in a text: a case there will load the
#: language detector. A text written otherwise (an alias) is missed, and each worker then loads
#: its own model: more memory, the same results. It starts with the literal ``type`` so that the
#: search skips ahead to it (a word ending in "type" is told apart after: :func:`_names_detecting`).
_DETECTING_TYPE = re.compile(
    r"""type["']?\s*:\s*["']?(?:not-)?(?:"""
    + "|".join(re.escape(t) for t in sorted(_DETECTING))
    + r""")\b(?!-)"""
)


def _names_detecting(text: str) -> bool:
    """Whether ``text`` sets an assertion's ``type`` to one that detects languages."""
    return any(
        m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_-")
        for m in _DETECTING_TYPE.finditer(text)
    )


@dataclass(frozen=True)
class GradingJob:
    """What every worker grades a share of (inherited through fork, never pickled)."""

    inline: Sequence[Case]
    sources: Sequence[CaseSource]
    answers: Mapping[str, str]
    where: str
    profile: EvalProfileSpec | None
    scan: ScanPolicy
    #: makes the embedder for ``similar`` in the process that first needs one (a model loaded
    #: before the fork would be copied into every worker that touches it)
    embedder: Callable[[], Embedder] | None = None

    def detects_languages(self) -> bool:
        """Whether some case may ask the language detector (then it is loaded before the fork)."""
        return any(a.type.removeprefix("not-") in _DETECTING for c in self.inline for a in c.assert_) or any(
            _names_detecting(s.text) for s in self.sources
        )


def worth_sharing(inline: Sequence[Case], sources: Sequence[CaseSource]) -> bool:
    """Whether grading these cases in workers saves more than starting them costs."""
    return sum(len(s.text) for s in sources) >= PARALLEL_MIN_BYTES or len(inline) >= PARALLEL_MIN_CASES


#: A worker's part of one source: the source's position (-1 for the inline cases) and the
#: fractions of its case list from and to which the worker grades.
Part = tuple[int, Fraction, Fraction]
#: What a worker grades back for one part: the source's position, its cases' ids and results.
_Graded = tuple[int, list[str], list[CaseResult]]

_job: GradingJob | None = None


def cores() -> int:
    """The cores this process may run on (at most 8): one worker each."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def shares(sizes: Sequence[int], workers: int) -> list[list[Part]]:
    """Each worker's parts of the sources (of ``sizes`` characters each, in order): contiguous
    and even by size, so a worker parses only the texts it grades from, and at most
    ``workers - 1`` sources are split between two workers. An empty text is the first worker's."""
    total = sum(sizes)
    out: list[list[Part]] = [[] for _ in range(workers)]
    begin = 0
    for n, size in enumerate(sizes):
        if size == 0:
            out[0].append((n, Fraction(0), Fraction(1)))
            continue
        for k in range(workers):
            lo = max(Fraction(begin), Fraction(total * k, workers))
            hi = min(Fraction(begin + size), Fraction(total * (k + 1), workers))
            if hi > lo:
                out[k].append((n, (lo - begin) / size, (hi - begin) / size))
        begin += size
    return out


def _batches(job: GradingJob, n: int, start: Fraction, stop: Fraction) -> Iterator[Sequence[Case]]:
    """A part's cases a batch at a time: a worker never holds the models of more than one batch."""
    if n >= 0:
        yield from case_batches(job.sources[n].text, where="", start=start, stop=stop)
        return
    inline = job.inline
    part = inline[math.floor(len(inline) * start) : math.floor(len(inline) * stop)]
    for i in range(0, len(part), CASE_BATCH):
        yield part[i : i + CASE_BATCH]


def needs_embedder(cases: Sequence[Case]) -> bool:
    """Whether a case asks ``similar``, which needs an embedder."""
    return any(a.type.removeprefix("not-") == "similar" for c in cases for a in c.assert_)


def _grade_share(parts: list[Part]) -> list[_Graded] | None:
    """A worker's parts, graded: their case ids and results, part by part; None when anything is
    wrong (a problem in a text or a case, a case without an answer)."""
    assert _job is not None
    job = _job
    out: list[_Graded] = []
    embedder: Embedder | None = None
    for n, start, stop in parts:
        ids: list[str] = []
        results: list[CaseResult] = []
        memo: CompileMemo = {}  # an assertion stated by many cases of a source is compiled once
        try:
            for cases in _batches(job, n, start, stop):
                if any(c.id not in job.answers for c in cases):
                    return None
                if embedder is None and job.embedder is not None and needs_embedder(cases):
                    embedder = job.embedder()
                compiled = compile_cases(
                    cases, where=job.where, profile=job.profile, embedder=embedder, offline=True, memo=memo
                )
                ids += (c.id for c in cases)
                results += (grade_answer(c, job.answers[c.id], scan=job.scan) for c in compiled)
        except (ManifestError, CaseSetProblem):
            return None
        out.append((n, ids, results))
    return out


#: A worker's results as sent back: a case that passed with nothing to report is its tier's name
#: alone (most cases), any other its whole result. Pickling a result is a Python call each way
#: (about 3 us), a string is copied by the C code: 25 ms fewer for 5,000 cases, on the path the
#: verdict waits for.
_Packed = tuple[int, list[str], list[str | CaseResult]]
_TIERS = {t.value: t for t in Tier}


def _grade_share_packed(parts: list[Part]) -> list[_Packed] | None:
    graded = _grade_share(parts)
    if graded is None:
        return None
    return [(n, ids, [_pack(r) for r in results]) for n, ids, results in graded]


def _pack(result: CaseResult) -> str | CaseResult:
    plain = result == CaseResult(case_id=result.case_id, tier=result.tier) and not result.extra
    return result.tier.value if plain else result


def _unpacked(share: list[_Packed] | None) -> list[_Graded] | None:
    if share is None:
        return None
    return [
        (
            n,
            ids,
            [
                CaseResult(case_id=i, tier=_TIERS[r]) if isinstance(r, str) else r
                for i, r in zip(ids, packed, strict=True)
            ],
        )
        for n, ids, packed in share
    ]


def grade_shared(job: GradingJob, workers: int) -> tuple[list[str], list[CaseResult]] | None:
    """Every case's id and result, in case order, each of ``workers`` processes (this one and
    ``workers - 1`` forked) validating and grading its share; None when a share has a problem or
    an id is written twice (the caller then grades it all in one process, which names it)."""
    global _job
    _job = job
    inline = (
        [(-1, Fraction(k, workers), Fraction(k + 1, workers)) for k in range(workers)] if job.inline else []
    )
    plan = shares([len(s.text) for s in job.sources], workers)
    for k in range(workers):
        plan[k][:0] = inline[k : k + 1]
    try:
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            graded = [_grade_share([p for ps in plan for p in ps])]
        else:
            if job.detects_languages():
                preload_detector()  # about 80 MiB that the workers then share
            warm_up(job.scan)  # the scan's and steering check's rules, shared by the workers
            # the collector would visit every object the workers inherit, writing to its header and
            # so copying every page of it into each worker: what exists now is left out of it
            gc.freeze()
            # fork: the workers inherit the texts and answers instead of receiving them pickled;
            # this process grades the first share itself meanwhile (one process and one copy of
            # its results fewer)
            with multiprocessing.get_context("fork").Pool(workers - 1) as pool:
                others = pool.map_async(_grade_share_packed, plan[1:])
                first = _grade_share(plan[0])
                graded = [first, *map(_unpacked, others.get())] if first is not None else [None]
    finally:
        _job = None
        gc.unfreeze()
    ids: list[str] = []
    results: list[CaseResult] = []
    # the workers' parts in case order: by source, and within a source by worker
    for _, part_ids, part_results in sorted(
        (part for share in graded if share is not None for part in share), key=lambda p: p[0]
    ):
        ids += part_ids
        results += part_results
    if any(share is None for share in graded) or len(set(ids)) != len(ids):
        return None
    return ids, results
