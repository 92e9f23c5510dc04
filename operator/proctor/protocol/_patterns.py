"""Behaviour patterns: recurring ways an agent falls short, and how they are ranked.

A *pattern* is a group of failing judgments (a dimension below its threshold) that share the
dimension, the run's category (what the run's typed signals say about it: a tool loop, tool errors,
an abstention, or ``general``) and the failure's reason, grouped by meaning (the judge's rationale,
embedded; two reasons are one when the cosine similarity of their vectors reaches
:data:`DEFAULT_REASON_SIMILARITY`).

Ranking is recurrence x recency, kept decomposed so a person sees why one pattern outranks another:

- ``recurrence``: failing judgments in the pattern since it was opened (or last reopened);
- ``recency``: ``0.5 ** (age / half_life)``, the age being the time since its latest occurrence
  (1.0 for one seen just now, 0.5 one half-life ago);
- ``score = recurrence * recency``.

A resolved pattern stays resolved until a failure of the same kind occurs *after* it was resolved:
then it reopens, and its recurrence counts again from that occurrence. Pure: time is passed in.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

#: Seconds after which a pattern's recency weight halves (a setting; one week by default).
DEFAULT_HALF_LIFE_SECONDS: Final = 7 * 24 * 3600.0
#: Cosine similarity at which two failure reasons are read as one (MiniLM sentence vectors: two
#: paraphrases of one failure score about 0.5, unrelated failures under 0.3).
DEFAULT_REASON_SIMILARITY: Final = 0.45
#: Run ids kept as the evidence behind a pattern or a guidance line.
EVIDENCE_RUNS: Final = 5
#: The category of a run whose signals say nothing special about it.
GENERAL_CATEGORY: Final = "general"


class PatternState(StrEnum):
    """Whether a pattern is still being acted on."""

    OPEN = "open"
    RESOLVED = "resolved"


def category_of(signals: Mapping[str, Any]) -> str:
    """The category of a run from its typed trajectory signals (the collector's ``signals``):
    the first of ``loop``, ``tool-errors``, ``abstained`` that holds, else :data:`GENERAL_CATEGORY`."""
    if signals.get("loopSuspected") is True:
        return "loop"
    errors = signals.get("toolErrors")
    if isinstance(errors, int | float) and not isinstance(errors, bool) and errors > 0:
        return "tool-errors"
    if signals.get("abstained") is True:
        return "abstained"
    return GENERAL_CATEGORY


def recency_weight(last_seen: float, now: float, half_life: float) -> float:
    """``0.5 ** (age / half_life)``; an occurrence in the future (clock skew) counts as now."""
    if not half_life > 0 or math.isinf(half_life):
        raise ValueError(f"the half-life must be a positive number of seconds, not {half_life!r}")
    age = max(0.0, now - last_seen)
    weight: float = 0.5 ** (age / half_life)
    return weight


@dataclass(frozen=True, slots=True)
class PatternFacts:
    """What is stored about a pattern (the input of :func:`rank`)."""

    id: int
    dimension: str
    category: str
    reason: str
    recurrence: int
    last_seen: float
    first_seen: float
    state: PatternState = PatternState.OPEN


@dataclass(frozen=True, slots=True)
class Ranked:
    """A pattern with its ranking, decomposed: ``score == recurrence * recency``."""

    pattern: PatternFacts
    recurrence: int
    recency: float
    score: float


def rank(patterns: Iterable[PatternFacts], now: float, half_life: float) -> list[Ranked]:
    """Patterns by score, highest first (ties: more recurrence, then seen later, then id)."""
    out = []
    for p in patterns:
        recency = recency_weight(p.last_seen, now, half_life)
        out.append(Ranked(p, p.recurrence, recency, p.recurrence * recency))
    out.sort(key=lambda r: (-r.score, -r.recurrence, -r.pattern.last_seen, r.pattern.id))
    return out


@dataclass(frozen=True, slots=True)
class Occurrence:
    """What one more failing judgment does to a pattern: its new state and recurrence."""

    state: PatternState
    recurrence: int
    reopened: bool


def occur(state: PatternState, recurrence: int, resolved_at: float | None, at: float) -> Occurrence:
    """A failing judgment at ``at`` joins a pattern. One after the pattern was resolved reopens it
    (recurrence starts again at 1); one from before (evidence that arrived late) only counts."""
    if state is PatternState.RESOLVED:
        if resolved_at is not None and at > resolved_at:
            return Occurrence(PatternState.OPEN, 1, True)
        return Occurrence(state, recurrence, False)
    return Occurrence(state, recurrence + 1, False)


def _dot(u: Sequence[float], v: Sequence[float]) -> float:
    total: float = sum(map(operator.mul, u, v))
    return total


def cosine(u: Sequence[float], v: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0.0 when either is zero)."""
    if len(u) != len(v):
        raise ValueError(f"vectors differ in length ({len(u)} and {len(v)})")
    nu, nv = math.sqrt(_dot(u, u)), math.sqrt(_dot(v, v))
    return _dot(u, v) / (nu * nv) if nu and nv else 0.0


def nearest(vector: Sequence[float], centroids: Sequence[Sequence[float]], threshold: float) -> int | None:
    """The index of the centroid most similar to ``vector`` at ``threshold`` or above (None: a new
    reason). Ties go to the earlier centroid (the older pattern)."""
    best, best_sim = None, threshold
    for i, c in enumerate(centroids):
        sim = cosine(vector, c)
        if sim >= best_sim and (best is None or sim > best_sim):
            best, best_sim = i, sim
    return best


def accumulate(total: Sequence[float], vector: Sequence[float]) -> list[float]:
    """The sum of a pattern's reason vectors with one more. A pattern keeps the sum, not the mean:
    cosine similarity reads only direction, and the sum points where the mean does."""
    if len(total) != len(vector):
        raise ValueError(f"vectors differ in length ({len(total)} and {len(vector)})")
    return list(map(operator.add, total, vector))


@dataclass(frozen=True, slots=True)
class GuidanceLine:
    """One line of improvement guidance, and the runs it is drawn from."""

    pattern: int
    dimension: str
    text: str
    evidence: tuple[str, ...]
    score: float


def guidance(
    ranked: Sequence[Ranked],
    evidence: Mapping[int, Sequence[str]],
    rubrics: Mapping[str, str],
    thresholds: Mapping[str, float],
    *,
    limit: int = 10,
) -> list[GuidanceLine]:
    """Improvement guidance from the open patterns, most pressing first: what fell short, how
    often, the judge's words for why, and the rubric it is judged against. Each line carries the
    run ids it is drawn from (``evidence`` by pattern id)."""
    out = []
    for r in ranked:
        p = r.pattern
        if p.state is not PatternState.OPEN:
            continue
        where = "" if p.category == GENERAL_CATEGORY else f" in runs with {p.category}"
        bar = thresholds.get(p.dimension)
        below = f"below its threshold ({bar:g})" if bar is not None else "below its threshold"
        times = "once" if r.recurrence == 1 else f"{r.recurrence} times"
        text = f"{p.dimension} fell {below}{where} {times}. The judge's reason: {p.reason.strip()}"
        rubric = rubrics.get(p.dimension)
        if rubric:
            text += f" Aim for: {_aim(rubric)}"
        out.append(
            GuidanceLine(p.id, p.dimension, text, tuple(evidence.get(p.id, ())[:EVIDENCE_RUNS]), r.score)
        )
        if len(out) >= limit:
            break
    return out


def _aim(rubric: str) -> str:
    """What full marks mean in ``rubric`` (its ``100:`` line), else its first sentence."""
    for line in rubric.splitlines():
        if line.strip().startswith("100:"):
            return line.strip()[4:].strip()
    flat = " ".join(rubric.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]
