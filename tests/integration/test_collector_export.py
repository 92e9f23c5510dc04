"""Scores exported as OpenTelemetry gen_ai.evaluation.result events by the real collector process,
to an in-process OTLP/HTTP logs receiver; off unless asked for."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from collecting import agent_turn, manifests, run_in, start, tracer, wait_for
from proctor.store import Store
from proctor.testing.judgeserver import JudgeServer

BASE = {"task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety"}


class Receiver:
    """A tiny OTLP/HTTP logs endpoint: records each request; the first ``refuse`` get a 503."""

    def __init__(self, refuse: int = 0) -> None:
        self.requests: list[tuple[dict[str, str], ExportLogsServiceRequest]] = []
        self.refuse = refuse
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if outer.refuse > 0:
                    outer.refuse -= 1
                    self.send_response(503)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportLogsServiceRequest()
                request.ParseFromString(body)
                outer.requests.append(({k.lower(): v for k, v in self.headers.items()}, request))
                reply = ExportLogsServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/logs" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def records(self) -> list[Any]:
        return [
            r
            for _, req in self.requests
            for rl in req.resource_logs
            for sl in rl.scope_logs
            for r in sl.log_records
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(refuse=1)
    try:
        yield r
    finally:
        r.close()


def test_each_score_reaches_the_otlp_receiver_as_an_evaluation_event(
    receiver: Receiver, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'c.db'}"
    env = {
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_EXPORTER_OTLP_HEADERS": "x-receiver-key=s3cr3t",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
    }
    with JudgeServer() as judge:
        c = start(tmp_path, db, manifests(judge.base_url), env=env)
        try:
            with tracer(c.url) as tr:
                agent_turn(tr, "conv-otel", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
            run = wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
            records = wait_for(lambda: len(receiver.records()) >= 5 and receiver.records(), "the events")
        finally:
            c.stop()
    assert len(records) == 5 and receiver.refuse == 0  # the 503 was retried
    headers, request = receiver.requests[0]
    assert headers["x-receiver-key"] == "s3cr3t" and headers["content-encoding"] == "gzip"
    resource = {a.key: a.value.string_value for a in request.resource_logs[0].resource.attributes}
    assert resource["service.name"] == "proctor-collector"
    store = Store.open(db)
    try:
        root = next(s for s in store.trajectory(run["id"]).spans if s.parent_span_id is None)
    finally:
        store.close()
    assert root.operation == "invoke_agent"
    names = set()
    for r in records:
        attrs = {a.key: a.value for a in r.attributes}
        names.add(attrs["gen_ai.evaluation.name"].string_value)
        assert r.event_name == "gen_ai.evaluation.result"
        assert (r.trace_id.hex(), r.span_id.hex()) == (root.trace_id, root.span_id)  # on the judged turn
        assert attrs["gen_ai.evaluation.score.value"].double_value == 75.0
        assert attrs["proctor.run.id"].string_value == run["id"]
        assert attrs["gen_ai.conversation.id"].string_value == "conv-otel"
        assert attrs["proctor.evaluation.provenance"].string_value.startswith("sha256:")
    assert names == BASE


def test_nothing_is_exported_unless_asked(receiver: Receiver, tmp_path: Path) -> None:
    # an OTLP endpoint in the environment alone (an instrumented pod has one) exports nothing
    with JudgeServer() as judge:
        c = start(
            tmp_path,
            f"sqlite:///{tmp_path / 'c.db'}",
            manifests(judge.base_url),
            env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url},
        )
        try:
            with tracer(c.url) as tr:
                agent_turn(tr, "conv-quiet", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
            wait_for(lambda: run_in(c, ("Evaluated",)), "the run to be evaluated")
        finally:
            c.stop()
    assert receiver.requests == []
