"""Judging dimensions with consensus: one judged dimension of one case, sampled again near its
threshold; a judge that gives no valid answer makes a *skipped* dimension with the reason, never a
zero. The arithmetic (when consensus is needed, the median and the agreement) is the protocol's
(:mod:`proctor.protocol`); the calls go through :class:`proctor.judge.client.JudgeClient`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from proctor.judge.client import JudgeClient
from proctor.judge.errors import JudgeError
from proctor.judge.prompts import JudgeInput, Judgment
from proctor.judge.rubrics import DimensionRubric
from proctor.protocol import CONSENSUS_SAMPLES, DimensionScore, aggregate, needs_consensus


async def judge_dimension(
    client: JudgeClient,
    dimension: DimensionRubric | tuple[str, str, float],
    content: JudgeInput,
    *,
    band: float | None = None,
    min_confidence: float | None = None,
) -> DimensionScore:
    """One judged dimension of one case, with consensus near the threshold. Never raises a
    :class:`JudgeError`: a judge that gives no valid answer makes a skipped dimension with the
    reason (score ``None``), never a zero.

    When the first judgment's confidence is below ``min_confidence`` or its score is within
    ``band`` points of the threshold (defaults from the client's settings), two more samples are
    taken; the median is the score and ``1 - spread/100`` the agreement. A consensus needs at least
    two valid samples of the three, or the dimension is skipped.
    """
    name, rubric, threshold = dimension[0], dimension[1], float(dimension[2])
    settings = client.settings
    band = settings.consensus_band if band is None else band
    min_confidence = settings.min_confidence if min_confidence is None else min_confidence
    client.stats.judgments += 1
    try:
        first = await client.judge((name, rubric, threshold), content)
    except JudgeError as e:
        return _skipped(client, name, threshold, e.reason)
    if not needs_consensus(
        first.score, threshold, first.confidence, band=band, min_confidence=min_confidence
    ):
        return DimensionScore(
            name=name,
            threshold=threshold,
            score=first.score,
            samples=(first.score,),
            rationale=_truncate(first.rationale, settings.rationale_limit),
        )
    extra = CONSENSUS_SAMPLES - 1
    client.stats.consensus_rounds += 1
    client.stats.consensus_calls += extra
    results = await asyncio.gather(
        *(client.judge((name, rubric, threshold), content) for _ in range(extra)), return_exceptions=True
    )
    judgments = [first]
    failures: list[str] = []
    for result in results:
        if isinstance(result, Judgment):
            judgments.append(result)
        elif isinstance(result, JudgeError):
            failures.append(result.reason)
        else:
            raise result
    why = _why_consensus(first, threshold, band, min_confidence)
    if len(judgments) < 2:
        return _skipped(
            client, name, threshold, f"consensus needed ({why}) but the extra samples failed: {failures[0]}"
        )
    consensus = aggregate(j.score for j in judgments)
    closest = min(judgments, key=lambda j: abs(j.score - consensus.median))
    rationale = closest.rationale
    if failures:
        rationale = f"{rationale} [{len(failures)} of {CONSENSUS_SAMPLES} samples failed: {failures[0]}]"
    return DimensionScore(
        name=name,
        threshold=threshold,
        score=consensus.median,
        agreement=consensus.agreement,
        samples=tuple(j.score for j in judgments),
        rationale=_truncate(rationale, settings.rationale_limit),
    )


async def judge_dimensions(
    client: JudgeClient,
    dimensions: Iterable[DimensionRubric | tuple[str, str, float]],
    content: JudgeInput,
    *,
    band: float | None = None,
    min_confidence: float | None = None,
) -> tuple[DimensionScore, ...]:
    """Every dimension of one case, judged concurrently (within the client's limit), in order."""
    return tuple(
        await asyncio.gather(
            *(
                judge_dimension(client, d, content, band=band, min_confidence=min_confidence)
                for d in dimensions
            )
        )
    )


def _skipped(client: JudgeClient, name: str, threshold: float, reason: str) -> DimensionScore:
    client.stats.skipped += 1
    return DimensionScore(name=name, threshold=threshold, score=None, skipped_reason=client.redact(reason))


def _why_consensus(first: Judgment, threshold: float, band: float, min_confidence: float) -> str:
    if first.confidence < min_confidence:
        return f"confidence {first.confidence:g} below {min_confidence:g}"
    return f"score {first.score:g} within {band:g} of threshold {threshold:g}"


def _truncate(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "\u2026"
