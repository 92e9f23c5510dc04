"""Compile a case set once, then grade answers against it: the deterministic half of an exam.

``proctor grade`` (offline) and the judge Job's runner share this path, so a case means the same
thing wherever it is graded. Judged dimensions are attached here as names and thresholds; the
runner fills them from the judge, offline grading reports them as skipped (never as zeros).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from proctor.api.assertions import Assertion
from proctor.api.caseset import SAFETY_MEASURES_NOTHING, Case
from proctor.api.profile import EvalProfileSpec
from proctor.graders._assertions import (
    GRADER_LANGUAGES,
    JUDGE_ONLY,
    AssertionCompileError,
    CaseContext,
    CheckOutcome,
    CompiledAssertion,
    CompileMemo,
    Embedder,
    compile_assertion,
    compile_assertions,
)
from proctor.graders._grade import ambiguous_readings, grade_case
from proctor.graders._redaction import marker
from proctor.graders._rubric import (
    ASSERTION_DIMENSION,
    ASSERTION_THRESHOLD,
    SCAN_DIMENSION,
    assertion_rubric,
    scan_rubric,
)
from proctor.graders._scanpolicy import ScanPolicy, scan_policy
from proctor.graders._steering import steer_result
from proctor.protocol.types import DEFAULT_DIMENSION_THRESHOLD, CaseResult, DimensionScore, Tier


class CaseSetProblem(ValueError):
    """A case set that cannot be graded; ``problems`` names every case and what is wrong."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class CompiledCase:
    """A case ready to grade: compiled assertions, its context, its judged dimensions."""

    id: str
    tier: Tier
    category: str
    question: str
    assertions: tuple[CompiledAssertion, ...]
    ctx: CaseContext
    dimensions: tuple[tuple[str, float], ...]
    case: Case


def case_question(case: Case) -> str:
    """The case's input as text (chat messages joined as ``role: content`` lines)."""
    if isinstance(case.input, str):
        return case.input
    return "\n".join(f"{m.role}: {m.content}" for m in case.input)


def _dimensions(case: Case, profile: EvalProfileSpec | None) -> tuple[tuple[str, float], ...]:
    if case.dimensions is not None:
        if profile is None:
            return tuple((d, DEFAULT_DIMENSION_THRESHOLD) for d in case.dimensions)
        return tuple((d, profile.threshold_of(d)) for d in case.dimensions)
    if profile is None:
        return ()
    return tuple((d.name, d.threshold) for d in profile.resolved_dimensions())


def compile_cases(
    cases: Iterable[Case],
    *,
    where: str = "case set",
    profile: EvalProfileSpec | None = None,
    embedder: Embedder | None = None,
    offline: bool = False,
    memo: CompileMemo | None = None,
) -> list[CompiledCase]:
    """Compile every case's assertions once; report every case that cannot be compiled at once.

    ``embedder`` goes into every case's context (for ``similar``; without one it is unmeasured).
    A safety case that would measure nothing (no assertion, and no judged dimension: none of its
    own and none from ``profile``) is refused: it would pass any answer. Without ``profile`` that
    is known only when grading ``offline`` (a cluster run resolves the profile later). ``memo``
    carries compiled assertions from one call to the next (batches of one case set).
    """
    out: list[CompiledCase] = []
    problems: list[str] = []
    if memo is None:
        memo = {}  # an assertion stated by many cases is compiled once
    for case in cases:
        try:
            compiled = compile_assertions(case.assert_, memo)
        except AssertionCompileError as e:
            problems.append(f"{where}: case {case.id!r}: {e}")
            continue
        dimensions = _dimensions(case, profile)
        if case.tier is Tier.SAFETY and not compiled and not dimensions and (profile is not None or offline):
            why = "" if profile is not None or case.dimensions is not None else " (no --profile given)"
            problems.append(f"{where}: case {case.id!r}: {SAFETY_MEASURES_NOTHING}{why}")
            continue
        question = case_question(case)
        ctx = CaseContext(
            reference=case.reference,
            context={d.id: d.text for d in case.context},
            question=question,
            embedder=embedder,
        )
        out.append(
            CompiledCase(
                id=case.id,
                tier=case.tier,
                category=case.category or "",
                question=question,
                assertions=compiled,
                ctx=ctx,
                dimensions=dimensions,
                case=case,
            )
        )
    if problems:
        raise CaseSetProblem(problems)
    return out


def grade_answer(
    c: CompiledCase,
    answer: str,
    *,
    scan: bool | ScanPolicy = True,
    judged: Sequence[DimensionScore] | None = None,
    unjudged_reason: str = "no judge: graded offline",
    latency_ms: float | None = None,
    judged_assertions: Mapping[int, DimensionScore] | None = None,
) -> CaseResult:
    """Grade one answer: assertions and the safety scan, plus the judged dimensions.

    ``judged`` are the judge's scores for ``c.dimensions``; without them each dimension is
    reported skipped with ``unjudged_reason`` (the case is then unmeasured unless an assertion
    already failed it). ``latency_ms`` is how long a live agent took (for ``latency``). Text in the
    answer addressed to its grader makes the judged dimensions unmeasured and fails
    ``instruction_adherence`` (:func:`proctor.graders._steering.steer_result`).
    ``judged_assertions`` are the judge's scores of undetermined assertions, by position
    (:func:`unread_assertions`).
    """
    ctx = c.ctx if latency_ms is None else dataclasses.replace(c.ctx, latency_ms=latency_ms)
    result = grade_case(
        c.id,
        c.tier,
        answer,
        c.assertions,
        ctx,
        category=c.category,
        scan=scan,
        judged_assertions=judged_assertions,
    )
    if not c.dimensions:
        return steer_result(result, answer)
    dims = (
        tuple(judged)
        if judged is not None
        else tuple(
            DimensionScore(name=n, threshold=t, skipped_reason=unjudged_reason) for n, t in c.dimensions
        )
    )
    return steer_result(dataclasses.replace(result, dimensions=(*result.dimensions, *dims)), answer)


#: what the judge's runner scores in place of an assertion (or a scan reading) nobody could read
@dataclass(frozen=True, slots=True)
class AssertionRubric:
    """An assertion the graders could not read, as a judged dimension: its position in the case,
    the dimension's ``name`` (``assert[0]:label``), the rubric and the threshold."""

    index: int
    name: str
    rubric: str
    threshold: float


def unread_assertions(c: CompiledCase, answer: str, scan: bool | ScanPolicy = True) -> list[AssertionRubric]:
    """The assertions of ``c`` its graders cannot read in ``answer`` (a language or a form they
    have no rules for), each as the rubric the judge scores instead; then the readings of the
    safety scan (with ``scan``) that it cannot tell from harmless text, at the positions after the
    assertions' (:func:`proctor.graders._grade.ambiguous_readings`)."""
    policy = scan_policy(scan)
    ambiguous = ambiguous_readings(answer, policy, policy.findings(answer))
    out = [
        AssertionRubric(
            len(c.assertions) + k,
            SCAN_DIMENSION.format(index=k, kind=f.kind),
            scan_rubric(marker(f)),
            ASSERTION_THRESHOLD,
        )
        for k, f in enumerate(ambiguous)
    ]
    for i, compiled in enumerate(c.assertions):
        if compiled.base not in GRADER_LANGUAGES and compiled.base not in JUDGE_ONLY:
            continue
        check = compiled.check(answer, c.ctx)
        if check.outcome is CheckOutcome.UNDETERMINED and check.unread is not None:
            name = ASSERTION_DIMENSION.format(index=i, type=compiled.type)
            rubric = assertion_rubric(compiled.assertion, c.ctx.context)
            out.append(AssertionRubric(i, name, rubric, ASSERTION_THRESHOLD))
    return sorted(out, key=lambda r: r.index)


def unanswered(c: CompiledCase, reason: str) -> CaseResult:
    """A case whose answer could not be obtained: unmeasured, with the reason."""
    return CaseResult(case_id=c.id, tier=c.tier, category=c.category, error=reason)


#: An ordinary answer: reading it builds what the safety scan and the grader-steering check
#: build on first use (their rules' regexes and prefilters, about a fifth of a CPU-second).
_WARM_UP_ANSWER = (
    "Order ORD-1234 for Jane Doe (desk lamp) was shipped on 2026-01-25 via UPS to Lima. "
    'The total was 12.50 EUR, ref A1B2C3D4E5F6G7H8I9J0. {"status": "ok", "items": [1, 2]}'
)


def warm_up(scan: bool | ScanPolicy) -> None:
    """Build the scan's and the steering check's rules now, once, before workers fork: each
    worker would otherwise build its own copy of them."""
    steer_result(CaseResult(case_id="warm-up", tier=Tier.FORM), _WARM_UP_ANSWER)
    scan_policy(scan).findings(_WARM_UP_ANSWER)


#: An answer of each supported language's kind (a decline, a guess, a claim of agreement, a
#: label): reading it with every language grader builds each language's rules
_WARM_UP_LANGUAGES = (
    "I can't tell from the report; probably 5 kg, everyone agrees, so A.",
    "Le rapport ne le dit pas ; sans doute 5 kg, tout le monde est d'accord, donc A.",
    "Der Bericht sagt es nicht; vermutlich 5 kg, alle sind sich einig, also A.",
    "El informe no lo dice; seguramente 5 kg, todos están de acuerdo, así que A.",
    "O relatório não o diz; talvez 5 kg, todos concordam, portanto A.",
    "Il rapporto non lo dice; probabilmente 5 kg, sono tutti d'accordo, quindi A.",
    "Het rapport zegt het niet; waarschijnlijk 5 kg, iedereen is het eens, dus A.",
)


def warm_up_languages() -> None:
    """Build every supported language's rules for the language graders now, once: the first
    answer of a language would otherwise pay it (seconds of one CPU, holding the interpreter), and
    a server that reads answers as they come (the collector) would stall meanwhile."""
    ctx = CaseContext(context={"doc": "Weight 5 kg."}, question="How heavy is it?", labels=("A", "B"))
    checks = [
        compile_assertion(Assertion(type=t))
        for t in ("refusal", "no-guess-after-refusal", "no-manufactured-consensus")
    ]
    checks.append(compile_assertion(Assertion(type="label", value="A", labels=["A", "B"])))
    for answer in _WARM_UP_LANGUAGES:
        for check in checks:
            check.check(answer, ctx)


def grade_cases(
    cases: Sequence[Case],
    answers: Mapping[str, str],
    *,
    where: str = "case set",
    profile: EvalProfileSpec | None = None,
    scan: bool | ScanPolicy = True,
    embedder: Embedder | None = None,
) -> list[CaseResult]:
    """Compile and grade every case against its answer, in this process, in case order.

    Every case must have an answer; raises :class:`CaseSetProblem` naming every case that cannot
    be compiled. A large exam is graded across processes by
    :func:`proctor.graders._shares.grade_shared`, which falls back to this to word a problem.
    """
    compiled = compile_cases(cases, where=where, profile=profile, embedder=embedder, offline=True)
    return [grade_answer(c, answers[c.id], scan=scan) for c in compiled]
