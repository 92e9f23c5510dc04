"""What the collector acknowledges it keeps, whatever the ids, values and timing an adversarial or
unlucky sender chooses (issue 24): the real collector process on SQLite and on a real PostgreSQL,
spans from the OpenTelemetry SDK's own exporter."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gzip
import itertools
import os
import shutil
import signal
import tempfile
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace.id_generator import IdGenerator

from collecting import API_TOKEN, TOKEN, collector, manifests, run_in, start, tracer, wait_for
from judging import JudgeServer, judgment, respond_with
from proctor.collector.metrics import MAX_REVISIONS_PER_MONITOR, OTHER_REVISION
from proctor.devcluster.postgres import PostgresServer, wait_until_up
from proctor.store import Store, run_id
from proctor.testing.cluster import scaled

HEADERS = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def two_monitors(judge_url: str, **spec: Any) -> list[dict[str, Any]]:
    """demo/oil-agent (service oil-agent) and demo/gas-agent (service gas-agent), one profile."""
    monitor, profile = manifests(judge_url, **spec)
    gas = copy.deepcopy(monitor)
    gas["metadata"]["name"] = "gas-agent"
    gas["spec"]["agent"]["serviceName"] = "gas-agent"
    return [monitor, gas, profile]


class SameIds(IdGenerator):
    """Every provider built with this hands out the same trace and span ids, in the same order:
    two agents (or a hostile one) whose ids collide with another's."""

    def __init__(self) -> None:
        self._spans = itertools.count(1)

    def generate_span_id(self) -> int:
        return next(self._spans)

    def generate_trace_id(self) -> int:
        return 0xA11CE


def test_colliding_ids_from_two_runs_and_two_monitors_are_all_kept(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, two_monitors(judge.base_url, quiescence=3600)) as c:
        for service in ("oil-agent", "gas-agent"):
            for execution in ("exec-1", "exec-2"):
                events = [
                    # the sender's own ids, the same in every run of both monitors
                    {"id": "step-1", "executionId": execution, "kind": "input", "text": "Oil at 0.6?"},
                    {
                        "id": "step-2",
                        "executionId": execution,
                        "kind": "tool_call",
                        "name": "t",
                        "text": "{}",
                    },
                    # no id, no timestamp: an agent repeating itself is two events, not one
                    {"executionId": execution, "kind": "output", "text": "checking again"},
                    {"executionId": execution, "kind": "output", "text": "checking again"},
                    # the same id twice in one request: the sender says it is one event
                    {"id": "step-3", "executionId": execution, "kind": "final", "text": "HIGH"},
                    {"id": "step-3", "executionId": execution, "kind": "final", "text": "HIGH"},
                ]
                body = {"agent": {"serviceName": service}, "events": events}
                r = httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS)
                assert r.status_code == 200, r.text
                # a resent request is recognised: nothing more is stored
                assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200
            for conversation in ("conv-1", "conv-2"):
                # the SDK's own exporter, with span ids equal across both runs and both monitors
                with tracer(c.url, service=service, id_generator=SameIds()) as tr:
                    for i in range(3):
                        with tr.start_as_current_span(
                            f"chat {i}",
                            attributes={
                                "gen_ai.operation.name": "chat",
                                "gen_ai.conversation.id": conversation,
                            },
                        ):
                            pass
        with c.client() as api:
            runs = {(r["monitor"], r["key"]): r for r in api.list_runs()}
    monitors = ("demo/oil-agent", "demo/gas-agent")
    assert {(r["events"], r["spans"]) for k, r in runs.items() if k[1].startswith("exec")} == {(5, 0)}
    assert {(r["events"], r["spans"]) for k, r in runs.items() if k[1].startswith("conv")} == {(0, 3)}
    assert len(runs) == 8
    store = Store.open(db_url)
    try:
        for monitor in monitors:
            for key in ("exec-1", "exec-2"):
                got = store.trajectory(run_id(monitor, key)).events
                assert sorted(e.text for e in got) == [
                    "HIGH",
                    "Oil at 0.6?",
                    "checking again",
                    "checking again",
                    "{}",
                ]
            for key in ("conv-1", "conv-2"):
                assert len(store.trajectory(run_id(monitor, key)).spans) == 3
        assert store.count("events") == 20 and store.count("spans") == 12
    finally:
        store.close()


def test_a_run_failed_for_nothing_to_judge_is_judged_when_its_output_arrives_late(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    def send(*events: dict[str, Any]) -> None:
        body = {"agent": {"serviceName": "oil-agent"}, "events": list(events)}
        assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200

    with collector(tmp_path, db_url, manifests(judge.base_url, quiescence=1)) as c:
        send({"executionId": "late-1", "kind": "input", "text": "Oil at 0.6 qt/hr?"})
        failed = wait_for(lambda: run_in(c, ("EvaluationFailed",)), "the run to fail: nothing to judge")
        assert "nothing to judge" in failed["lastError"]
        send({"executionId": "late-1", "kind": "final", "text": "HIGH. [[score:40]]"})
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the late output to be judged")
        assert run["scores"]["task_success"]["score"] == 40.0 and run["events"] == 2
        # once: a later event marks it stale, and it is not judged again on its own
        send({"executionId": "late-1", "kind": "output", "text": "one more thing"})
        wait_for(lambda: (r := run_in(c, ("Evaluated",))) and r["stale"], "the run to be marked stale")


def test_sigterm_hands_the_runs_in_flight_back_untouched(db_url: str, tmp_path: Path) -> None:
    """Six runs being judged (the judge holds every answer; its concurrency limit has waiters) when
    the collector gets SIGTERM: none is recorded failed, none uses an attempt; the next collector
    judges them all."""
    release = threading.Event()

    def held(_request: Any) -> Any:
        release.wait(scaled(120))
        return judgment(70)

    with JudgeServer() as judge:
        judge.default = respond_with(held)
        objects = manifests(judge.base_url, quiescence=1)
        objects[1]["spec"]["judge"].update(timeoutSeconds=600, concurrency=2)
        try:
            c = start(tmp_path, db_url, objects)
            body = {
                "agent": {"serviceName": "oil-agent"},
                "events": [
                    {"executionId": f"run-{i}", "kind": kind, "text": text}
                    for i in range(6)
                    for kind, text in (("input", "Oil at 0.6 qt/hr?"), ("final", "HIGH"))
                ],
            }
            assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200

            def all_evaluating() -> bool:
                with c.client() as api:
                    runs = api.list_runs()
                return (
                    len(runs) == 6
                    and all(r["state"] == "Evaluating" for r in runs)
                    and len(judge.requests) >= 2
                )

            wait_for(all_evaluating, "six runs being judged")
            assert c.stop() == 0  # SIGTERM
        finally:
            release.set()
        store = Store.open(db_url)
        try:
            runs = store.list_runs()
            assert {(r.state, r.attempts) for r in runs} == {("ReadyForEvaluation", 0)}
            outcomes = {e.outcome for r in runs for e in store.evaluations(r.id)}
            assert outcomes == {"interrupted"}
        finally:
            store.close()
        judge.default = judgment(70)
        with collector(tmp_path, db_url, objects, name="again") as again:

            def judged() -> bool:
                with again.client() as api:
                    return {(r["state"], r["attempts"]) for r in api.list_runs()} == {("Evaluated", 1)}

            wait_for(judged, "the handed-back runs to be judged by the next collector")


def _bomb(inflate_mib: int) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(z.compress(bytes(1 << 20)) for _ in range(inflate_mib)) + z.flush()


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_eight_gzip_bombs_are_refused_within_bounded_memory_and_health_answers(
    db_url: str, tmp_path: Path
) -> None:
    """Eight requests of 1 MiB gzip that inflate to 1 GiB each, at once: each is answered 413, the
    collector's memory grows by a bounded amount (before: ~1 GiB), /healthz answers meanwhile."""
    body = _bomb(1024)
    headers = {**HEADERS, "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}
    with collector(tmp_path, db_url, manifests(None), "--no-worker", "--max-body", str(16 << 20)) as c:
        at_rest = _peak_rss_mib(c.proc.pid)

        async def attack() -> tuple[list[int], list[int]]:
            async with httpx.AsyncClient(timeout=scaled(120)) as client:
                bombs = [
                    asyncio.create_task(client.post(f"{c.url}/v1/traces", content=body, headers=headers))
                    for _ in range(8)
                ]
                health = []
                while not all(b.done() for b in bombs):
                    health.append((await client.get(f"{c.url}/healthz")).status_code)
                return [(await b).status_code for b in bombs], health

        statuses, health = asyncio.run(attack())
        assert statuses == [413] * 8
        assert health and set(health) == {200}
        assert _peak_rss_mib(c.proc.pid) - at_rest < 300
        with c.client() as api:
            assert api.list_runs() == []


def test_one_request_over_max_pending_is_413_and_stores_nothing(db_url: str, tmp_path: Path) -> None:
    with collector(tmp_path, db_url, manifests(None), "--no-worker", "--max-pending", "10") as c:
        req = ExportTraceServiceRequest()
        rs = req.resource_spans.add()
        rs.resource.attributes.add(key="service.name").value.string_value = "oil-agent"
        ss = rs.scope_spans.add()
        for i in range(11):
            s = ss.spans.add(trace_id=bytes(range(1, 17)), span_id=(i + 1).to_bytes(8, "big"), name="chat")
            s.attributes.add(key="gen_ai.conversation.id").value.string_value = "big"
        r = httpx.post(
            f"{c.url}/v1/traces",
            content=gzip.compress(req.SerializeToString()),
            headers={**HEADERS, "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
        )
        assert r.status_code == 413 and b"--max-pending" in r.content
        events = [{"executionId": "big", "kind": "output", "text": str(i)} for i in range(11)]
        r = httpx.post(
            f"{c.url}/v1/events",
            json={"agent": {"serviceName": "oil-agent"}, "events": events},
            headers=HEADERS,
        )
        assert r.status_code == 413 and "--max-pending" in r.json()["error"]
        ten = {"agent": {"serviceName": "oil-agent"}, "events": events[:10]}
        assert httpx.post(f"{c.url}/v1/events", json=ten, headers=HEADERS).status_code == 200
        odd = httpx.post(f"{c.url}/v1/events", content=b"x", headers={**HEADERS, "Content-Encoding": "br"})
        assert odd.status_code == 415
        with c.client() as api:
            assert [(r["key"], r["events"], r["spans"]) for r in api.list_runs()] == [("big", 10, 0)]


def test_metrics_label_the_live_revisions_up_to_the_cap_and_aggregate_the_rest(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    versions = [f"1.{i}" for i in range(MAX_REVISIONS_PER_MONITOR + 4)]
    with collector(tmp_path, db_url, manifests(judge.base_url, quiescence=1)) as c:
        for v in versions:
            body = {
                "agent": {"serviceName": "oil-agent", "version": v},
                "events": [
                    {"executionId": f"run-{v}", "kind": "input", "text": "Oil at 0.6 qt/hr?"},
                    {"executionId": f"run-{v}", "kind": "final", "text": "HIGH"},
                ],
            }
            assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200

        def all_judged() -> bool:
            with c.client() as api:
                runs = api.list_runs()
            return len(runs) == len(versions) and all(r["state"] == "Evaluated" for r in runs)

        wait_for(all_judged, "every version's run to be judged")
        text = httpx.get(f"{c.url}/metrics").text
    evaluations = [
        line for line in text.splitlines() if line.startswith("proctor_collector_evaluations_total{")
    ]
    labels = {
        line.split('revision="', 1)[1].split('"', 1)[0]: float(line.rsplit(" ", 1)[1]) for line in evaluations
    }
    assert len(labels) == MAX_REVISIONS_PER_MONITOR + 1 and labels[OTHER_REVISION] == 4.0
    assert sum(labels.values()) == len(versions)  # every evaluation counted, none lost


def _one_span_request() -> bytes:
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.add(key="service.name").value.string_value = "oil-agent"
    s = rs.scope_spans.add().spans.add(trace_id=bytes(range(1, 17)), span_id=bytes(range(1, 9)), name="chat")
    s.attributes.add(key="gen_ai.conversation.id").value.string_value = "c"
    return req.SerializeToString()


def _postgres_processes(server: PostgresServer) -> list[int]:
    """The server's postmaster and every backend it forked."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    out = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            out.append(int(stat.parent.name))
    return out


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    directory = Path(tempfile.mkdtemp(prefix="proctor-pg-hang-"))
    server = PostgresServer(directory).start()
    try:
        yield server
    finally:
        for pid in _postgres_processes(server):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def test_a_hung_database_gets_bounded_answers_and_the_collector_recovers(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    """PostgreSQL frozen (SIGSTOP: connections open, nothing answers): /readyz and ingestion answer
    503 with the reason instead of hanging with it; once it thaws, everything works again."""
    url = own_postgres.create_database("hang")
    events = {
        "agent": {"serviceName": "oil-agent"},
        "events": [{"executionId": "e", "kind": "input", "text": "?"}],
    }
    with collector(tmp_path, url, manifests(None, quiescence=3600), "--no-worker") as c:
        assert httpx.get(f"{c.url}/readyz").status_code == 200
        frozen = _postgres_processes(own_postgres)
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        try:
            # an httpx timeout far over the collector's bounds: before, these waited as long as the hang
            patience = scaled(60)
            ready = httpx.get(f"{c.url}/readyz", timeout=patience)
            assert ready.status_code == 503 and "has not answered" in ready.json()["error"]
            again = httpx.get(f"{c.url}/readyz", timeout=patience)  # the check in flight: 503 at once
            assert again.status_code == 503 and again.headers["Retry-After"] == "5"
            sent = httpx.post(f"{c.url}/v1/events", json=events, headers=HEADERS, timeout=patience)
            assert sent.status_code == 503 and sent.headers["Retry-After"] == "5"
            # the reason says what happened: no commit within the bound, or no connection in time
            assert "did not commit within" in sent.json()["error"] or "timeout" in sent.json()["error"]

            async def readers_then_gzip() -> tuple[list[int], int]:
                # eight readers of the runs API, each holding a thread the database never answers
                api = {"Authorization": f"Bearer {API_TOKEN}"}  # the runs API's token, not the agents'
                async with httpx.AsyncClient(timeout=patience, headers=HEADERS) as client:
                    readers = await asyncio.gather(
                        *(client.get(f"{c.url}/api/v1/runs", headers=api) for _ in range(8))
                    )
                    # ...and gzip ingestion still gets its bounded answer: inflating never waits on them
                    spans = await client.post(
                        f"{c.url}/v1/traces",
                        content=gzip.compress(_one_span_request()),
                        headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
                    )
                    return [r.status_code for r in readers], spans.status_code

            readers, spans = asyncio.run(readers_then_gzip())
            assert readers == [503] * 8 and spans == 503
        finally:
            for pid in frozen:
                os.kill(pid, signal.SIGCONT)
        wait_for(lambda: httpx.get(f"{c.url}/readyz").status_code == 200, "ready again")
        assert httpx.post(f"{c.url}/v1/events", json=events, headers=HEADERS).status_code == 200
        with c.client() as api:
            runs = {r["key"]: r for r in api.list_runs()}
        assert runs["e"]["events"] == 1  # stored once, resend recognised
        # the span answered 503 promised nothing: it may be committed once the database is back (its
        # resend is then an upsert), and nothing else appears
        assert set(runs) <= {"e", "c"}


def test_a_result_finished_while_the_database_restarts_is_recorded_when_it_returns(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    """The judge answers while PostgreSQL is down: the worker keeps the result and records it when
    the database is back: Evaluated after one attempt, never left Evaluating nor failed as if the
    worker had stopped."""
    url = own_postgres.create_database("restart")
    release = threading.Event()

    def held(_request: Any) -> Any:
        release.wait(scaled(120))
        return judgment(70)

    with JudgeServer() as judge:
        judge.default = respond_with(held)
        objects = manifests(judge.base_url, quiescence=1)
        objects[1]["spec"]["judge"]["timeoutSeconds"] = 600
        try:
            with collector(tmp_path, url, objects) as c:
                body = {
                    "agent": {"serviceName": "oil-agent"},
                    "events": [
                        {"executionId": "r", "kind": "input", "text": "Oil at 0.6 qt/hr?"},
                        {"executionId": "r", "kind": "final", "text": "HIGH"},
                    ],
                }
                assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200
                wait_for(lambda: run_in(c, ("Evaluating",)) and judge.requests, "the run being judged")
                own_postgres.kill()
                release.set()
                wait_for(
                    lambda: "cannot record an evaluation yet" in c.log.read_text(errors="replace"),
                    "the worker to find the database away",
                )
                own_postgres.restart()
                wait_until_up(own_postgres)
                run = wait_for(lambda: run_in(c, ("Evaluated",)), "the result to be recorded")
                assert run["attempts"] == 1 and run["scores"]["task_success"]["score"] == 70.0
        finally:
            release.set()


def test_a_locked_sqlite_database_gets_a_bounded_503_and_the_write_lands_after(tmp_path: Path) -> None:
    """SQLite's equivalent of a hung server: another process holds the write lock. Ingestion
    answers 503 within its bound (not after SQLite's 30 s busy wait, nor never), and what it was
    sending is stored once the lock is gone (a resend is recognised)."""
    import sqlite3

    path = tmp_path / "locked.db"
    url = f"sqlite:///{path}"
    events = {
        "agent": {"serviceName": "oil-agent"},
        "events": [{"executionId": "e", "kind": "input", "text": "?"}],
    }
    with collector(tmp_path, url, manifests(None, quiescence=3600), "--no-worker") as c:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            sent = httpx.post(f"{c.url}/v1/events", json=events, headers=HEADERS, timeout=scaled(60))
            assert sent.status_code == 503 and "did not commit within" in sent.json()["error"]
        finally:
            holder.rollback()
            holder.close()
        assert httpx.post(f"{c.url}/v1/events", json=events, headers=HEADERS).status_code == 200
        with c.client() as api:
            assert [r["events"] for r in api.list_runs()] == [1]


def test_migration_0002_keeps_the_stored_items_and_then_scopes_ids_to_runs(db_url: str) -> None:
    """A database written by the previous version: its spans and events survive the new keys."""
    from alembic import command
    from sqlalchemy import text

    from proctor.protocol import LifecyclePolicy
    from proctor.store import EventRecord, Item, RunRef, SpanRecord
    from proctor.store._engine import _config, unpooled

    engine = unpooled(db_url)
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(
            text(
                "INSERT INTO spans (trace_id, span_id, run_id, name, kind, start_ns, end_ns, status_code, "
                "attributes, resource, events, received_at) VALUES "
                "('t', 's', 'r-old', 'chat', 0, 1, 2, 0, '{}', '{}', '[]', 1.0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO events (id, run_id, kind, text, timestamp, attributes, received_at) "
                "VALUES ('e1', 'r-old', 'output', 'kept', 1.0, '{}', 1.0)"
            )
        )
    engine.dispose()
    store = Store.open(db_url)
    try:
        kept = store.trajectory("r-old")
        assert [s.name for s in kept.spans] == ["chat"] and [e.text for e in kept.events] == ["kept"]
        other = RunRef("ns/m", "another-run", "executionId", "agent")
        result = store.ingest(
            [
                Item(other, span=SpanRecord(trace_id="t", span_id="s", name="mine", start_ns=1, end_ns=2)),
                Item(other, event=EventRecord(id="e1", kind="output", text="mine too", timestamp=1.0)),
            ],
            {"ns/m": LifecyclePolicy()},
            now=10.0,
        )
        assert (result.spans, result.events, result.duplicates) == (1, 1, 0)
    finally:
        store.close()
