"""The runner: what each judge Job executes (``proctor judge --run NS/NAME --shard I/N``).

It loads the run, the cases the operator pinned when the run started (``status.snapshot``: owned
ConfigMaps, so a CaseSet changed or deleted during the run changes nothing; a run started by an
older operator reads its CaseSet) and the profile from the API, takes its deterministic share of
the cases (case at position p belongs to shard ``p % N``; I is
0-based, like an Indexed Job's completion index), gets each answer from the target (recorded
answers, a live endpoint, or the candidate sidecar on localhost), applies the assertions, the
safety scan and the judge, writes the per-case results to ConfigMaps owned by the run (gzipped,
split so no object nears the size limit) and then its shard's report (what it measured, or why it
could not) to one more ConfigMap. It holds no key: it ends by writing the report's digest to its
termination message, which the kubelet puts into the pod's status, and the operator believes the
report only as that digest from a pod its Job made (:mod:`proctor.k8s.evidence`); then it writes
the run's status itself. The runner only reads and creates: it changes no existing object, and a
name taken by something else makes the shard fail (never overwritten).

Exit 0 when it measured, whatever the verdict, and when there is nothing to do (the run is over
or gone); exit 2 only when the harness itself failed (the run or its inputs could not be read,
results could not be written), so a failed Job means ERROR, never FAIL. A failure no retry can fix
(a ConfigMap, key or profile that is not there, answers that cannot be read) is reported with its
reason (one of :data:`~proctor.api.PERMANENT_REASONS`), and the operator ends the run at once.
Running a shard's attempt twice stores the same bytes (the same results are accepted, different
ones refused).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import os
import ssl
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import structlog

from proctor.api import (
    Case,
    EvalProfile,
    EvalRun,
    ManifestError,
    Reason,
    content_digest,
    format_time,
    parse_cases,
    parse_caseset,
    parse_evalrun,
    parse_profile,
    parse_responses,
    resolve_cases,
    utc_now,
)
from proctor.exam.targets import AnswerSource, AnswerUnavailable, HttpAgent, Recorded
from proctor.graders import (
    AssertionCompileError,
    CaseSetProblem,
    CompiledCase,
    ScanPolicy,
    compile_cases,
    redact_result,
    redact_text,
    unanswered,
)
from proctor.judge.client import JudgeClient, JudgeSettings
from proctor.judge.embeddings import OnnxEmbedder
from proctor.judge.examine import Grounding, examine_answer, plan_dimensions
from proctor.judge.prompts import provenance
from proctor.judge.rubrics import DimensionRubric, resolve_dimensions
from proctor.k8s import evidence
from proctor.k8s.kube import Kube, KubeError
from proctor.k8s.objects import (
    AGENT_API_KEY_ENV,
    CANDIDATE_HOST_ENV,
    CASES_CA_ENV,
    CASES_PATH,
    CASES_URL_ENV,
    DETAIL_PATH,
    JUDGE_ATTEMPT_ENV,
    OPERATOR_TOKEN_DIR,
    OPERATOR_TOKEN_FILE,
    REPORT_KEY,
    SNAPSHOT_KEY,
    RunRef,
    case_record,
    configmap_blob,
    decode_cases,
    encode_results,
    mounted,
    public_record,
    report_configmap,
    results_configmaps,
    shard_of,
)
from proctor.protocol.types import CaseResult, Outcome

log = structlog.get_logger("proctor.exam.runner")

#: Cases examined at once (answers fetched and judged concurrently).
CASE_CONCURRENCY = 16
#: Seconds the judge waits for the operator's case server (restarting) before the attempt fails.
CASE_SERVER_PATIENCE = 120.0


class HarnessError(Exception):
    """The shard could not measure: the message is written to the shard's status, with ``reason``
    when no retry can fix it (the operator then ends the run at once instead of retrying)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


class RunOver(Exception):
    """There is nothing to measure: the run is finished or deleted (a Job left from an earlier step)."""


def _missing(e: KubeError, reason: str) -> HarnessError:
    """An API error reading an input: permanent when the object is not there, else retried."""
    return HarnessError(str(e), reason if e.status == 404 else None)


@dataclass(frozen=True)
class ShardResult:
    results: list[CaseResult]
    configmaps: list[str]
    provenance: str | None
    #: the digest of the shard's report, which the judge vouches for (:meth:`ShardRunner.vouch`)
    digest: str


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
        #: the cases loaded are this shard's already (the case server sends only those)
        self.sharded = False
        self.grounding_docs: list[tuple[str, str]] = []
        self.grounding_k = 0

    # -- loading --------------------------------------------------------------------------------
    def _load(self) -> tuple[EvalRun, str, list[Case], EvalProfile | None]:
        """The run, the name of its case set and its cases, and its profile."""
        try:
            raw = self.kube.get("EvalRun", self.ns, self.name)
        except KubeError as e:
            if e.status == 404:
                raise RunOver(f"EvalRun {self.ns}/{self.name} is gone") from None
            raise HarnessError(str(e)) from None
        try:
            run = parse_evalrun(raw)
        except ManifestError as e:
            raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_SPEC) from None
        # known from here on: a failure to read the rest is reported, vouched for, for this run
        self.ref = RunRef(self.ns, self.name, run.metadata.uid or "")
        st = run.status
        if st is not None and st.phase is not None and st.phase.terminal:
            raise RunOver(f"EvalRun {self.ns}/{self.name} is over ({st.phase.value})")
        profile = None
        if run.spec.profile_ref is not None:
            try:
                profile = parse_profile(self.kube.get("EvalProfile", self.ns, run.spec.profile_ref.name))
            except KubeError as e:
                raise _missing(e, Reason.PROFILE_NOT_FOUND) from None
            except ManifestError as e:
                raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_PROFILE) from None
        name = run.spec.case_set_ref.name
        if st is not None and st.snapshot is not None:
            if self.env.get(CASES_URL_ENV):
                served = self._served(st.snapshot.case_set, st.snapshot.digest)
                return run, st.snapshot.case_set, served, profile
            # pinned by an earlier version, in the run's own namespace
            pinned = self._pinned(st.snapshot.config_maps, name, st.snapshot.digest)
            return run, st.snapshot.case_set, pinned, profile
        return run, name, self._resolved(name), profile

    def _pinned(self, names: Sequence[str], caseset: str, digest: str) -> list[Case]:
        """The cases the operator pinned when the run started, exactly: their digest is the one the
        operator wrote in the run's status (a ConfigMap changed since, by anyone who may write
        ConfigMaps here, is refused, never examined)."""
        parts = []
        for n in names:
            try:
                parts.append(configmap_blob(self.kube.get_configmap(self.ns, n), SNAPSHOT_KEY))
            except KubeError as e:
                raise _missing(e, Reason.CONFIG_MAP_NOT_FOUND) from None
        try:
            cases = parse_cases(decode_cases(parts), where=f"CaseSet {caseset} (pinned in {names[0]})")
        except (ValueError, ManifestError) as e:
            raise HarnessError(f"the run's pinned cases cannot be read: {e}", Reason.INVALID_CASES) from None
        if content_digest(cases) != digest:
            raise HarnessError(
                f"the run's pinned cases ({', '.join(names)}) changed after the run started: their digest "
                f"is not {digest[:19]}, the one in status.snapshot; nothing is examined from them",
                Reason.INVALID_CASES,
            )
        return cases

    def _served(self, caseset: str, digest: str) -> list[Case]:
        """This shard's cases, from the operator's case server (they are kept where the tenant cannot
        read them): HTTPS verified with the CA the operator set in the Job, authenticated with the
        token projected into this container alone for the operator's audience. The server answers
        only a pod of this shard's Job, and only its shard; they must be the pinned digest."""
        url = self.env[CASES_URL_ENV].rstrip("/") + CASES_PATH
        waited, delay = 0.0, 1.0
        with self._http() as http:
            while True:
                # the operator restarting (a crash, an upgrade) is waited for, a while
                reply: httpx.Response | None = None
                try:
                    reply = http.get(url)
                    problem = f"it answered {reply.status_code}" if reply.status_code == 503 else ""
                except httpx.TransportError as e:
                    problem = f"{type(e).__name__}: {e}"
                if not problem:
                    break
                if waited >= CASE_SERVER_PATIENCE:
                    raise HarnessError(f"the case server {url} cannot be reached: {problem}")
                time.sleep(delay)
                waited, delay = waited + delay, min(delay * 2, 15.0)
        assert reply is not None
        if reply.status_code != 200:
            try:
                why = str(reply.json().get("reason"))
            except ValueError:
                why = reply.text[:300]
            raise HarnessError(f"the case server {url} answered {reply.status_code}: {why}")
        body = reply.json()
        if body.get("digest") != digest or body.get("shard") != self.shard:
            raise HarnessError(
                f"the case server sent cases of digest {str(body.get('digest'))[:19]} for shard "
                f"{body.get('shard')}, not the run's {digest[:19]} for shard {self.shard}",
                Reason.INVALID_CASES,
            )
        try:
            cases = parse_cases(body.get("cases") or [], where=f"CaseSet {caseset} (pinned)")
        except ManifestError as e:
            raise HarnessError(f"the run's pinned cases cannot be read: {e}", Reason.INVALID_CASES) from None
        self.sharded = True
        return cases

    def _token(self) -> str:
        token_file = Path(mounted(f"{OPERATOR_TOKEN_DIR}/{OPERATOR_TOKEN_FILE}", self.env))
        try:
            return token_file.read_text().strip()
        except OSError as e:
            raise HarnessError(f"the judge's token for the case server cannot be read: {e}") from None

    def _http(self) -> httpx.Client:
        ca = self.env.get(CASES_CA_ENV)
        verify: ssl.SSLContext | bool = ssl.create_default_context(cadata=ca) if ca else True
        return httpx.Client(verify=verify, timeout=60.0, headers={"Authorization": f"Bearer {self._token()}"})

    def _keep_detail(self, blob: bytes) -> None:
        """The full results (every reason and rationale) to the operator, which keeps them in its own
        namespace for a platform engineer. Best effort: the verdict is decided from the results in
        the run's namespace, which this does not change; a failure is logged."""
        if not self.env.get(CASES_URL_ENV):
            return
        url = self.env[CASES_URL_ENV].rstrip("/") + DETAIL_PATH
        try:
            with self._http() as http:
                reply = http.post(url, content=blob, headers={"Content-Type": "application/gzip"})
        except (httpx.HTTPError, HarnessError) as e:
            log.warning("the full results were not kept by the operator", error=str(e)[:300])
            return
        if reply.status_code != 200:
            log.warning(
                "the operator did not keep the full results", status=reply.status_code, body=reply.text[:300]
            )

    def _resolved(self, name: str) -> list[Case]:
        """The case set's cases as they are now (a run started by an operator that did not pin them)."""
        try:
            caseset = parse_caseset(self.kube.get("CaseSet", self.ns, name))
        except KubeError as e:
            raise _missing(e, Reason.CASE_SET_NOT_FOUND) from None
        except ManifestError as e:
            raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_CASES) from None
        try:
            data = {
                ref.name: self.kube.get_configmap_data(self.ns, ref.name) for ref in caseset.spec.cases_from
            }
            return resolve_cases(caseset, data)
        except KubeError as e:
            raise _missing(e, Reason.CONFIG_MAP_NOT_FOUND) from None
        except ManifestError as e:
            raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_CASES) from None

    def _cases(self, caseset: str, cases: Sequence[Case], profile: EvalProfile | None) -> list[CompiledCase]:
        mine = (
            list(cases)
            if self.sharded
            else [c for pos, c in enumerate(cases) if shard_of(pos, self.count) == self.index]
        )
        try:
            return compile_cases(mine, where=f"CaseSet {caseset}", profile=profile.spec if profile else None)
        except CaseSetProblem as e:
            raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_CASES) from None

    def _source(self, run: EvalRun) -> tuple[AnswerSource, int | None, float]:
        t = run.spec.target
        if t.responses is not None:
            if t.responses.inline is not None:
                return Recorded(t.responses.inline), None, 0
            ref = t.responses.config_map_ref
            assert ref is not None
            field = "spec.target.responses.configMapRef"
            try:
                data = self.kube.get_configmap_data(self.ns, ref.name)
            except KubeError as e:
                raise _missing(e, Reason.CONFIG_MAP_NOT_FOUND) from None
            if ref.key not in data:
                raise HarnessError(
                    f"{field}: ConfigMap {self.ns}/{ref.name} has no key {ref.key!r}",
                    Reason.CONFIG_MAP_NOT_FOUND,
                )
            try:
                return (
                    Recorded(
                        parse_responses(data[ref.key], where=f"{field}: ConfigMap {ref.name}/{ref.key}")
                    ),
                    None,
                    0,
                )
            except ManifestError as e:
                raise HarnessError("; ".join(e.problems[:5]), Reason.INVALID_RESPONSES) from None
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
                    err = _missing(e, Reason.CONFIG_MAP_NOT_FOUND)
                    raise HarnessError(f"grounding document {d.id}: {e}", err.reason) from None
                if d.config_map_ref.key not in data:
                    raise HarnessError(
                        f"grounding document {d.id}: ConfigMap {d.config_map_ref.name} has no key "
                        f"{d.config_map_ref.key!r}",
                        Reason.CONFIG_MAP_NOT_FOUND,
                    )
                docs.append((d.id, data[d.config_map_ref.key]))
        return docs, g.top_k

    # -- judging ----------------------------------------------------------------------------------
    def _rubrics(self, profile: EvalProfile | None) -> dict[str, DimensionRubric]:
        if profile is None:
            return {}
        return {d.name: d for d in resolve_dimensions(profile.spec)}

    def _plan(self, c: CompiledCase, rubrics: Mapping[str, DimensionRubric]) -> list[DimensionRubric]:
        return plan_dimensions(c, rubrics)

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
            started = time.monotonic()
            try:
                answer = await source.answer(c.case)
            except AnswerUnavailable as e:
                # the agent's error page may echo what the scan finds: redacted like an answer
                outcomes.append(redact_result(unanswered(c, str(e)), scan))
                continue
            # a live agent's latency (retries included) is measured; recorded answers have none
            latency_ms = (time.monotonic() - started) * 1000 if isinstance(source, HttpAgent) else None
            digest = hashlib.sha256(answer.encode()).hexdigest()
            grounding = (
                Grounding(self.grounding_docs, self.grounding_k, self.embedder)
                if self.grounding_docs
                else None
            )
            result, grounded = await examine_answer(
                c,
                answer,
                self._plan(c, rubrics),
                judge=judge,
                scan=scan,
                no_judge=no_judge,
                grounding=grounding,
                latency_ms=latency_ms,
            )
            note = grounded or note
            outcomes.append(result)
        return _worst(outcomes), digest, note

    # -- the shard ------------------------------------------------------------------------------------
    async def run(self) -> ShardResult:
        if self.attempt < 1:
            raise HarnessError(f"{JUDGE_ATTEMPT_ENV} must be a positive whole number")
        run, caseset, cases, profile = self._load()  # a run that is over or gone: nothing to do
        assert self.ref is not None
        ref = self.ref
        compiled = self._cases(caseset, cases, profile)
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
                raise HarnessError(f"EvalProfile: {e}", Reason.INVALID_PROFILE) from None
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
        self._keep_detail(encode_results(records))
        # the run's namespace (the tenant's) gets what failed, never why in words: a reason may quote
        # the expected answer; the full records are the operator's (above)
        blob = encode_results([public_record(r) for r in records])
        cms = results_configmaps(ref, self.index, self.count, blob, attempt=self.attempt)
        try:
            for cm in cms:
                self._create(cm)
        except KubeError as e:
            raise HarnessError(f"cannot write results: {e}") from None
        names = [cm["metadata"]["name"] for cm in cms]
        counts = {o: sum(1 for r in results if r.outcome is o) for o in Outcome}
        digest = self._report(
            {
                "phase": "Succeeded",
                "results": names,
                "sha256": evidence.sha256(blob),
                "provenance": prov,
                "summary": {
                    "cases": len(results),
                    "passed": counts[Outcome.PASSED],
                    "failed": counts[Outcome.FAILED],
                    "unmeasured": counts[Outcome.UNMEASURED],
                },
            },
        )
        return ShardResult(results, names, prov, digest)

    def _create(self, obj: dict[str, Any], same: Callable[[Mapping[str, Any]], bool] | None = None) -> None:
        """Create ``obj``; when its name exists already it must say the same (``same``; by default
        the very bytes and annotations: this attempt run twice), else the shard fails: the runner
        never replaces an object."""
        if self.kube.create_configmap(obj) is not None:
            return
        meta = obj["metadata"]
        have = self.kube.get_configmap(meta["namespace"], meta["name"])
        if same is None:
            ok = all((have.get(f) or {}) == (obj.get(f) or {}) for f in ("data", "binaryData")) and (
                have["metadata"].get("annotations") or {}
            ) == (meta.get("annotations") or {})
        else:
            ok = same(have)
        if not ok:
            raise HarnessError(
                f"ConfigMap {meta['namespace']}/{meta['name']} exists with other content; "
                "the judge never replaces an object"
            )

    def _report(self, fields: dict[str, Any]) -> str:
        """Write the shard's report; returns the digest of the report that stands (this one, or the
        same measurement written by this attempt before)."""
        assert self.ref is not None
        report = {
            "startTime": format_time(self.started),
            "completionTime": format_time(self.clock()),
            **{k: v for k, v in fields.items() if v is not None},
        }
        cm = report_configmap(self.ref, self.index, self.count, self.attempt, report)

        def timeless(r: Mapping[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in r.items() if k not in ("startTime", "completionTime")}

        standing = [report]

        def same(have: Mapping[str, Any]) -> bool:
            # this attempt reported already: the same measurement, other times
            try:
                said = json.loads((have.get("data") or {}).get(REPORT_KEY, ""))
            except ValueError:
                return False
            if not isinstance(said, dict) or timeless(said) != timeless(report):
                return False
            standing[0] = said
            return True

        try:
            self._create(cm, same)
        except KubeError as e:
            raise HarnessError(f"cannot write the shard's report: {e}") from None
        return evidence.report_digest(self.ref.uid, self.shard, self.attempt, standing[0])

    def vouch(self, digest: str, note: str) -> None:
        """Say which report is this container's: its digest, in the termination message the kubelet
        copies into the pod's status (what the operator believes, :mod:`proctor.k8s.evidence`).
        Without it nothing this attempt wrote is believed (the shard is retried)."""
        path = Path(self.env.get(evidence.NODE_TERMINATION_LOG_ENV) or evidence.TERMINATION_LOG)
        try:
            path.write_text(evidence.termination_message(digest, note))
        except OSError as e:
            log.error("cannot write the termination message: the report will not be believed", error=str(e))

    def fail(self, message: str, reason: str | None = None) -> None:
        """Best effort: a report of why the shard could not measure (``reason``: a permanent one, and
        the run ends at once), vouched for, when the run's UID is known; otherwise the Job's failure
        and its log tell."""
        if self.ref is None:
            return
        try:
            digest = self._report({"phase": "Failed", "message": message[:1000], "reason": reason})
        except HarnessError as e:
            log.error("cannot report the failure", error=str(e))
            return
        self.vouch(digest, message[:1000])


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
    except RunOver as e:
        print(f"proctor judge: shard {runner.shard}: nothing to do: {e}")
        return 0
    except HarnessError as e:
        # the reason may quote an agent's answer or error page: the log and the report (which
        # becomes the run's status and Events) get it redacted with the scan's findings
        why = redact_text(str(e))[0]
        print(
            f"proctor judge: error: shard {runner.shard} of {ns}/{name} could not measure: {why}",
            file=sys.stderr,
        )
        runner.fail(why, e.reason)
        return 2
    counts = {o.value: sum(1 for r in out.results if r.outcome is o) for o in Outcome}
    said = (
        f"shard {runner.shard} of {ns}/{name}: {len(out.results)} cases, "
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['unmeasured']} unmeasured; "
        f"results in {', '.join(out.configmaps)}"
    )
    print(f"proctor judge: {said}")
    runner.vouch(out.digest, said)
    return 0
