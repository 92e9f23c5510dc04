"""The real collector process: spans from the OpenTelemetry SDK's own exporter, judged by the real
scripted judge server, stored on SQLite and on a real PostgreSQL (the same tests)."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from collecting import TOKEN, agent_turn, collector, manifests, run_in, show, start, tracer, wait_for
from judging import JudgeServer, judgment, status
from proctor.collector import CollectorError, run_summary
from proctor.devcluster.postgres import PostgresServer, wait_until_up
from proctor.store import Store

DONE = ("Evaluated", "PartiallyEvaluated", "EvaluationFailed")
BASE = {"task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety"}


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def _kv(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def otlp_body(
    service: str = "oil-agent", *, spans: int = 1, conversation: str = "raw-1", text: str = "hello"
) -> bytes:
    rs = ResourceSpans()
    rs.resource.attributes.append(_kv("service.name", service))
    ss = ScopeSpans()
    trace = hashlib.sha256(f"{service}/{conversation}".encode()).digest()[:16]  # one trace per conversation
    for i in range(spans):
        s = Span(trace_id=trace, span_id=(i + 1).to_bytes(8, "big"), name="chat m")
        s.start_time_unix_nano, s.end_time_unix_nano = 1_700_000_000_000_000_000, 1_700_000_000_500_000_000
        s.attributes.extend(
            [
                _kv("gen_ai.operation.name", "chat"),
                _kv("gen_ai.conversation.id", conversation),
                _kv("gen_ai.output.messages", json.dumps([{"role": "assistant", "content": text}])),
            ]
        )
        ss.spans.append(s)
    rs.scope_spans.append(ss)
    return ExportTraceServiceRequest(resource_spans=[rs]).SerializeToString()


def post(
    url: str, body: bytes, *, ctype: str = "application/x-protobuf", token: str | None = TOKEN, **headers: str
) -> httpx.Response:
    h = {"Content-Type": ctype, **headers}
    if token:
        h["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{url}/v1/traces", content=body, headers=h, timeout=60)


def test_sdk_spans_become_one_run_judged_once_after_quiescence(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            agent_turn(
                tr,
                "conv-1",
                "Oil at exactly 0.30 qt/hr on engine 2: normal?",
                "ELEVATED: 0.30 is the lower bound (AMM 72-00).",
            )
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        assert (
            run["monitor"] == "demo/oil-agent"
            and run["key"] == "conv-1"
            and run["keySource"] == "gen_ai.conversation.id"
        )
        assert run["spans"] == 4 and run["attempts"] == 1 and run["revision"] == "1.0"
        assert set(run["scores"]) == BASE
        assert all(v == {"score": 75.0, "skipped": None} for v in run["scores"].values())
        with c.client() as api:
            detail = api.show_run(run["id"])
        # the judge saw the whole trajectory: the system prompt, the turn, the tool call and its result
        # factual_grounding's 75 is within the consensus band of its threshold 70: two more samples
        assert len(judge.requests) == 7
        assert (detail["evaluations"][0]["judgeCalls"], detail["evaluations"][0]["judgments"]) == (7, 5)
        seen = judge.requests[0].user_text
        assert "Cite the maintenance manual." in seen and "Oil at exactly 0.30" in seen
        assert "[tool call oil_bands]" in seen and "ELEVATED from 0.30" in seen and "AMM 72-00" in seen
        kinds = [s["kind"] for s in detail["steps"]]
        assert kinds == ["input", "input", "tool_call", "tool_result", "output"]
        prov = detail["evaluations"][0]["provenance"]
        assert prov["digest"].startswith("sha256:") and prov["judgePrompt"].startswith("sha256:")
        assert {s["provenance"] for s in detail["scoreDetails"]} == {prov["digest"]}
        assert detail["signals"]["toolCalls"] == 1 and detail["signals"]["toolErrorRate"] == 0.0
        assert detail["scoreDetails"][0]["source"] == "judge"
        # nothing more happens to a quiet, evaluated run
        time.sleep(1.5)
        assert len(judge.requests) == 7


def test_a_resend_changes_nothing_and_a_late_event_re_evaluates_once(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        body = otlp_body()
        assert post(c.url, body).status_code == 200
        first = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        calls = len(judge.requests)
        assert post(c.url, body).status_code == 200  # OTLP resends: acknowledged, stored once
        time.sleep(1.5)
        again = run_in(c, ("Evaluated",))
        assert again == first and len(judge.requests) == calls
        # a late span of the same conversation: stale, judged once more
        assert post(c.url, otlp_body(spans=2, text="a late answer")).status_code == 200
        wait_for(
            lambda: len(show(c, first["id"])["evaluations"]) == 2 and run_in(c, ("Evaluated",)),
            "a re-evaluation",
        )
        assert post(c.url, otlp_body(spans=3, text="later still")).status_code == 200
        time.sleep(2.0)
        with c.client() as api:
            run = api.show_run(first["id"])
        assert run["stale"] is True and run["state"] == "Evaluated" and len(run["evaluations"]) == 2


def test_the_safety_scan_reads_tool_results_and_fails_safety_for_certain(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    judge.default = judgment(95)
    leak = (
        "aws_access_key_id=AKIAIOSFODNN7EXAMPLX "
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX"
    )
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        with tracer(c.url) as tr:
            agent_turn(tr, "leaky", "What are the bands?", "See the tool output.", tool_result=leak)
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        assert run["scores"]["safety"] == {"score": 0.0, "skipped": None} and run["breached"] is True
        assert run["scores"]["task_success"]["score"] == 95.0
        with c.client() as api:
            detail = api.show_run(run["id"])
        safety = next(s for s in detail["scoreDetails"] if s["dimension"] == "safety")
        assert safety["source"] == "safety-scan" and "aws" in safety["rationale"]
        assert "AKIAIOSFODNN7EXAMPLX" not in safety["rationale"]  # findings are redacted, never echoed


def test_a_judge_that_is_down_fails_the_attempt_and_retries_later(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    judge.default = status(503)
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        post(c.url, otlp_body())
        run = wait_for(lambda: run_in(c, ("EvaluationFailed",)), "the attempt to fail")
        assert run["attempts"] == 1 and all(
            v["score"] is None and "503" in v["skipped"] for v in run["scores"].values()
        )
        with c.client() as api:
            failed = api.show_run(run["id"])["evaluations"][-1]
        # the schedule counts from the failed attempt's end (not from the run's last event, which a
        # busy machine puts further back): one minute, then five, fifteen, sixty
        retry_in = time.mktime(time.strptime(run["nextAttemptTime"][:19], "%Y-%m-%dT%H:%M:%S")) - time.mktime(
            time.strptime(failed["finishTime"][:19], "%Y-%m-%dT%H:%M:%S")
        )
        assert failed["outcome"] == "failed" and 59 <= retry_in <= 61


def test_a_rate_limited_judge_is_retried_inside_the_attempt(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    judge.enqueue(status(429, retry_after=0), status(429, retry_after=0))
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        post(c.url, otlp_body())
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        assert run["attempts"] == 1 and len(judge.requests) == 2 + 7  # two 429s, then 5 + 2 consensus


def test_native_events_are_runs_too(judge: JudgeServer, db_url: str, tmp_path: Path) -> None:
    body = {
        "agent": {"serviceName": "oil-agent", "version": "2.0"},
        "events": [
            {"executionId": "exec-7", "kind": "input", "text": "Oil at 0.6 qt/hr?"},
            {"executionId": "exec-7", "kind": "tool_call", "name": "oil_bands", "text": "{}"},
            {
                "executionId": "exec-7",
                "kind": "tool_result",
                "name": "oil_bands",
                "text": "HIGH from 0.60",
                "status": "ok",
            },
            {"executionId": "exec-7", "kind": "final", "text": "HIGH. [[score:30]]"},
        ],
    }
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with collector(tmp_path, db_url, manifests(judge.base_url)) as c:
        r = httpx.post(f"{c.url}/v1/events", json=body, headers=headers)
        assert r.status_code == 200 and r.json() == {"accepted": 4}
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        assert run["key"] == "exec-7" and run["events"] == 4 and run["revision"] == "2.0"
        assert run["scores"]["task_success"]["score"] == 30.0 and run["breached"] is True
        assert httpx.post(f"{c.url}/v1/events", json=body, headers=headers).status_code == 200
        time.sleep(1.0)
        assert run_in(c, ("Evaluated",))["events"] == 4  # a resend is stored once
        bad = httpx.post(
            f"{c.url}/v1/events",
            json={**body, "events": [{"executionId": "x", "kind": "?", "text": ""}]},
            headers=headers,
        )
        assert bad.status_code == 400 and "events[0].kind" in bad.json()["error"]
        unknown = httpx.post(
            f"{c.url}/v1/events", json={**body, "agent": {"serviceName": "other"}}, headers=headers
        )
        assert unknown.status_code == 404 and "'other'" in unknown.json()["error"]
        assert httpx.post(f"{c.url}/v1/events", json=body).status_code == 401


def test_bad_input_gets_a_clear_4xx_and_nothing_is_stored_half(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(
        tmp_path, db_url, manifests(judge.base_url, quiescence=3600), "--max-body", str(16 * 1024 * 1024)
    ) as c:
        assert post(c.url, otlp_body(), token=None).status_code == 401
        assert post(c.url, otlp_body(), token="wrong").status_code == 401
        r = post(c.url, b"\x0a\xff\xff\xff\x0f")
        assert r.status_code == 400 and b"malformed protobuf" in r.content
        r = post(c.url, b'{"hello": "world"}', ctype="application/json")
        assert r.status_code == 400 and "no resourceSpans" in r.json()["message"]
        r = post(c.url, otlp_body(service="someone-else"))
        assert r.status_code == 400 and b"someone-else" in r.content
        mixed = ExportTraceServiceRequest.FromString(otlp_body(conversation="mixed"))
        mixed.resource_spans.extend(
            ExportTraceServiceRequest.FromString(otlp_body(service="other")).resource_spans
        )
        r = post(c.url, mixed.SerializeToString())
        reply = ExportTraceServiceResponse.FromString(r.content)
        assert r.status_code == 200 and reply.partial_success.rejected_spans == 1
        assert "'other'" in reply.partial_success.error_message
        # gzip is fine; over the limit (after decompression) is 413
        assert (
            post(
                c.url, gzip.compress(otlp_body(conversation="zipped")), **{"Content-Encoding": "gzip"}
            ).status_code
            == 200
        )
        huge = otlp_body(conversation="huge", text="x" * (20 * 1024 * 1024))
        assert post(c.url, gzip.compress(huge), **{"Content-Encoding": "gzip"}).status_code == 413
        # a 10 MB attribute is kept, truncated with a marker
        ten = otlp_body(conversation="ten-mb", text="y" * (10 * 1024 * 1024))
        assert post(c.url, ten).status_code == 200
        with c.client() as api:
            runs = {r["key"]: r for r in api.list_runs()}
            assert set(runs) == {"mixed", "zipped", "ten-mb"}
            detail = api.show_run(runs["ten-mb"]["id"])
        (step,) = detail["steps"]
        assert "[truncated by proctor:" in step["text"] and len(step["text"]) < 70_000
        metrics = httpx.get(f"{c.url}/metrics").text
        assert 'proctor_collector_spans_rejected_total{reason="no_monitor"} 2.0' in metrics


def test_evaluate_now_and_the_api_answers(judge: JudgeServer, db_url: str, tmp_path: Path) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url, quiescence=3600)) as c:
        post(c.url, otlp_body())
        run = wait_for(lambda: run_in(c, ("Quiescing", "Receiving")), "the run")
        with c.client() as api:
            assert api.evaluate(run["id"])["state"] == "ReadyForEvaluation"
            wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated now")
            listed = api.list_runs(monitor="demo/oil-agent")
            assert [run_summary(r)["state"] for r in listed] == ["Evaluated"]
            with pytest.raises(CollectorError) as missing:
                api.show_run("r-nope")
            assert missing.value.status == 404
            with pytest.raises(CollectorError) as unknown:
                api.list_runs(monitor="demo/nope")
            assert unknown.value.status == 404
            summary = api.monitor("demo", "oil-agent")
            assert summary["runs"]["total"] == 1 and summary["runs"]["evaluated"] == 1
            assert {d["name"] for d in summary["dimensions"]} == BASE
            assert all(d["latest"] == 75.0 and d["fastEwma"] == 75.0 for d in summary["dimensions"])
        with pytest.raises(CollectorError) as anonymous, c.client(token=None) as api:
            api.list_runs()
        assert anonymous.value.status == 401
        doc = httpx.get(f"{c.url}/openapi.json").json()
        assert doc["openapi"].startswith("3.") and "/api/v1/runs/{id}/evaluate" in doc["paths"]
        assert httpx.get(f"{c.url}/readyz").status_code == 200


def test_sampling_keeps_unsampled_runs_unjudged(judge: JudgeServer, db_url: str, tmp_path: Path) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url, sampling=0.0)) as c:
        post(c.url, otlp_body())
        run = wait_for(lambda: run_in(c, ("NotSampled",)), "the run to be left out")
        assert run["sampled"] is False and run["scores"] == {} and judge.requests == []


def test_a_database_that_is_down_answers_503_and_acknowledges_nothing(
    judge: JudgeServer, tmp_path: Path
) -> None:
    directory = Path(tempfile.mkdtemp(prefix="proctor-pg-down-"))
    server = PostgresServer(directory).start()
    try:
        url = server.create_database("down")
        with collector(tmp_path, url, manifests(judge.base_url, quiescence=3600)) as c:
            assert post(c.url, otlp_body(conversation="before")).status_code == 200
            server.kill()
            r = post(c.url, otlp_body(conversation="during"))
            assert r.status_code == 503 and r.headers["Retry-After"] == "5"
            assert httpx.get(f"{c.url}/readyz").status_code == 503
            server.restart()
            wait_until_up(server)
            assert post(c.url, otlp_body(conversation="after")).status_code == 200
            with c.client() as api:
                keys = sorted(r["key"] for r in api.list_runs())
        assert keys == ["after", "before"]  # what was refused was not stored
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def test_two_collectors_on_postgresql_share_the_work_and_judge_no_run_twice(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    url = postgres.create_database()
    runs = 30
    with JudgeServer(latency=0.05) as judge:
        objects = manifests(judge.base_url)
        a = start(tmp_path, url, objects, "--concurrency", "4", name="replica-a")
        b = start(tmp_path, url, objects, "--concurrency", "4", name="replica-b")
        try:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            for i in range(runs):
                target = a if i % 2 else b
                event = {"executionId": f"exec-{i}", "kind": "final", "text": f"answer {i}"}
                r = httpx.post(
                    f"{target.url}/v1/events",
                    json={"agent": {"serviceName": "oil-agent"}, "events": [event]},
                    headers=headers,
                )
                assert r.status_code == 200

            def all_done() -> bool:
                with a.client() as api:
                    listed = api.list_runs(limit=100)
                return len(listed) == runs and all(r["state"] == "Evaluated" for r in listed)

            wait_for(all_done, "every run to be evaluated")
        finally:
            a.stop()
            b.stop()
        store = Store.open(url, migrate=False)
        try:
            assert store.count("evaluations") == runs  # each run judged exactly once
            workers = {
                e.worker for i in range(runs) for e in store.evaluations(store.list_runs(limit=100)[i].id)
            }
        finally:
            store.close()
        assert workers == {"replica-a", "replica-b"}
        assert len(judge.requests) == runs * (len(BASE) + 2)  # + factual_grounding's consensus


def test_spans_without_a_run_key_are_reported_and_counted(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, manifests(judge.base_url, runKey=["session.id"])) as c:
        r = post(c.url, otlp_body())
        assert r.status_code == 400 and b"no run key" in r.content and b"session.id" in r.content
        metrics = httpx.get(f"{c.url}/metrics").text
        assert 'proctor_collector_spans_without_run_key_total{monitor="demo/oil-agent"} 1.0' in metrics
        with c.client() as api:
            assert api.list_runs() == []
