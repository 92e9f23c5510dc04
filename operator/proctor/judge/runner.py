"""The runner: what each judge Job executes (``proctor judge --run NS/NAME --shard I/N``).

It loads the run, its case set (inline and ``casesFrom`` ConfigMaps) and profile from the API,
takes its deterministic share of the cases (case at position p belongs to shard ``p % N``; I is
0-based, like an Indexed Job's completion index), gets each answer from the target (recorded
answers, a live endpoint, or the candidate sidecar on localhost), applies the assertions, the
safety scan and the judge, writes the per-case results to ConfigMaps owned by the run (gzipped,
split so no object nears the size limit) and then its shard's report (what it measured, or why it
could not) to one more ConfigMap. Each is signed with the run's key (``PROCTOR_RUN_KEY``, which
only the judge container of the run's Job receives; :mod:`proctor.k8s.signing`); the operator
verifies them and writes the run's status itself. The runner only reads and creates: it changes
no existing object, and a name taken by something else makes the shard fail (never overwritten).

Exit 0 when it measured, whatever the verdict; exit 2 only when the harness itself failed (the
run or its inputs could not be read, results could not be written), so a failed Job means ERROR,
never FAIL. Running a shard's attempt twice stores the same bytes (the same results are accepted,
different ones refused).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from proctor.api import (
    CaseSet,
    EvalProfile,
    EvalRun,
    ManifestError,
    format_time,
    parse_caseset,
    parse_evalrun,
    parse_profile,
    parse_responses,
    resolve_cases,
    utc_now,
)
from proctor.graders import (
    AssertionCompileError,
    CaseSetProblem,
    CompiledCase,
    ScanPolicy,
    compile_cases,
    grade_answer,
    unanswered,
)
from proctor.judge.client import JudgeClient, JudgeSettings
from proctor.judge.consensus import judge_dimensions
from proctor.judge.embeddings import OnnxEmbedder, ground
from proctor.judge.prompts import ContextDocument, JudgeInput, provenance
from proctor.judge.rubrics import DimensionRubric, resolve_dimensions, rubric_of
from proctor.judge.targets import AnswerSource, AnswerUnavailable, HttpAgent, Recorded
from proctor.k8s import signing
from proctor.k8s.kube import Kube, KubeError
from proctor.k8s.objects import (
    AGENT_API_KEY_ENV,
    CANDIDATE_HOST_ENV,
    JUDGE_ATTEMPT_ENV,
    REPORT_KEY,
    RunRef,
    case_record,
    encode_results,
    report_configmap,
    results_configmaps,
    shard_of,
)
from proctor.protocol.types import CaseResult, DimensionScore, Outcome

log = structlog.get_logger("proctor.judge.runner")

#: The judged dimension that profile grounding documents are matched for.
GROUNDED_DIMENSION = "factual_grounding"
#: Cases examined at once (answers fetched and judged concurrently).
CASE_CONCURRENCY = 16


class HarnessError(Exception):
    """The shard could not measure: the reason is written to the shard's status."""


@dataclass(frozen=True)
class ShardResult:
    results: list[CaseResult]
    configmaps: list[str]
    provenance: str | None


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard must be I/N (0-based index, count), not {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise ValueError(f"--shard {text}: need 0 <= I < N")
    return i, n


def _worst(results: Sequence[CaseResult]) -> CaseResult:
    """Of a case's repeats, the one that matters: any failure, else any unmeasured, else a pass."""
    for outcome in (Outcome.FAILED, Outcome.UNMEASURED):
        for r in results:
            if r.outcome is outcome:
                return r
    return results[0]


class ShardRunner:
    """One shard of one run, from loading inputs to writing results."""

    def __init__(
        self,
        kube: Kube,
        namespace: str,
        name: str,
        index: int,
        count: int,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], dt.datetime] = utc_now,
    ) -> None:
        self.kube = kube
        self.clock = clock
        self.ns, self.name, self.index, self.count = namespace, name, index, count
        self.env = dict(os.environ if env is None else env)
        self.shard = f"{index}/{count}"
        self.ref: RunRef | None = None
        self.started = clock()
        try:
            self.attempt = int(self.env.get(JUDGE_ATTEMPT_ENV) or 1)
        except ValueError:
            self.attempt = 0
        self.grounding_docs: list[tuple[str, str]] = []
        self.grounding_k = 0

    # -- loading --------------------------------------------------------------------------------
    def _load(self) -> tuple[EvalRun, CaseSet, EvalProfile | None]:
        try:
            run = parse_evalrun(self.kube.get("EvalRun", self.ns, self.name))
        except (KubeError, ManifestError) as e:
            raise HarnessError(str(e)) from None
        # known from here on: a failure to read the rest is reported, signed, for this run
        self.ref = RunRef(self.ns, self.name, run.metadata.uid or "")
        try:
            caseset = parse_caseset(self.kube.get("CaseSet", self.ns, run.spec.case_set_ref.name))
            profile = (
                parse_profile(self.kube.get("EvalProfile", self.ns, run.spec.profile_ref.name))
                if run.spec.profile_ref
                else None
            )
        except (KubeError, ManifestError) as e:
            raise HarnessError(str(e)) from None
        return run, caseset, profile

    def _cases(self, caseset: CaseSet, profile: EvalProfile | None) -> list[CompiledCase]:
        try:
            data = {
                ref.name: self.kube.get_configmap_data(self.ns, ref.name) for ref in caseset.spec.cases_from
            }
            cases = resolve_cases(caseset, data)
            mine = [c for pos, c in enumerate(cases) if shard_of(pos, self.count) == self.index]
            return compile_cases(
                mine, where=f"CaseSet {caseset.metadata.name}", profile=profile.spec if profile else None
            )
        except (KubeError, ManifestError) as e:
            raise HarnessError(str(e)) from None
        except CaseSetProblem as e:
            raise HarnessError("; ".join(e.problems[:5])) from None

    def _source(self, run: EvalRun) -> tuple[AnswerSource, int | None, float]:
        t = run.spec.target
        if t.responses is not None:
            if t.responses.inline is not None:
                return Recorded(t.responses.inline), None, 0
            ref = t.responses.config_map_ref
            assert ref is not None
            try:
                data = self.kube.get_configmap_data(self.ns, ref.name)
            except KubeError as e:
                raise HarnessError(str(e)) from None
            if ref.key not in data:
                raise HarnessError(
                    f"ConfigMap {self.ns}/{ref.name} has no key {ref.key!r} (recorded answers)"
                )
            try:
                return (
                    Recorded(parse_responses(data[ref.key], where=f"ConfigMap {ref.name}/{ref.key}")),
                    None,
                    0,
                )
            except ManifestError as e:
                raise HarnessError("; ".join(e.problems[:5])) from None
        if t.endpoint is not None:
            ep = t.endpoint
            key = self.env.get(AGENT_API_KEY_ENV) if ep.api_key_secret_ref else None
            agent = HttpAgent(
                ep.url,
                protocol=ep.protocol.value,
                model=ep.model,
                request_template=ep.request_template,
                response_path=ep.response_path,
                timeout=float(ep.timeout_seconds),
                api_key=key,
            )
            return agent, None, 0
        c = t.candidate
        if c is None:
            raise HarnessError("the run's target names no endpoint, candidate or recorded answers")
        # the candidate is a sidecar of this pod: reach it on the pod's own IP (the operator sets it
        # from status.podIP), which works whether it listens on the pod IP or on all interfaces
        host = self.env.get(CANDIDATE_HOST_ENV) or "127.0.0.1"
        agent = HttpAgent(
            f"http://{host}:{c.port}{c.path}",
            protocol=c.protocol.value,
            model=c.model,
            request_template=c.request_template,
            response_path=c.response_path,
        )
        return agent, c.port, float(c.readiness_timeout_seconds)

    def _grounding_documents(self, profile: EvalProfile | None) -> tuple[list[tuple[str, str]], int]:
        """The profile's grounding documents (inline, or from ConfigMaps) and how many to pick."""
        g = profile.spec.grounding if profile else None
        if g is None:
            return [], 0
        docs: list[tuple[str, str]] = []
        for d in g.documents:
            if d.text is not None:
                docs.append((d.id, d.text))
            elif d.config_map_ref is not None:
                try:
                    data = self.kube.get_configmap_data(self.ns, d.config_map_ref.name)
                except KubeError as e:
                    raise HarnessError(f"grounding document {d.id}: {e}") from None
                if d.config_map_ref.key not in data:
                    raise HarnessError(
                        f"grounding document {d.id}: ConfigMap {d.config_map_ref.name} has no key "
                        f"{d.config_map_ref.key!r}"
                    )
                docs.append((d.id, data[d.config_map_ref.key]))
        return docs, g.top_k

    # -- judging ----------------------------------------------------------------------------------
    def _rubrics(self, profile: EvalProfile | None) -> dict[str, DimensionRubric]:
        if profile is None:
            return {}
        return {d.name: d for d in resolve_dimensions(profile.spec)}

    def _plan(self, c: CompiledCase, rubrics: Mapping[str, DimensionRubric]) -> list[DimensionRubric]:
        plan: list[DimensionRubric] = []
        for name, threshold in c.dimensions:
            rubric = rubrics[name].rubric if name in rubrics else _builtin(name)
            plan.append(DimensionRubric(name, rubric, threshold))
        for a in c.case.assert_:
            if a.type == "llm-rubric":
                plan.append(DimensionRubric("llm-rubric", str(a.value), 50.0))
        return plan

    async def _examine(
        self,
        c: CompiledCase,
        source: AnswerSource,
        judge: JudgeClient | None,
        rubrics: Mapping[str, DimensionRubric],
        scan: ScanPolicy,
        repeats: int,
        no_judge: str,
    ) -> tuple[CaseResult, str | None, str | None]:
        outcomes: list[CaseResult] = []
        digest: str | None = None
        note: str | None = None
        for _ in range(repeats):
            try:
                answer = await source.answer(c.case)
            except AnswerUnavailable as e:
                outcomes.append(unanswered(c, str(e)))
                continue
            digest = hashlib.sha256(answer.encode()).hexdigest()
            plan = self._plan(c, rubrics)
            judged: list[DimensionScore] = []
            if plan and judge is not None:
                context = [ContextDocument(d.id, d.text) for d in c.case.context]
                if self.grounding_docs and any(p.name == GROUNDED_DIMENSION for p in plan):
                    g = await asyncio.to_thread(
                        ground, c.question, answer, self.grounding_docs, self.grounding_k, self.embedder
                    )
                    note = g.describe()
                    context += [ContextDocument(i, t) for i, t, _ in g.documents]
                content = JudgeInput(
                    answer=answer, input=c.question, reference=c.case.reference, context=tuple(context)
                )
                judged = list(await judge_dimensions(judge, [p for p in plan if p.rubric], content))
            elif plan:
                judged = [DimensionScore(p.name, p.threshold, skipped_reason=no_judge) for p in plan]
            judged += [
                DimensionScore(p.name, p.threshold, skipped_reason=f"no rubric for dimension {p.name!r}")
                for p in plan
                if not p.rubric and judge is not None
            ]
            result = grade_answer(c, answer, scan=scan, judged=judged if c.dimensions else None)
            if any(p.name == "llm-rubric" for p in plan):
                # the judge's llm-rubric scores replace the graders' "needs the judge" placeholders
                rubric_scores = [d for d in judged if d.name == "llm-rubric"]
                kept = [d for d in result.dimensions if d.name != "llm-rubric"]
                result = dataclasses.replace(result, dimensions=(*kept, *rubric_scores))
            outcomes.append(result)
        return _worst(outcomes), digest, note

    # -- the shard ------------------------------------------------------------------------------------
    def _key(self) -> bytes:
        """The run's key (the judge container's ``PROCTOR_RUN_KEY``): without it nothing it writes
        would be believed, so it stops before measuring."""
        text = self.env.get(signing.RUN_KEY_ENV)
        if not text:
            raise HarnessError(
                f"{signing.RUN_KEY_ENV} is not set: the judge signs its results with the run's key, "
                "which the operator gives only to the judge container of the run's Job"
            )
        try:
            return signing.decode_key(text)
        except ValueError as e:
            raise HarnessError(str(e)) from None

    async def run(self) -> ShardResult:
        if self.attempt < 1:
            raise HarnessError(f"{JUDGE_ATTEMPT_ENV} must be a positive whole number")
        key = self._key()
        run, caseset, profile = self._load()
        assert self.ref is not None
        ref = self.ref
        compiled = self._cases(caseset, profile)
        source, port, ready_timeout = self._source(run)
        rubrics = self._rubrics(profile)
        self.grounding_docs, self.grounding_k = self._grounding_documents(profile)
        self.embedder: OnnxEmbedder | None = OnnxEmbedder() if self.grounding_docs else None
        judge_spec = profile.spec.judge if profile else None
        needs_judge = any(self._plan(c, rubrics) for c in compiled)
        judge: JudgeClient | None = None
        prov: str | None = None
        no_judge = (
            f"EvalProfile {profile.metadata.name} names no judge"
            if profile
            else "the run names no EvalProfile"
        )
        try:
            if port is not None and isinstance(source, HttpAgent):
                await source.wait_ready(
                    port, ready_timeout, host=self.env.get(CANDIDATE_HOST_ENV) or "127.0.0.1"
                )
            if judge_spec is not None and needs_judge:
                settings = JudgeSettings.from_spec(judge_spec)
                judge = JudgeClient(settings)
                prov = provenance(
                    model=settings.model,
                    parameters=settings.parameters(),
                    rubrics={n: r.rubric for n, r in rubrics.items()},
                )
                if not judge.has_api_key and judge_spec.api_key_secret_ref is not None:
                    log.warning("judge API key variable is empty", variable=settings.api_key_env)
            try:
                scan = ScanPolicy.from_spec(profile.spec.safety_scan if profile else None)
            except AssertionCompileError as e:
                raise HarnessError(f"EvalProfile: {e}") from None
            sem = asyncio.Semaphore(CASE_CONCURRENCY)

            async def one(c: CompiledCase) -> tuple[CaseResult, str | None, str | None]:
                async with sem:
                    return await self._examine(c, source, judge, rubrics, scan, run.spec.repeats, no_judge)

            graded = await asyncio.gather(*(one(c) for c in compiled))
        except AnswerUnavailable as e:
            raise HarnessError(str(e)) from None
        finally:
            await source.aclose()
            if judge is not None:
                await judge.aclose()
        results = [r for r, _, _ in graded]
        records = [
            case_record(r, answer_sha256=d, repeats=run.spec.repeats) | ({"grounding": n} if n else {})
            for r, d, n in graded
        ]
        blob = encode_results(records)
        cms = results_configmaps(ref, self.index, self.count, blob, attempt=self.attempt, key=key)
        try:
            for cm in cms:
                self._create(cm)
        except KubeError as e:
            raise HarnessError(f"cannot write results: {e}") from None
        names = [cm["metadata"]["name"] for cm in cms]
        counts = {o: sum(1 for r in results if r.outcome is o) for o in Outcome}
        self._report(
            key,
            {
                "phase": "Succeeded",
                "results": names,
                "sha256": signing.sha256(blob),
                "provenance": prov,
                "summary": {
                    "cases": len(results),
                    "passed": counts[Outcome.PASSED],
                    "failed": counts[Outcome.FAILED],
                    "unmeasured": counts[Outcome.UNMEASURED],
                },
            },
        )
        return ShardResult(results, names, prov)

    def _create(self, obj: dict[str, Any], same: Callable[[Mapping[str, Any]], bool] | None = None) -> None:
        """Create ``obj``; when its name exists already it must say the same (``same``; by default
        the very bytes and signature: this attempt run twice), else the shard fails: the runner
        never replaces an object."""
        if self.kube.create_configmap(obj) is not None:
            return
        meta = obj["metadata"]
        have = self.kube.get_configmap(meta["namespace"], meta["name"])
        if same is None:
            signature = signing.SIGNATURE_ANNOTATION
            ok = all((have.get(f) or {}) == (obj.get(f) or {}) for f in ("data", "binaryData")) and (
                (have["metadata"].get("annotations") or {}).get(signature) == meta["annotations"][signature]
            )
        else:
            ok = same(have)
        if not ok:
            raise HarnessError(
                f"ConfigMap {meta['namespace']}/{meta['name']} exists with other content; "
                "the judge never replaces an object"
            )

    def _report(self, key: bytes, fields: dict[str, Any]) -> None:
        assert self.ref is not None
        report = {
            "startTime": format_time(self.started),
            "completionTime": format_time(self.clock()),
            **{k: v for k, v in fields.items() if v is not None},
        }
        cm = report_configmap(self.ref, self.index, self.count, self.attempt, report, key=key)
        timeless = {k: v for k, v in report.items() if k not in ("startTime", "completionTime")}

        def same(have: Mapping[str, Any]) -> bool:
            # this attempt reported already: the same measurement (signed with this key), other times
            try:
                said = json.loads((have.get("data") or {}).get(REPORT_KEY, ""))
            except ValueError:
                return False
            payload = signing.report_payload(self.ref.uid if self.ref else "", self.shard, self.attempt, said)
            signature = ((have.get("metadata") or {}).get("annotations") or {}).get(
                signing.SIGNATURE_ANNOTATION
            )
            ours = signing.verify(key, signing.REPORT, payload, signature)
            return (
                ours
                and {k: v for k, v in said.items() if k not in ("startTime", "completionTime")} == timeless
            )

        try:
            self._create(cm, same)
        except KubeError as e:
            raise HarnessError(f"cannot write the shard's report: {e}") from None

    def fail(self, reason: str) -> None:
        """Best effort: a signed report of why the shard could not measure (when the run's key and
        UID are known; otherwise the Job's failure and its log tell)."""
        if self.ref is None:
            return
        try:
            self._report(self._key(), {"phase": "Failed", "message": reason[:1000]})
        except HarnessError as e:
            log.error("cannot report the failure", error=str(e))


def _builtin(name: str) -> str:
    try:
        return rubric_of(name)
    except KeyError:
        return ""


def main(run: str, shard: str, *, kube: Kube | None = None) -> int:
    """Entry point of ``proctor judge``; returns the process exit code."""
    try:
        ns, _, name = run.partition("/")
        if not ns or not name:
            raise ValueError(f"--run must be NAMESPACE/NAME, not {run!r}")
        index, count = parse_shard(shard)
    except ValueError as e:
        print(f"proctor judge: error: {e}", file=sys.stderr)
        return 2
    try:
        runner = ShardRunner(kube or Kube(), ns, name, index, count)
    except Exception as e:  # no cluster configuration at all
        print(
            f"proctor judge: error: cannot reach the Kubernetes API: {type(e).__name__}: {e}", file=sys.stderr
        )
        return 2
    try:
        out = asyncio.run(runner.run())
    except HarnessError as e:
        print(
            f"proctor judge: error: shard {runner.shard} of {ns}/{name} could not measure: {e}",
            file=sys.stderr,
        )
        runner.fail(str(e))
        return 2
    counts = {o.value: sum(1 for r in out.results if r.outcome is o) for o in Outcome}
    print(
        f"proctor judge: shard {runner.shard} of {ns}/{name}: {len(out.results)} cases, "
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['unmeasured']} unmeasured; "
        f"results in {', '.join(out.configmaps)}"
    )
    return 0
