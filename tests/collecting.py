"""Helpers for the collector's tests: start the real collector process, send spans with the
OpenTelemetry SDK's own exporter, read runs through the collector's API client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from proctor.collector import CollectorClient
from proctor.testing.cluster import scaled

#: What agents send (``PROCTOR_TOKEN``, the ingestion token of monitors read from files).
TOKEN = "test-collector-token"
#: The management API's token (``PROCTOR_API_TOKEN``): ``proctor runs`` and the API client.
API_TOKEN = "test-collector-api-token"
#: The longest wait, in seconds: 90 on an idle machine, scaled by the tests' one time setting
#: (``PROCTOR_TEST_TIME_SCALE``, :func:`proctor.testing.cluster.scaled`).
TIMEOUT = scaled(90)


def manifests(
    judge_url: str | None,
    *,
    quiescence: int = 1,
    service: str = "oil-agent",
    sampling: float = 1.0,
    **spec: Any,
) -> list[dict[str, Any]]:
    """An AgentMonitor (namespace demo) and its EvalProfile judged by ``judge_url``."""
    profile: dict[str, Any] = {"thresholds": {"factual_grounding": 70}}
    if judge_url:
        profile["judge"] = {
            "endpoint": judge_url,
            "model": "judge-small",
            "maxRetries": 2,
            "timeoutSeconds": 10,
        }
    return [
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": "oil-agent", "namespace": "demo"},
            "spec": {
                "agent": {"serviceName": service},
                "profileRef": {"name": "oil-rag"},
                "quiescenceSeconds": quiescence,
                "sampling": sampling,
                **spec,
            },
        },
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "oil-rag", "namespace": "demo"},
            "spec": profile,
        },
    ]


@dataclass
class Collector:
    url: str
    proc: subprocess.Popen[bytes]
    log: Path

    def client(self, token: str | None = API_TOKEN) -> CollectorClient:
        return CollectorClient(self.url, token)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start(
    tmp: Path,
    db_url: str,
    objects: Sequence[dict[str, Any]],
    *extra: str,
    name: str = "c",
    env: dict[str, str] | None = None,
) -> Collector:
    """``proctor collector`` (the CLI verb) on a free port; returns once it listens."""
    mfile = tmp / f"{name}-manifests.yaml"
    mfile.write_text(yaml.safe_dump_all(list(objects)))
    log = tmp / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "proctor.cli",
                "collector",
                "--db",
                db_url,
                "--listen",
                "127.0.0.1:0",
                "--monitor",
                str(mfile),
                "--poll",
                "0.1",
                "--worker-name",
                name,
                *extra,
            ],
            env={
                **os.environ,
                "PROCTOR_TOKEN": TOKEN,
                "PROCTOR_API_TOKEN": API_TOKEN,
                "PROCTOR_LOG_FORMAT": "console",
                **(env or {}),
            },
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        for line in text.splitlines():
            if "proctor collector: listening on " in line:
                return Collector(line.rsplit(" ", 1)[1].strip(), proc, log)
        if proc.poll() is not None:
            raise AssertionError(f"the collector exited ({proc.returncode}):\n{text[-3000:]}")
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the collector did not start:\n{log.read_text(errors='replace')[-3000:]}")


@contextmanager
def collector(
    tmp: Path, db_url: str, objects: Sequence[dict[str, Any]], *extra: str, name: str = "c"
) -> Iterator[Collector]:
    c = start(tmp, db_url, objects, *extra, name=name)
    try:
        yield c
    finally:
        c.stop()


@contextmanager
def tracer(
    url: str,
    *,
    service: str = "oil-agent",
    version: str = "1.0",
    token: str = TOKEN,
    gzip: bool = True,
    id_generator: Any = None,
) -> Iterator[Any]:
    """An OpenTelemetry SDK tracer exporting to the collector with the SDK's own OTLP/HTTP exporter."""
    exporter = OTLPSpanExporter(
        endpoint=f"{url}/v1/traces",
        headers={"Authorization": f"Bearer {token}"},
        compression=Compression.Gzip if gzip else Compression.NoCompression,
        timeout=30,
    )
    provider = TracerProvider(
        resource=Resource.create({"service.name": service, "service.version": version}),
        id_generator=id_generator,
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        yield provider.get_tracer("proctor-tests")
    finally:
        provider.force_flush()
        provider.shutdown()


#: The tool call the example turn makes (current GenAI conventions: a message part).
TOOL_CALL = {"type": "tool_call", "id": "call-1", "name": "oil_bands", "arguments": {"engine": 2}}


def messages(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"role": r, "parts": [{"type": "text", "content": c}]} for r, c in pairs])


def agent_turn(
    tr: Any,
    conversation: str,
    question: str,
    answer: str,
    *,
    tool_result: str = "NORMAL below 0.30 qt/hr; ELEVATED from 0.30",
) -> None:
    """One agent turn as a GenAI-instrumented agent emits it: invoke_agent > chat, execute_tool, chat."""
    common = {"gen_ai.conversation.id": conversation, "gen_ai.agent.name": "oil-agent"}
    with tr.start_as_current_span(
        "invoke_agent oil-agent", attributes={"gen_ai.operation.name": "invoke_agent", **common}
    ):
        with tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.system_instructions": '[{"type": "text", "content": "Cite the maintenance manual."}]',
                "gen_ai.input.messages": messages(("user", question)),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [TOOL_CALL]}]),
                **common,
            },
        ):
            pass
        with tr.start_as_current_span(
            "execute_tool oil_bands",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "oil_bands",
                "gen_ai.tool.call.id": "call-1",
                "gen_ai.tool.call.arguments": '{"engine": 2}',
                "gen_ai.tool.call.result": tool_result,
                **common,
            },
        ):
            pass
        with tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": messages(("user", question)),
                "gen_ai.output.messages": messages(("assistant", answer)),
                **common,
            },
        ):
            pass


def wait_for(predicate: Any, what: str, timeout: float = TIMEOUT, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


def run_in(c: Collector, states: Sequence[str], **query: Any) -> Any:
    """The only run of the collector once it is in one of ``states`` (or None)."""
    with c.client() as api:
        runs = api.list_runs(**query)
    return runs[0] if len(runs) == 1 and runs[0]["state"] in states else None


def show(c: Collector, run_id: str) -> Any:
    """One run's detail from the collector's API."""
    with c.client() as api:
        return api.show_run(run_id)
