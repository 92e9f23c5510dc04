"""Examining one answer: the judge, the graders and the safety scan, in one code path.

The judge Job's runner (arm A, one answer per case) and the collector's evaluation worker (arm B,
a live run's whole trajectory as the answer) both call :func:`examine_answer`, so a dimension, a
rubric, grounding, consensus and the safety scan mean the same thing wherever an answer is judged.
:func:`plan_dimensions` says which dimensions a compiled case is judged on; :func:`profile_provenance`
is the content-addressed version of a profile (the same digests an EvalProfile's status carries).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api import policy_digest
from proctor.api.profile import EvalProfileSpec
from proctor.graders import (
    STEERING_NOT_JUDGED,
    CompiledCase,
    ScanPolicy,
    grade_answer,
    redact_result,
    redact_text,
    steering_findings,
    steering_reason,
    unread_assertions,
)
from proctor.judge.client import JudgeClient, JudgeSettings
from proctor.judge.consensus import judge_dimensions
from proctor.judge.embeddings import ground
from proctor.judge.prompts import ContextDocument, JudgeInput, provenance
from proctor.judge.rubrics import DimensionRubric, resolve_dimensions, rubric_of
from proctor.protocol.types import CaseResult, DimensionScore

#: The judged dimension that profile grounding documents are matched for.
GROUNDED_DIMENSION = "factual_grounding"
#: The pseudo-dimension an ``llm-rubric`` assertion is judged as.
LLM_RUBRIC = "llm-rubric"


@dataclass(frozen=True)
class Grounding:
    """A profile's grounding documents, how many ground one answer, and the embedder that picks them."""

    documents: Sequence[tuple[str, str]]
    top_k: int
    embedder: Any


def builtin_rubric(name: str) -> str:
    """The built-in rubric of ``name``, or "" when it has none."""
    try:
        return rubric_of(name)
    except KeyError:
        return ""


def plan_dimensions(c: CompiledCase, rubrics: Mapping[str, DimensionRubric]) -> list[DimensionRubric]:
    """What the judge scores for ``c``: its dimensions (with the profile's rubrics, else the built-in
    ones) and one ``llm-rubric`` judgment per such assertion."""
    plan: list[DimensionRubric] = []
    for name, threshold in c.dimensions:
        rubric = rubrics[name].rubric if name in rubrics else builtin_rubric(name)
        plan.append(DimensionRubric(name, rubric, threshold))
    for a in c.case.assert_:
        if a.type == LLM_RUBRIC:
            plan.append(DimensionRubric(LLM_RUBRIC, str(a.value), 50.0))
    return plan


async def examine_answer(
    c: CompiledCase,
    answer: str,
    plan: Sequence[DimensionRubric],
    *,
    judge: JudgeClient | None,
    scan: ScanPolicy,
    no_judge: str,
    grounding: Grounding | None = None,
    latency_ms: float | None = None,
) -> tuple[CaseResult, str | None]:
    """Grade ``answer`` for ``c``: the judge on ``plan`` (grounded when the profile has documents),
    the deterministic assertions and the safety scan. Returns the result and the grounding note.

    Without a judge every planned dimension is skipped with ``no_judge``; a planned dimension
    without a rubric is skipped with a reason; nothing is ever scored zero for want of a judgment.
    With a judge, an assertion the graders cannot read in this answer (a language or a form they
    have no rules for) is judged as a rubric of its meaning (``assert[I]:TYPE``); a malformed
    judgment leaves it undetermined, the case unmeasured.
    ``latency_ms`` is how long a live agent took to answer (for ``latency`` assertions).
    """
    note: str | None = None
    judged: list[DimensionScore] = []
    # The graders and the scan are CPU work (a language's tables compile on first use, about a
    # second each): they run in a thread, so a collector's event loop keeps acknowledging
    # telemetry while a replica grades (an ingestion request waited out its timeout behind them).
    # an answer that addresses its grader is not sent to be judged: what the judge would say of
    # it measures nothing (grade_answer fails instruction_adherence and says why)
    steering = await asyncio.to_thread(steering_findings, answer)
    if steering:
        no_judge = f"{STEERING_NOT_JUDGED}: {steering_reason(steering)}"
    # assertions the graders cannot read in this answer (a language or a form): the judge scores
    # each as a rubric of its meaning; without a judge they stay undetermined (the case unmeasured)
    unread = []
    if judge is not None and not steering:
        unread = await asyncio.to_thread(unread_assertions, c, answer, scan)
    by_name = {u.name: u.index for u in unread}
    plan = [*plan, *(DimensionRubric(u.name, u.rubric, u.threshold) for u in unread)]
    if plan and judge is not None and not steering:
        # the judge provider is sent nothing the scan finds in clear: its findings go as markers
        context = await asyncio.to_thread(
            lambda: [ContextDocument(d.id, redact_text(d.text, scan)[0]) for d in c.case.context]
        )
        if grounding is not None and grounding.documents and any(p.name == GROUNDED_DIMENSION for p in plan):
            g = await asyncio.to_thread(
                ground, c.question, answer, grounding.documents, grounding.top_k, grounding.embedder
            )
            note = g.describe()
            context += [ContextDocument(i, t) for i, t, _ in g.documents]
        answer_shown, question_shown = await asyncio.to_thread(
            lambda: (redact_text(answer, scan)[0], redact_text(c.question, scan)[0])
        )
        content = JudgeInput(
            answer=answer_shown,
            input=question_shown,
            reference=c.case.reference,
            context=tuple(context),
        )
        judged = list(await judge_dimensions(judge, [p for p in plan if p.rubric], content))
    elif plan:
        judged = [DimensionScore(p.name, p.threshold, skipped_reason=no_judge) for p in plan]
    judged += [
        DimensionScore(p.name, p.threshold, skipped_reason=f"no rubric for dimension {p.name!r}")
        for p in plan
        if not p.rubric and judge is not None and not steering
    ]
    judged_assertions = {by_name[d.name]: d for d in judged if d.name in by_name}
    judged = [d for d in judged if d.name not in by_name]
    result = await asyncio.to_thread(
        functools.partial(
            grade_answer,
            c,
            answer,
            scan=scan,
            judged=judged if c.dimensions else None,
            latency_ms=latency_ms,
            judged_assertions=judged_assertions,
        )
    )
    if any(p.name == LLM_RUBRIC for p in plan):
        # the judge's llm-rubric scores replace the graders' "needs the judge" placeholders
        rubric_scores = [d for d in judged if d.name == LLM_RUBRIC]
        kept = [d for d in result.dimensions if d.name != LLM_RUBRIC]
        result = dataclasses.replace(result, dimensions=(*kept, *rubric_scores))
    # what is kept of the judgment may quote the answer: it is redacted like the answer
    return await asyncio.to_thread(redact_result, result, scan), note


def profile_provenance(spec: EvalProfileSpec) -> dict[str, str]:
    """The content-addressed versions a profile judges under, as its status carries them:
    ``judgePrompt`` (prompt templates, rubrics, model, parameters), ``grounding`` (the grounding
    policy and documents) and ``digest`` over both; empty without a judge or grounding."""
    prov: dict[str, str] = {}
    if spec.judge is not None:
        settings = JudgeSettings.from_spec(spec.judge)
        prov["judgePrompt"] = provenance(
            model=settings.model,
            parameters=settings.parameters(),
            rubrics={d.name: d.rubric for d in resolve_dimensions(spec)},
        )
    if spec.grounding is not None:
        prov["grounding"] = policy_digest(spec.grounding)
    if prov:
        prov["digest"] = policy_digest(prov)
    return prov
