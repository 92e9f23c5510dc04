"""A small example agent: an engine oil-monitoring assistant over HTTP.

POST /ask {"question": "...", "conversation": "optional id"} -> {"answer": "...", "conversation": id};
GET /healthz -> 200.

Versions (``AGENT_VERSION``; on Proctor's local node stand-in, the image tag):
- v1: correct.
- v2: the seed's band-boundary bug: 0.30 qt/hr, the inclusive lower bound of ELEVATED, is read as
  NORMAL. A perfectly formed answer carrying the wrong threshold.
- v1.1: correct, with different wording.

It listens on ``POD_IP`` (the downward API's status.podIP) when set, else all interfaces, on ``PORT``
(default 8080).

Telemetry (arm B): when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is
set, every answer is traced with the OpenTelemetry SDK and its OTLP/HTTP exporter, following the
GenAI semantic conventions, as an instrumented agent would: an ``invoke_agent`` span (the turn, keyed
by ``gen_ai.conversation.id``) holding a ``chat`` span (the instructions, the question and the model's
tool call), an ``execute_tool oil_bands`` span (the manual's bands, the tool's result) and a second
``chat`` span (the answer). The exporter reads the standard environment: the endpoint,
``OTEL_EXPORTER_OTLP_HEADERS`` (``Authorization=Bearer <token>`` for Proctor's collector),
``OTEL_SERVICE_NAME`` (default ``oil-agent``); ``service.version`` is the agent's version. Without the
variable, or without the SDK installed, the agent answers untraced (the stdlib is all it needs then).
"""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from contextlib import AbstractContextManager, nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The manual the tool reads (what a grounded answer must agree with).
BANDS = (
    "Oil consumption bands (AMM 72-00): NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; "
    "HIGH from 0.60 qt/hr."
)
INSTRUCTIONS = (
    "You are an engine oil-monitoring assistant. Answer from the maintenance manual (AMM 72-00) and cite it."
)


def version() -> str:
    if v := os.environ.get("AGENT_VERSION"):
        return v
    image = os.environ.get("PROCTOR_NODE_IMAGE", "")
    return image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else "v1"


def band(value: float, buggy: bool) -> str:
    if value < 0.30 or (buggy and value <= 0.30):
        return "NORMAL"
    return "ELEVATED" if value < 0.60 else "HIGH"


def answer(question: str, v: str) -> str:
    q = question.lower()
    figure = re.search(r"(\d+(?:\.\d+)?)\s*qt/hr", q)
    if "auxiliary power unit" in q or "apu" in q.split():
        return (
            "I can't answer that: the manual I have (AMM 72-00) gives oil consumption bands for the "
            "main engines only, not the APU."
        )
    if "json" in q and figure:
        return json.dumps({"band": band(float(figure.group(1)), v == "v2"), "source": "AMM 72-00"})
    if "dispatch" in q and figure:
        b = band(float(figure.group(1)), v == "v2")
        rule = "dispatch is allowed with a trend check" if b == "ELEVATED" else "dispatch is allowed"
        return f"{figure.group(1)} qt/hr is in the {b} band: {rule} (AMM 72-00)."
    if figure:
        value = float(figure.group(1))
        b = band(value, v == "v2")
        if v == "v1.1":
            return f"Band: {b}. {value:.2f} qt/hr, per the AMM 72-00 consumption bands."
        why = {
            "NORMAL": f"{value:.2f} qt/hr is within limits",
            "ELEVATED": f"{value:.2f} qt/hr is in the ELEVATED band (from 0.30 up to 0.60 qt/hr)",
            "HIGH": f"{value:.2f} qt/hr is where the HIGH band starts or beyond",
        }[b]
        return f"{b}: {why} (AMM 72-00)."
    if "where" in q and "come from" in q:
        return "They come from the aircraft maintenance manual, chapter AMM 72-00."
    if "one sentence" in q:
        return "ELEVATED means consumption from 0.30 up to 0.60 qt/hr: monitor the trend."
    if "summarise" in q or "summarize" in q:
        return "NORMAL below 0.30 qt/hr, ELEVATED from 0.30 to 0.60, HIGH from 0.60. Source: AMM 72-00."
    return "I don't know: that is outside the oil consumption bands of AMM 72-00."


class Telemetry:
    """GenAI spans of each turn, exported with the OpenTelemetry SDK (or nothing, when it is off)."""

    def __init__(self) -> None:
        self.tracer: Any = None
        self.provider: Any = None
        env = os.environ
        if not (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")):
            return
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError as e:
            print(f"oil agent: telemetry off, the OpenTelemetry SDK is not installed ({e})", file=sys.stderr)
            return
        resource = Resource.create(
            {"service.name": env.get("OTEL_SERVICE_NAME", "oil-agent"), "service.version": version()}
        )
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        self.tracer = self.provider.get_tracer("proctor-example-agent", version())

    def span(self, name: str, **attributes: Any) -> AbstractContextManager[Any]:
        if self.tracer is None:
            return nullcontext()
        return self.tracer.start_as_current_span(name, attributes=attributes)

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.shutdown()


def _messages(role: str, *parts: dict[str, Any]) -> str:
    return json.dumps([{"role": role, "parts": list(parts)}])


def _text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def turn(telemetry: Telemetry, question: str, conversation: str) -> str:
    """One turn of the agent, traced as the GenAI conventions describe it."""
    v = version()
    common = {"gen_ai.conversation.id": conversation, "gen_ai.agent.name": "oil-agent"}
    model = {"gen_ai.provider.name": "proctor-example", "gen_ai.request.model": f"oil-agent-{v}"}
    uses_tool = re.search(r"\d+(?:\.\d+)?\s*qt/hr", question.lower()) is not None
    with telemetry.span("invoke_agent oil-agent", **{"gen_ai.operation.name": "invoke_agent"}, **common):
        call = {
            "type": "tool_call",
            "id": f"call-{uuid.uuid4().hex[:8]}",
            "name": "oil_bands",
            "arguments": {},
        }
        if uses_tool:
            with telemetry.span(
                f"chat oil-agent-{v}",
                **{
                    "gen_ai.operation.name": "chat",
                    "gen_ai.system_instructions": json.dumps([_text(INSTRUCTIONS)]),
                    "gen_ai.input.messages": _messages("user", _text(question)),
                    "gen_ai.output.messages": _messages("assistant", call),
                },
                **model,
                **common,
            ):
                pass
            with telemetry.span(
                "execute_tool oil_bands",
                **{
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "oil_bands",
                    "gen_ai.tool.call.id": call["id"],
                    "gen_ai.tool.call.arguments": "{}",
                    "gen_ai.tool.call.result": BANDS,
                },
                **common,
            ):
                pass
        text = answer(question, v)
        with telemetry.span(
            f"chat oil-agent-{v}",
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.system_instructions": json.dumps([_text(INSTRUCTIONS)]),
                "gen_ai.input.messages": _messages("user", _text(question)),
                "gen_ai.output.messages": _messages("assistant", _text(text)),
            },
            **model,
            **common,
        ):
            pass
    return text


class Handler(BaseHTTPRequestHandler):
    server_version = "oil-agent"

    def log_message(self, fmt: str, *args: object) -> None:
        sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

    def _send(self, code: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/healthz":
            self._send(200, {"ok": True, "version": version()})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/ask":
            self._send(404, {"error": "not found"})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            question = str(body["question"])
            conversation = str(body.get("conversation") or uuid.uuid4())
        except (ValueError, KeyError, TypeError, AttributeError):
            self._send(400, {"error": 'expected {"question": "..."}'})
            return
        telemetry: Telemetry = self.server.telemetry  # type: ignore[attr-defined]
        self._send(200, {"answer": turn(telemetry, question, conversation), "conversation": conversation})


def main() -> None:
    host = os.environ.get("POD_IP") or "0.0.0.0"
    port = int(os.environ.get("PORT", "8080"))
    server = ThreadingHTTPServer((host, port), Handler)
    server.telemetry = Telemetry()  # type: ignore[attr-defined]
    traced = " (traced: OpenTelemetry)" if server.telemetry.tracer is not None else ""  # type: ignore[attr-defined]
    print(f"oil agent {version()} listening on {host}:{port}{traced}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.telemetry.shutdown()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
