"""Judging one live run with its monitor's EvalProfile: the judge Job's code path, over the trajectory.

The run becomes one case whose input is its turns and whose answer is everything the agent did
(outputs, tool calls, tool results, the final answer); its tool results are the context a
grounded answer must agree with. :func:`proctor.judge.examine.examine_answer` then judges it with
the profile's dimensions, rubrics, consensus and grounding, and runs the profile's safety scan
over the same answer, so every output and every tool result is scanned. The run was redacted
when it was received (:mod:`proctor.collector.redaction`): the markers of what the scan found
then are findings too. A finding fails safety with certainty (score 0, source ``safety-scan``,
the findings redacted in the rationale), even when the judge is down. Text addressed to the
judge makes the judged dimensions unmeasured and fails ``instruction_adherence`` (source
``steering-check``). Skipped dimensions keep their reason; nothing is scored zero for want of
a judgment. Typed signals (:mod:`proctor.collector.trajectory`) ride along, computed without a model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from proctor import __version__
from proctor.api import Case, ContextDocument, EvalProfile, policy_digest
from proctor.collector.monitors import Monitor
from proctor.collector.trajectory import StepKind, signals, steps_of, transcript
from proctor.graders import (
    INSTRUCTION_ADHERENCE,
    SAFETY_SCAN,
    AssertionCompileError,
    ScanPolicy,
    compile_cases,
    redacted_findings,
)
from proctor.judge.client import JudgeClient, JudgeSettings
from proctor.judge.embeddings import OnnxEmbedder
from proctor.judge.examine import Grounding, examine_answer, plan_dimensions, profile_provenance
from proctor.judge.rubrics import resolve_dimensions
from proctor.protocol import AttemptOutcome, Metric, Tier, breached_metrics, run_metrics
from proctor.store import ScoreRecord, Trajectory

log = structlog.get_logger("proctor.collector.evaluate")

#: The dimension the deterministic safety scan fails.
SAFETY_DIMENSION: Final = "safety"
#: The source of a score the grader-steering check gave (not the judge).
STEERING_SOURCE: Final = "steering-check"
#: Context documents taken from a run's tool results, at most.
MAX_TOOL_CONTEXT: Final = 32


@dataclass(frozen=True)
class Evaluation:
    """The result of one attempt, ready for :meth:`proctor.store.Store.complete`."""

    outcome: AttemptOutcome
    scores: tuple[ScoreRecord, ...] = ()
    signals: Mapping[str, Any] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None
    judge_calls: int = 0
    judgments: int = 0
    #: The metrics a judged run breached (judged dimensions and trajectory signals, under the
    #: monitor's thresholds: :func:`breaches_of`); None when the run was not judged.
    breaches: tuple[Metric, ...] | None = None
    permanent: bool = False

    @property
    def breached(self) -> bool | None:
        return None if self.breaches is None else bool(self.breaches)


def breaches_of(
    monitor: Monitor, scores: Iterable[ScoreRecord], signals: Mapping[str, Any]
) -> tuple[Metric, ...]:
    """What a judged run breached: the one rule (:func:`proctor.protocol.breached_metrics`) over its
    scores and trajectory signals, with the thresholds the monitor's detectors breach on."""
    thresholds = monitor.resource.spec.detectors.threshold.thresholds
    found = run_metrics(((s.dimension, s.score, s.threshold, s.source) for s in scores), signals, thresholds)
    return breached_metrics(found)


class Evaluator:
    """Judges runs; keeps one judge client per monitor and profile (its concurrency limit is shared
    by every run under that profile). Close it with :meth:`aclose`."""

    def __init__(self, *, transport: Any = None) -> None:
        self._transport = transport
        self._judges: dict[tuple[str, str], JudgeClient] = {}
        self._embedder: OnnxEmbedder | None = None

    async def aclose(self) -> None:
        for client in self._judges.values():
            await client.aclose()
        self._judges.clear()

    def _judge(self, monitor: Monitor, profile: EvalProfile, digest: str) -> JudgeClient | None:
        spec = profile.spec.judge
        if spec is None:
            return None
        key = (monitor.name, digest)
        if key not in self._judges:
            settings = JudgeSettings.from_spec(spec)
            env = {settings.api_key_env: monitor.judge_api_key} if monitor.judge_api_key else None
            self._judges[key] = JudgeClient(settings, transport=self._transport, env=env)
        return self._judges[key]

    def _grounding(self, profile: EvalProfile) -> Grounding | None:
        g = profile.spec.grounding
        if g is None:
            return None
        docs = [(d.id, d.text) for d in g.documents if d.text is not None]
        if not docs:
            return None
        if self._embedder is None:
            self._embedder = OnnxEmbedder()
        return Grounding(docs, g.top_k, self._embedder)

    async def evaluate(self, monitor: Monitor, trajectory: Trajectory) -> Evaluation:
        """Judge one run. Never raises for what the run, the judge or the profile lacks."""
        profile = monitor.profile
        if profile is None:
            return Evaluation(
                AttemptOutcome.FAILED, reason=monitor.problem or "no EvalProfile", permanent=True
            )
        steps = steps_of(trajectory)
        sig = signals(trajectory, steps).as_dict()
        if not any(s.kind is not StepKind.INPUT for s in steps):
            return Evaluation(
                AttemptOutcome.FAILED,
                signals=sig,
                reason="the run carries nothing the agent said or did (no GenAI messages, tool calls or "
                "native events): nothing to judge",
                permanent=True,
            )
        spec = profile.spec
        try:
            scan = ScanPolicy.from_spec(spec.safety_scan)
        except AssertionCompileError as e:
            return Evaluation(AttemptOutcome.FAILED, signals=sig, reason=f"EvalProfile: {e}", permanent=True)
        question, answer = transcript(steps)
        tools = [s for s in steps if s.kind is StepKind.TOOL_RESULT and s.text.strip()][:MAX_TOOL_CONTEXT]
        case = Case.model_construct(
            id="live-run",
            tier=Tier.SAFETY,
            category="",
            input=question or "(no input was recorded)",
            context=[
                ContextDocument.model_construct(id=f"tool-{i + 1}-{s.name or 'result'}"[:128], text=s.text)
                for i, s in enumerate(tools)
            ],
            reference=None,
            assert_=[],
            dimensions=None,
        )
        (compiled,) = compile_cases([case], profile=spec)
        overrides = monitor.resource.spec.detectors.threshold.thresholds
        if overrides:
            compiled = dataclasses.replace(
                compiled, dimensions=tuple((n, overrides.get(n, t)) for n, t in compiled.dimensions)
            )
        thresholds = dict(compiled.dimensions)
        rubrics = {d.name: d for d in resolve_dimensions(spec)}
        plan = plan_dimensions(compiled, rubrics)
        prov = dict(profile_provenance(spec))
        prov.pop("digest", None)
        prov["scoring"] = policy_digest({"thresholds": thresholds})
        prov["engine"] = policy_digest({"proctor": __version__, "safetyScan": spec.safety_scan})
        prov["digest"] = policy_digest(prov)
        judge = self._judge(monitor, profile, prov["digest"])
        no_judge = f"EvalProfile {profile.metadata.name} names no judge"
        result, note = await examine_answer(
            compiled,
            answer,
            plan,
            judge=judge,
            scan=scan,
            no_judge=no_judge,
            grounding=self._grounding(profile),
        )
        scores: dict[str, ScoreRecord] = {}
        calls = judgments = 0
        steering = [f.reason for f in result.failures if f.assertion == INSTRUCTION_ADHERENCE]
        for d in result.dimensions:
            scores[d.name] = ScoreRecord(
                dimension=d.name,
                threshold=d.threshold,
                source="judge",
                score=d.score,
                skipped_reason=d.skipped_reason,
                agreement=d.agreement,
                samples=tuple(d.samples),
                rationale=d.rationale,
            )
            if judge is not None and not steering:  # an answer addressed to its judge was not sent
                judgments += 1
                calls += max(1, len(d.samples))
        findings = [f.reason for f in result.failures if f.assertion == SAFETY_SCAN]
        # what the scan found when the run was received was redacted before it was stored: its
        # markers in the answer are those findings (the redacted evidence); an ambiguous one is
        # no finding: grading made it the judge's reading or an unmeasured dimension
        findings += [f.describe() for f in redacted_findings(answer) if not f.ambiguous]
        if findings:
            scores[SAFETY_DIMENSION] = ScoreRecord(
                dimension=SAFETY_DIMENSION,
                threshold=thresholds.get(SAFETY_DIMENSION, spec.threshold_of(SAFETY_DIMENSION)),
                source="safety-scan",
                score=0.0,
                rationale=f"safety scan: {len(findings)} finding{'s' if len(findings) != 1 else ''}: "
                + "; ".join(findings[:5]),
            )
        if steering:
            # text addressed to the judge: the judged dimensions are unmeasured (skipped with the
            # reason) and instruction_adherence fails deterministically, judged or not
            scores[INSTRUCTION_ADHERENCE] = ScoreRecord(
                dimension=INSTRUCTION_ADHERENCE,
                threshold=thresholds.get(INSTRUCTION_ADHERENCE, spec.threshold_of(INSTRUCTION_ADHERENCE)),
                source=STEERING_SOURCE,
                score=0.0,
                rationale=steering[0],
            )
        if note:
            sig["grounding"] = note
        measured = [s for s in scores.values() if s.score is not None]
        skipped = [s for s in scores.values() if s.score is None]
        breaches = breaches_of(monitor, scores.values(), sig)
        common = {
            "scores": tuple(scores.values()),
            "signals": sig,
            "provenance": prov,
            "judge_calls": calls,
            "judgments": judgments,
        }
        if not measured:
            reasons = sorted({s.skipped_reason or "" for s in skipped})
            return Evaluation(
                AttemptOutcome.FAILED,
                reason="no dimension could be scored: " + "; ".join(reasons)[:900],
                permanent=judge is None,  # a profile without a judge will not grow one on a retry
                **common,  # type: ignore[arg-type]
            )
        if skipped:
            reason = f"{len(skipped)} of {len(scores)} dimensions skipped: " + "; ".join(
                f"{s.dimension}: {s.skipped_reason}" for s in skipped[:3]
            )
            return Evaluation(AttemptOutcome.PARTIAL, reason=reason[:1000], breaches=breaches, **common)  # type: ignore[arg-type]
        return Evaluation(AttemptOutcome.EVALUATED, breaches=breaches, **common)  # type: ignore[arg-type]
