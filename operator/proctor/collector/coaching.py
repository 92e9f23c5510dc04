"""Arm C's coaching: behaviour patterns grouped from stored failing scores, improvement guidance
derived from the open ones, and the rubric an agent is judged on (what ``proctor mcp`` serves).

:class:`Coaching` brings a monitor's patterns up to date with its stored scores before it answers
(:meth:`Coaching.refresh`: the failing scores not grouped yet, their reasons embedded with the
model the graders use for ``similar`` and grounding, :class:`~proctor.judge.embeddings.OnnxEmbedder`,
then grouped by :class:`~proctor.store.Patterns`). Without the model, reasons are grouped by
dimension and category alone and every answer says so (``grouping``), never a guessed grouping.
The ranking is :func:`proctor.protocol.rank` (recurrence x recency, the half-life a setting:
``proctor collector --pattern-half-life``), shown decomposed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import structlog
from sqlalchemy.exc import IntegrityError

from proctor.api import EvalProfile
from proctor.collector.views import iso
from proctor.judge.embeddings import EmbeddingUnavailable, OnnxEmbedder
from proctor.judge.rubrics import resolve_dimensions
from proctor.protocol import (
    DEFAULT_HALF_LIFE_SECONDS,
    DEFAULT_REASON_SIMILARITY,
    PatternState,
    Ranked,
    guidance,
    rank,
)
from proctor.store import Patterns, PatternView

log = structlog.get_logger("proctor.collector.coaching")

#: The RBAC verb (on agentmonitors) that resolving a pattern takes: a person says a fix shipped.
RESOLVE_VERB: Final = "resolve"
#: The states ``?state=`` accepts.
STATES: Final = {"open": (PatternState.OPEN,), "resolved": (PatternState.RESOLVED,), "all": None}
#: Refresh batches per request at most (the rest is grouped by the next request; ``pending`` says so).
REFRESH_BATCHES: Final = 5

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


def rubric_document(profile: EvalProfile, *, monitor: str | None = None) -> dict[str, Any]:
    """What an agent is judged on: each dimension's rubric and breach threshold (a score below it
    breaches), in the order the judge works through them."""
    sources = {d.name: d.source for d in profile.spec.resolved_dimensions()}
    ns = profile.metadata.namespace
    doc: dict[str, Any] = {
        "profile": f"{ns}/{profile.metadata.name}" if ns else profile.metadata.name,
        "breachRule": "a dimension scored below its threshold breaches the run",
        "dimensions": [
            {
                "name": d.name,
                "threshold": d.threshold,
                "source": sources.get(d.name, "custom"),
                "rubric": d.rubric,
            }
            for d in resolve_dimensions(profile.spec)
        ],
    }
    if monitor is not None:
        doc["monitor"] = monitor
    return doc


def pattern_json(r: Ranked, view: PatternView, half_life: float) -> dict[str, Any]:
    """A pattern with its ranking decomposed (``score == recurrence * recencyWeight``)."""
    p = r.pattern
    return {
        "id": p.id,
        "monitor": view.monitor,
        "dimension": p.dimension,
        "category": p.category,
        "reason": p.reason,
        "state": p.state.value,
        "recurrence": r.recurrence,
        "recencyWeight": round(r.recency, 6),
        "score": round(r.score, 6),
        "halfLifeSeconds": half_life,
        "lastSeen": iso(p.last_seen),
        "firstSeen": iso(p.first_seen),
        "openedAt": iso(view.opened_at),
        "occurrences": view.occurrences,
        "reopened": view.reopened,
        "resolvedAt": iso(view.resolved_at),
        "resolvedBy": view.resolved_by,
        "resolution": view.resolution,
        "groupedByMeaning": view.grouped_by_meaning,
        "evidence": list(view.evidence),
    }


class Coaching:
    """Patterns and guidance over a store's patterns room. Synchronous (call from a thread)."""

    def __init__(
        self,
        patterns: Patterns,
        *,
        half_life: float = DEFAULT_HALF_LIFE_SECONDS,
        similarity: float = DEFAULT_REASON_SIMILARITY,
        embed: Embed | None = None,
    ) -> None:
        if not half_life > 0 or half_life == float("inf"):
            raise ValueError(f"the patterns' half-life must be a positive number of seconds, not {half_life}")
        self.patterns = patterns
        self.half_life = half_life
        self.similarity = similarity
        self._embed = embed
        self._lock = threading.Lock()
        #: Why reasons are not grouped by meaning (the model could not be loaded), if so.
        self.grouping_problem: str | None = None

    def _vectors(self, texts: Sequence[str]) -> Sequence[Sequence[float]] | None:
        if self._embed is None:
            embedder = OnnxEmbedder()
            self._embed = embedder
        try:
            return self._embed([t if t.strip() else "-" for t in texts])
        except EmbeddingUnavailable as e:
            if self.grouping_problem is None:
                log.warning("failure reasons are grouped without their meaning", reason=e.reason)
            self.grouping_problem = f"the embedding model is unavailable ({e.reason})"
            return None

    def refresh(self, monitor: str) -> bool:
        """Group ``monitor``'s failing scores stored since the last refresh. True: more remain."""
        with self._lock:
            for _ in range(REFRESH_BATCHES):
                pending = self.patterns.pending(monitor)
                if not pending.failures and not pending.more:
                    if pending.upto:
                        self._record(monitor, pending, None)
                    return False
                vectors = self._vectors([f.reason for f in pending.failures]) if pending.failures else None
                self._record(monitor, pending, vectors)
                if not pending.more:
                    return False
            return True

    def _record(self, monitor: str, pending: Any, vectors: Sequence[Sequence[float]] | None) -> None:
        try:
            self.patterns.record(monitor, pending, vectors, similarity=self.similarity)
        except IntegrityError:  # another replica grouped the same scores at the same moment
            log.info("patterns were grouped by another replica meanwhile", monitor=monitor)

    def _grouping(self) -> str:
        if self.grouping_problem:
            return f"by dimension and run category only: {self.grouping_problem}"
        return "by dimension, run category and the meaning of the judge's reason"

    def report(self, monitor: str, now: float, *, state: str = "open") -> dict[str, Any]:
        """``monitor``'s patterns, ranked (open ones first when ``state`` is ``all``)."""
        more = self.refresh(monitor)
        views = self.patterns.find(monitor, states=STATES[state])
        by_id = {v.id: v for v in views}
        ranked = rank((v.facts for v in views), now, self.half_life)
        ranked.sort(key=lambda r: r.pattern.state is not PatternState.OPEN)  # stable: keeps the rank
        return {
            "monitor": monitor,
            "state": state,
            "halfLifeSeconds": self.half_life,
            "ranking": "score = recurrence x recencyWeight; recencyWeight = 0.5 ** (age of the latest "
            "occurrence / halfLifeSeconds); recurrence counts failures since the pattern (re)opened",
            "grouping": self._grouping(),
            "pending": more,
            "patterns": [pattern_json(r, by_id[r.pattern.id], self.half_life) for r in ranked],
        }

    def guidance(
        self, monitor: str, agent: str, profile: EvalProfile | None, now: float, *, limit: int = 10
    ) -> dict[str, Any]:
        """Improvement guidance for ``monitor``'s agent from its open patterns, with evidence."""
        more = self.refresh(monitor)
        views = self.patterns.find(monitor, states=(PatternState.OPEN,))
        ranked = rank((v.facts for v in views), now, self.half_life)
        rubrics: Mapping[str, str] = {}
        thresholds: Mapping[str, float] = {}
        if profile is not None:
            dims = resolve_dimensions(profile.spec)
            rubrics = {d.name: d.rubric for d in dims}
            thresholds = {d.name: d.threshold for d in dims}
        lines = guidance(ranked, {v.id: v.evidence for v in views}, rubrics, thresholds, limit=limit)
        return {
            "monitor": monitor,
            "agent": agent,
            "basis": "the open behaviour patterns, most pressing first (recurrence x recency)",
            "grouping": self._grouping(),
            "pending": more,
            "guidance": [
                {
                    "pattern": g.pattern,
                    "dimension": g.dimension,
                    "text": g.text,
                    "evidence": list(g.evidence),
                    "score": round(g.score, 6),
                }
                for g in lines
            ],
        }
